// Interop: bytes written by OpenCL are read back exactly by Vulkan, in every tier the machine
// offers; a tier it lacks is skipped with the reason, never passed.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <vector>

#include "compute/cl_context.hpp"
#include "core/error.hpp"
#include "interop/bridge.hpp"
#include "interop/pairing.hpp"
#include "render/vk_check.hpp"
#include "render/vk_context.hpp"

namespace vfx {
namespace {

// Writes a pattern that depends on the frame number into every byte of the frame's rows.
const char* kPatternKernel = R"CL(
__kernel void pattern(__global uchar* dst, uint pitch, uint row_bytes, uint frame) {
    uint x = get_global_id(0), y = get_global_id(1);
    if (x >= row_bytes) return;
    dst[y * pitch + x] = (uchar)((x * 7u + y * 13u + frame * 101u) & 0xffu);
}
)CL";

uint8_t expected(uint32_t x, uint32_t y, uint32_t frame) {
    return static_cast<uint8_t>((x * 7u + y * 13u + frame * 101u) & 0xffu);
}

class Interop : public ::testing::TestWithParam<InteropTier> {
protected:
    void SetUp() override {
        auto cl = list_cl_devices();
        auto vk = list_vk_devices();
        if (cl.empty()) GTEST_SKIP() << "no OpenCL device";
        if (vk.empty()) GTEST_SKIP() << "no Vulkan device";
        DevicePair pair = choose_devices(cl, vk, std::nullopt, std::nullopt);
        InteropRequest req = GetParam() == InteropTier::external ? InteropRequest::external
                             : GetParam() == InteropTier::host   ? InteropRequest::host
                                                                 : InteropRequest::copy;
        try {
            choose_tier(cl[static_cast<size_t>(pair.cl)], vk[static_cast<size_t>(pair.vk)],
                        pair.same_physical_device, req);
        } catch (const Error& e) {
            GTEST_SKIP() << "tier not offered here: " << e.what();
        }
        cl_ = std::make_unique<ClContext>(cl[static_cast<size_t>(pair.cl)]);
        VkContextOptions vo;
        vo.validation = true;
        vo.device_index = static_cast<uint32_t>(pair.vk);
        vk_ = std::make_unique<VkContext>(vo);

        cl_int err = CL_SUCCESS;
        const char* src = kPatternKernel;
        program_ = ClProgram(clCreateProgramWithSource(cl_->context(), 1, &src, nullptr, &err));
        VFX_CL_ERR(err, "clCreateProgramWithSource");
        cl_device_id d = cl_->device();
        VFX_CL(clBuildProgram(program_.get(), 1, &d, "", nullptr, nullptr));
        kernel_ = ClKernel(clCreateKernel(program_.get(), "pattern", &err));
        VFX_CL_ERR(err, "clCreateKernel");

        VkDevice dev = vk_->device();
        VkCommandPoolCreateInfo cpi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        cpi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
        cpi.queueFamilyIndex = vk_->queue_family();
        VFX_VK(vkCreateCommandPool(dev, &cpi, nullptr, &pool_));
        VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        VFX_VK(vkCreateFence(dev, &fi, nullptr, &fence_));
    }

    void TearDown() override {
        bridge_.reset();
        if (vk_) {
            VkDevice dev = vk_->device();
            vkDeviceWaitIdle(dev);
            destroy_readback();
            vkDestroyFence(dev, fence_, nullptr);
            vkDestroyCommandPool(dev, pool_, nullptr);
            EXPECT_EQ(vk_->validation_errors(), 0u);
        }
    }

    void destroy_readback() {
        VkDevice dev = vk_->device();
        if (mapped_) vkUnmapMemory(dev, rb_mem_);
        vkDestroyBuffer(dev, rb_buf_, nullptr);
        vkFreeMemory(dev, rb_mem_, nullptr);
        mapped_ = nullptr;
        rb_buf_ = VK_NULL_HANDLE;
        rb_mem_ = VK_NULL_HANDLE;
    }

