#pragma once
// Helpers shared by the render tests: a VkContext with validation, host-visible buffers,
// test frames in the working format and their expected 8-bit rendering.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/format.hpp"
#include "render/renderer.hpp"
#include "render/vk_check.hpp"
#include "render/vk_context.hpp"
#include "render/vk_handle.hpp"

namespace vfx::test {

// A buffer in host-visible, host-coherent memory, mapped for its whole life.
struct HostBuffer {
    BufferHandle buffer;
    MemoryHandle memory;
    uint8_t* data = nullptr;
    VkDeviceSize size = 0;
};

inline HostBuffer make_host_buffer(VkContext& ctx, VkDeviceSize size,
                                   VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT) {
    HostBuffer b;
    b.size = size;
    VkBufferCreateInfo bci{};
    bci.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    bci.size = size;
    bci.usage = usage;
    bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkBuffer buf = VK_NULL_HANDLE;
    VFX_VK(vkCreateBuffer(ctx.device(), &bci, nullptr, &buf));
    b.buffer = BufferHandle(ctx.device(), buf);
    ctx.set_name(buf, VK_OBJECT_TYPE_BUFFER, "test host buffer");
    VkMemoryRequirements req{};
    vkGetBufferMemoryRequirements(ctx.device(), buf, &req);
    VkMemoryAllocateInfo mai{};
    mai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    mai.allocationSize = req.size;
    mai.memoryTypeIndex =
        ctx.memory_type(req.memoryTypeBits,
                        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    VkDeviceMemory mem = VK_NULL_HANDLE;
    VFX_VK(vkAllocateMemory(ctx.device(), &mai, nullptr, &mem));
    b.memory = MemoryHandle(ctx.device(), mem);
    ctx.set_name(mem, VK_OBJECT_TYPE_DEVICE_MEMORY, "test host memory");
    VFX_VK(vkBindBufferMemory(ctx.device(), buf, mem, 0));
    void* p = nullptr;
    VFX_VK(vkMapMemory(ctx.device(), mem, 0, VK_WHOLE_SIZE, 0, &p));
    b.data = static_cast<uint8_t*>(p);
    return b;
}

// A frame in host memory with a known pattern; `seed` varies the content.
struct TestFrame {
    uint32_t width = 0;
    uint32_t height = 0;
    WorkFormat format = WorkFormat::rgba8;
    size_t pitch = 0;
    std::vector<uint8_t> bytes;  // pitch * height, padding filled with 0xAB

    // The channel values (8- or 16-bit) of pixel (x, y).
    std::array<uint32_t, 4> pixel(uint32_t x, uint32_t y) const {
        std::array<uint32_t, 4> v{};
        const uint8_t* p = bytes.data() + size_t{y} * pitch + size_t{x} * bytes_per_pixel(format);
        for (int c = 0; c < 4; ++c) {
            if (format == WorkFormat::rgba8) {
                v[c] = p[c];
            } else {
                uint16_t s = 0;
                std::memcpy(&s, p + 2 * c, 2);
                v[c] = s;
            }
        }
        return v;
    }
    // Channel value converted to 8 bits as the display gets it (alpha forced to 255).
    std::array<double, 4> pixel8(uint32_t x, uint32_t y) const {
        std::array<uint32_t, 4> v = pixel(x, y);
        const double max = format == WorkFormat::rgba8 ? 255.0 : 65535.0;
        return {v[0] * 255.0 / max, v[1] * 255.0 / max, v[2] * 255.0 / max, 255.0};
    }
};

inline TestFrame make_test_frame(uint32_t w, uint32_t h, WorkFormat f, uint32_t seed = 0,
                                 size_t extra_pitch = 64) {
    TestFrame t;
    t.width = w;
    t.height = h;
    t.format = f;
    t.pitch = make_geometry(w, h, f).pitch + extra_pitch;
    t.bytes.assign(t.pitch * h, 0xAB);
    for (uint32_t y = 0; y < h; ++y) {
        for (uint32_t x = 0; x < w; ++x) {
            uint8_t* p = t.bytes.data() + size_t{y} * t.pitch + size_t{x} * bytes_per_pixel(f);
            if (f == WorkFormat::rgba8) {
                p[0] = static_cast<uint8_t>(w > 1 ? x * 255 / (w - 1) : 0);
                p[1] = static_cast<uint8_t>(h > 1 ? y * 255 / (h - 1) : 0);
                p[2] = static_cast<uint8_t>((x * 7 + y * 13 + seed * 37) & 0xFF);
                p[3] = 255;
            } else {
                const uint16_t v[4] = {
                    static_cast<uint16_t>(w > 1 ? uint64_t{x} * 65535 / (w - 1) : 0),
                    static_cast<uint16_t>(h > 1 ? uint64_t{y} * 65535 / (h - 1) : 0),
                    static_cast<uint16_t>((x * 7919u + y * 104729u + seed * 4099u) & 0xFFFF),
                    65535};
                std::memcpy(p, v, sizeof(v));
            }
        }
    }
    return t;
}

// Copies `frame` into `buf` at `offset` and describes it.
inline VideoFrame upload(const TestFrame& frame, HostBuffer& buf, VkDeviceSize offset = 0) {
    EXPECT_LE(offset + frame.bytes.size(), buf.size);
    std::memcpy(buf.data + offset, frame.bytes.data(), frame.bytes.size());
    VideoFrame v;
    v.buffer = buf.buffer.get();
    v.offset = offset;
    v.range = frame.bytes.size();
    v.width = frame.width;
    v.height = frame.height;
    v.pitch = frame.pitch;
    v.format = frame.format;
    return v;
}

// Whether there is a Vulkan device, asked once. When there is, an instance is kept for the
// whole test program, so the loader never unloads the driver between tests: on NVIDIA
// (driver 580, loader 1.3.239) dlopen of libGLX_nvidia.so.0 starts failing after a few dozen
// load/unload cycles in one process, and every later vkCreateInstance then finds no driver.
inline bool vulkan_available() {
    static const bool available = [] {
        if (list_vk_devices().empty()) return false;
        VkApplicationInfo app{};
        app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
        app.apiVersion = VK_API_VERSION_1_1;
        VkInstanceCreateInfo ci{};
        ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
        ci.pApplicationInfo = &app;
        VkInstance keep = VK_NULL_HANDLE;  // deliberately never destroyed
        (void)vkCreateInstance(&ci, nullptr, &keep);
        return true;
    }();
    return available;
}

// The video passes a device can run: compute (where it can write storage images without a
// format) and fragment, each asked for by name.
inline std::vector<VideoPass> video_passes(const VkContext& ctx) {
    if (!ctx.storage_write_without_format()) return {VideoPass::fragment};
    return {VideoPass::compute, VideoPass::fragment};
}

// Test fixture: a VkContext with validation (and synchronization validation) on; skips when
// there is no Vulkan device; checks that no validation error was reported.
class VkTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!vulkan_available()) GTEST_SKIP() << "no Vulkan device (no driver/ICD found)";
        errors_before_ = total_validation_errors();
        VkContextOptions o;
        o.validation = true;
        o.synchronization_validation = true;
        ctx_ = std::make_unique<VkContext>(o);
        if (!ctx_->validation_enabled()) {
            ADD_FAILURE() << "VK_LAYER_KHRONOS_validation is not installed";
        }
    }
    void TearDown() override {
        if (!ctx_) return;
        EXPECT_EQ(ctx_->validation_errors(), 0u);
        ctx_.reset();  // leaks are reported while the device is destroyed
        EXPECT_EQ(total_validation_errors(), errors_before_) << "validation errors at teardown";
    }
    VkContext& ctx() { return *ctx_; }

    std::unique_ptr<VkContext> ctx_;
    uint32_t errors_before_ = 0;
};

}  // namespace vfx::test