    void make_readback(VkDeviceSize size) {
        VkDevice dev = vk_->device();
        destroy_readback();
        VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
        bi.size = size;
        bi.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
        VFX_VK(vkCreateBuffer(dev, &bi, nullptr, &rb_buf_));
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(dev, rb_buf_, &req);
        VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        ai.allocationSize = req.size;
        ai.memoryTypeIndex =
            vk_->memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                     VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
        VFX_VK(vkAllocateMemory(dev, &ai, nullptr, &rb_mem_));
        VFX_VK(vkBindBufferMemory(dev, rb_buf_, rb_mem_, 0));
        VFX_VK(vkMapMemory(dev, rb_mem_, 0, VK_WHOLE_SIZE, 0, &mapped_));
    }

    // One frame through the bridge: CL writes the pattern, Vulkan copies the slot's buffer to
    // host memory (waiting/signalling what the bridge says), the bytes are compared.
    void roundtrip(const FrameGeometry& g, uint32_t frame) {
        auto t = bridge_->begin_write(g);
        cl_mem buf = t.buffer;
        cl_uint pitch = static_cast<cl_uint>(g.pitch),
                row = g.width * static_cast<cl_uint>(bytes_per_pixel(g.format));
        VFX_CL(clSetKernelArg(kernel_.get(), 0, sizeof(cl_mem), &buf));
        VFX_CL(clSetKernelArg(kernel_.get(), 1, sizeof(cl_uint), &pitch));
        VFX_CL(clSetKernelArg(kernel_.get(), 2, sizeof(cl_uint), &row));
        VFX_CL(clSetKernelArg(kernel_.get(), 3, sizeof(cl_uint), &frame));
        size_t global[2] = {(row + 63) / 64 * 64, g.height};
        VFX_CL(clEnqueueNDRangeKernel(cl_->queue(), kernel_.get(), 2, nullptr, global, nullptr, 0,
                                      nullptr, nullptr));
        bridge_->end_write(t);
        auto v = bridge_->hand_over(t.slot);

        VkDevice dev = vk_->device();
        VkCommandBuffer cmd;
        VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        cai.commandPool = pool_;
        cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        cai.commandBufferCount = 1;
        VFX_VK(vkAllocateCommandBuffers(dev, &cai, &cmd));
        VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        VFX_VK(vkBeginCommandBuffer(cmd, &bi));
        if (v.external_memory) {
            VkBufferMemoryBarrier acquire{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
            acquire.srcAccessMask = 0;
            acquire.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
            acquire.srcQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
            acquire.dstQueueFamilyIndex = vk_->queue_family();
            acquire.buffer = v.buffer;
            acquire.offset = 0;
            acquire.size = VK_WHOLE_SIZE;
            vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                                 VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 1, &acquire, 0,
                                 nullptr);
        } else {
            VkMemoryBarrier host{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
            host.srcAccessMask = VK_ACCESS_HOST_WRITE_BIT;
            host.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
            vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                                 1, &host, 0, nullptr, 0, nullptr);
        }
        VkBufferCopy region{0, 0, g.size_bytes()};
        vkCmdCopyBuffer(cmd, v.buffer, rb_buf_, 1, &region);
        VFX_VK(vkEndCommandBuffer(cmd));
        VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
        VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        si.waitSemaphoreCount = v.wait ? 1 : 0;
        si.pWaitSemaphores = &v.wait;
        si.pWaitDstStageMask = &stage;
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmd;
        si.signalSemaphoreCount = v.signal ? 1 : 0;
        si.pSignalSemaphores = &v.signal;
        VFX_VK(vkResetFences(dev, 1, &fence_));
        VFX_VK(vkQueueSubmit(vk_->queue(), 1, &si, fence_));
        VFX_VK(vkWaitForFences(dev, 1, &fence_, VK_TRUE, UINT64_MAX));
        bridge_->rendered(t.slot, ++serial_);
        vkFreeCommandBuffers(dev, pool_, 1, &cmd);

        const auto* bytes = static_cast<const uint8_t*>(mapped_);
        size_t bad = 0;
        for (uint32_t y = 0; y < g.height; ++y)
            for (uint32_t x = 0; x < row; ++x)
                if (bytes[y * g.pitch + x] != expected(x, y, frame)) ++bad;
        EXPECT_EQ(bad, 0u) << "frame " << frame << " of " << g.width << "x" << g.height;
    }

    std::unique_ptr<ClContext> cl_;
    std::unique_ptr<VkContext> vk_;
    std::unique_ptr<Bridge> bridge_;
    ClProgram program_;
    ClKernel kernel_;
    VkCommandPool pool_ = VK_NULL_HANDLE;
    VkFence fence_ = VK_NULL_HANDLE;
    VkBuffer rb_buf_ = VK_NULL_HANDLE;
    VkDeviceMemory rb_mem_ = VK_NULL_HANDLE;
    void* mapped_ = nullptr;
    uint64_t serial_ = 0;
};

TEST_P(Interop, BytesWrittenByOpenClReadBackExactlyByVulkan) {
    // Every render completes before the next frame here, so the waiter has nothing to wait for.
    bridge_ = std::make_unique<Bridge>(*cl_, *vk_, GetParam(), 3,
                                       [this](uint64_t s) { EXPECT_LE(s, serial_); });
    EXPECT_EQ(bridge_->tier(), GetParam());
    FrameGeometry a = make_geometry(641, 479, WorkFormat::rgba8);
    make_readback(a.size_bytes());
    for (uint32_t f = 0; f < 7; ++f)
        roundtrip(a, f);  // more frames than slots: slots are reused
    // A size change re-creates the shared buffers after draining.
    FrameGeometry b = make_geometry(333, 211, WorkFormat::rgba16);
    make_readback(b.size_bytes());
    for (uint32_t f = 7; f < 11; ++f)
        roundtrip(b, f);
    EXPECT_EQ(bridge_->stats().frames, 11u);
    EXPECT_EQ(bridge_->stats().reallocations, 2u);
    if (GetParam() == InteropTier::copy) {
        EXPECT_EQ(bridge_->stats().copies, 11u);
    } else {
        EXPECT_EQ(bridge_->stats().copies, 0u);
    }
}

TEST_P(Interop, DroppedFramesKeepTheSemaphoresBalanced) {
    bridge_ = std::make_unique<Bridge>(*cl_, *vk_, GetParam(), 2, [](uint64_t) {});
    FrameGeometry g = make_geometry(64, 32, WorkFormat::rgba8);
    make_readback(g.size_bytes());
    for (uint32_t f = 0; f < 5; ++f) {  // drop every slot once, then render again through it
        auto t = bridge_->begin_write(g);
        bridge_->end_write(t);
        bridge_->hand_over(t.slot);
        bridge_->drop(t.slot);
    }
    for (uint32_t f = 0; f < 4; ++f)
        roundtrip(g, f);
}

// Every re-allocation exports file descriptors (external tier); importing them hands them to
// OpenCL. Re-creating the shared frames many times must not leave descriptors open.
TEST_P(Interop, ReallocationsLeakNoFileDescriptors) {
    auto open_fds = [] {
        size_t n = 0;
        for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd"))
            ++n;
        return n;
    };
    auto cycle = [&](int sizes) {
        Bridge bridge(*cl_, *vk_, GetParam(), 3, [](uint64_t) {});
        bridge_.reset();
        for (int i = 0; i < sizes; ++i) {
            FrameGeometry g =
                make_geometry(64 + 16 * static_cast<uint32_t>(i), 48, WorkFormat::rgba8);
            auto t = bridge.begin_write(g);
            bridge.end_write(t);
            bridge.hand_over(t.slot);
            bridge.drop(t.slot);
        }
    };
    cycle(1);  // the drivers open what they keep open on first use
    const size_t before = open_fds();
    cycle(6);
    EXPECT_EQ(open_fds(), before) << "descriptors left open after 6 re-allocations of 3 slots";
    if (open_fds() != before) {
        std::map<std::string, int> kinds;
        for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) {
            std::error_code ec;
            kinds[std::filesystem::read_symlink(e.path(), ec).string()]++;
        }
        for (const auto& [target, n] : kinds)
            std::printf("  open fd -> %s x%d\n", target.c_str(), n);
    }
}

INSTANTIATE_TEST_SUITE_P(Tiers, Interop,
                         ::testing::Values(InteropTier::external, InteropTier::host,
                                           InteropTier::copy),
                         [](const auto& p) { return std::string(to_string(p.param)); });

TEST(Pairing, PrefersUuidThenTypeAndVendor) {
    ClDeviceInfo cpu;
    cpu.index = 0;
    cpu.name = "pthread";
    cpu.type = CL_DEVICE_TYPE_CPU;
    ClDeviceInfo gpu;
    gpu.index = 1;
    gpu.name = "NVIDIA H100";
    gpu.type = CL_DEVICE_TYPE_GPU;
    gpu.vendor_id = 0x10de;
    gpu.uuid = Uuid{1, 2, 3};
    VkDeviceDesc lvp;
    lvp.index = 0;
    lvp.name = "llvmpipe";
    lvp.type = VK_PHYSICAL_DEVICE_TYPE_CPU;
    VkDeviceDesc nv;
    nv.index = 1;
    nv.name = "NVIDIA H100";
    nv.type = VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
    nv.vendor_id = 0x10de;
    nv.uuid = {1, 2, 3};

    auto p = choose_devices({cpu, gpu}, {lvp, nv}, std::nullopt, std::nullopt);
    EXPECT_EQ(p.cl, 1);
    EXPECT_EQ(p.vk, 1);
    EXPECT_TRUE(p.same_physical_device);
    EXPECT_NE(p.reason.find("UUID"), std::string::npos);

    auto q = choose_devices({cpu}, {lvp}, std::nullopt, std::nullopt);  // PoCL + lavapipe
    EXPECT_EQ(q.cl, 0);
    EXPECT_EQ(q.vk, 0);
    EXPECT_FALSE(q.same_physical_device);
    EXPECT_NE(q.reason.find("type and vendor"), std::string::npos);

    auto r = choose_devices({cpu, gpu}, {lvp, nv}, std::string("pthread"), std::string("0"));
    EXPECT_EQ(r.cl, 0);
    EXPECT_EQ(r.vk, 0);

    EXPECT_THROW(choose_devices({cpu}, {lvp}, std::string("7"), std::nullopt), Error);
    EXPECT_THROW(choose_devices({cpu}, {lvp}, std::string("radeon"), std::nullopt), Error);
    EXPECT_THROW(choose_devices({}, {lvp}, std::nullopt, std::nullopt), Error);
}

TEST(Pairing, TierFollowsCapabilities) {
    ClDeviceInfo gpu;
    gpu.type = CL_DEVICE_TYPE_GPU;
    gpu.extensions = "cl_khr_external_memory_opaque_fd cl_khr_external_semaphore_opaque_fd";
    VkDeviceDesc nv;
    nv.external_memory_fd = nv.external_semaphore_fd = true;
    EXPECT_EQ(choose_tier(gpu, nv, true, InteropRequest::automatic).tier, InteropTier::external);
    EXPECT_EQ(choose_tier(gpu, nv, false, InteropRequest::automatic).tier, InteropTier::copy);
    EXPECT_THROW(choose_tier(gpu, nv, true, InteropRequest::host), Error);

    ClDeviceInfo cpu;
    cpu.type = CL_DEVICE_TYPE_CPU;
    cpu.host_unified_memory = true;
    VkDeviceDesc lvp;
    lvp.external_memory_host = true;
    auto t = choose_tier(cpu, lvp, false, InteropRequest::automatic);
    EXPECT_EQ(t.tier, InteropTier::host);
    EXPECT_NE(t.reason.find("no GPU tier"), std::string::npos);
    EXPECT_THROW(choose_tier(cpu, lvp, false, InteropRequest::external), Error);
    EXPECT_EQ(choose_tier(cpu, lvp, false, InteropRequest::copy).tier, InteropTier::copy);
    EXPECT_THROW(parse_interop("fast"), Error);
}

}  // namespace
}  // namespace vfx
