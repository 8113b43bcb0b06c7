#include "interop/bridge.hpp"

#include <CL/cl_ext.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "core/error.hpp"
#include "core/log.hpp"
#include "render/vk_check.hpp"
#include "render/vk_handle.hpp"

namespace vfx {

namespace {

template <typename Fn>
Fn cl_ext(const ClContext& cl, const char* name) {
    void* p = cl.extension_function(name);
    if (!p)
        throw GpuError(fmt::format("OpenCL entry point {} is missing", name), CL_INVALID_OPERATION);
    return reinterpret_cast<Fn>(p);
}

struct ClSemaphoreFns {
    clCreateSemaphoreWithPropertiesKHR_fn create = nullptr;
    clEnqueueWaitSemaphoresKHR_fn wait = nullptr;
    clEnqueueSignalSemaphoresKHR_fn signal = nullptr;
    clReleaseSemaphoreKHR_fn release = nullptr;
    clEnqueueAcquireExternalMemObjectsKHR_fn acquire = nullptr;
    clEnqueueReleaseExternalMemObjectsKHR_fn release_mem = nullptr;
};

size_t round_up(size_t v, size_t a) {
    return (v + a - 1) / a * a;
}

}  // namespace

// An imported OpenCL semaphore, released through the extension's entry point.
class ClSemaphore {
public:
    ClSemaphore() = default;
    ClSemaphore(cl_semaphore_khr s, clReleaseSemaphoreKHR_fn release) : s_(s), release_(release) {}
    ClSemaphore(ClSemaphore&& o) noexcept
        : s_(std::exchange(o.s_, nullptr)), release_(o.release_) {}
    ClSemaphore& operator=(ClSemaphore&& o) noexcept {
        std::swap(s_, o.s_);
        std::swap(release_, o.release_);
        return *this;
    }
    ~ClSemaphore() {
        if (s_) release_(s_);
    }
    cl_semaphore_khr* ptr() { return &s_; }

private:
    cl_semaphore_khr s_ = nullptr;
    clReleaseSemaphoreKHR_fn release_ = nullptr;
};

// One SharedFrame: the memory both APIs see for one frame in flight, and the objects that order
// access to it. Owns every handle (members are destroyed in reverse order: the slot's references
// to OpenCL's imports go before the Vulkan objects they came from); it is destroyed only after
// Bridge::drain(). A frame still in the player's hands may hold its own reference to the
// imported buffer (FrameProcessor::enqueue retains its target) a frame or two longer: harmless,
// since the exported memory is reference-counted by the driver and drain() has finished every
// OpenCL command that could touch it.
struct Bridge::Slot {
    ClSemaphoreFns fns;
    uint32_t index = 0;

    // Vulkan side
    // Host tier: the one allocation both APIs use. Shared: this slot's reference outlives the
    // Vulkan memory that imports it (declared first, destroyed last), and the OpenCL buffer holds
    // another, dropped by its destructor callback, since frames in flight may keep the buffer
    // after the slot is gone.
    std::shared_ptr<void> host_memory;
    MemoryHandle memory;
    BufferHandle buffer;
    SemaphoreHandle sem_ready;  // CL signals, VK waits (external)
    SemaphoreHandle sem_free;   // VK signals, CL waits (external)
    void* vk_mapped = nullptr;  // copy tier: persistently mapped host-visible memory

    // OpenCL side
    ClMem cl_buffer;
    ClSemaphore cl_ready;
    ClSemaphore cl_free;
    void* cl_mapped = nullptr;  // host tier: pointer of the pending map

    // State
    ClEvent written;              // end_write's last command
    bool free_signalled = false;  // a VK submission signals sem_free; CL must wait it first
    uint64_t render_serial = 0;   // last render submission reading this slot (0: none)

    Slot(ClSemaphoreFns f, uint32_t i) : fns(f), index(i) {}
};

Bridge::Bridge(ClContext& cl, VkContext& vk, InteropTier tier, uint32_t slots,
               std::function<void(uint64_t)> render_waiter)
    : cl_(cl),
      vk_(vk),
      tier_(tier),
      render_waiter_(std::move(render_waiter)),
      // Driver quirk: the OpenCL spec transfers ownership of an imported fd to the
      // implementation, but NVIDIA's (580) keeps a duplicate and never closes ours: measured on an
      // H200, 6 re-allocations left 12 descriptors open, and closing ours right after a
      // successful import left none with every frame still read back exactly
      // (tests/test_interop.cpp). Elsewhere the implementation owns it and we must not touch it:
      // keyed on NVIDIA's own platform ("NVIDIA CUDA"), not the vendor id, which Mesa's rusticl
      // also reports on NVIDIA hardware while following the spec.
      close_imported_fds_(cl.info().platform_name.find("NVIDIA") != std::string::npos) {
    if (slots < 2) slots = 2;
    slots_.resize(slots);
}

Bridge::~Bridge() {
    try {
        drain();
    } catch (const std::exception& e) {
        spdlog::error("bridge teardown: {}", e.what());
    }
}

void Bridge::drain() {
    if (cl_.queue()) clFinish(cl_.queue());
    // Empty submissions from drop() carry no serial: idle the queue (teardown and resizes only).
    if (tier_ == InteropTier::external && vk_.queue()) vkQueueWaitIdle(vk_.queue());
    for (auto& s : slots_) {
        if (!s) continue;
        if (s->render_serial) render_waiter_(s->render_serial);
        s->render_serial = 0;
        if (s->cl_mapped) {  // host tier: give the mapping back before anything is freed
            clEnqueueUnmapMemObject(cl_.queue(), s->cl_buffer.get(), s->cl_mapped, 0, nullptr,
                                    nullptr);
            s->cl_mapped = nullptr;
        }
    }
    if (cl_.queue()) clFinish(cl_.queue());
}

void Bridge::reallocate(const FrameGeometry& g) {
    drain();
    for (auto& s : slots_)
        s.reset();
    geometry_ = {};  // set again once every slot exists: a failure leaves no half-built ring
    ++stats_.reallocations;

    VkDevice dev = vk_.device();
    ClSemaphoreFns fns;
    if (tier_ == InteropTier::external) {
        fns.create = cl_ext<clCreateSemaphoreWithPropertiesKHR_fn>(
            cl_, "clCreateSemaphoreWithPropertiesKHR");
        fns.wait = cl_ext<clEnqueueWaitSemaphoresKHR_fn>(cl_, "clEnqueueWaitSemaphoresKHR");
        fns.signal = cl_ext<clEnqueueSignalSemaphoresKHR_fn>(cl_, "clEnqueueSignalSemaphoresKHR");
        fns.release = cl_ext<clReleaseSemaphoreKHR_fn>(cl_, "clReleaseSemaphoreKHR");
        // Acquire/release are part of cl_khr_external_memory; drivers that predate them omit them.
        fns.acquire = reinterpret_cast<clEnqueueAcquireExternalMemObjectsKHR_fn>(
            cl_.extension_function("clEnqueueAcquireExternalMemObjectsKHR"));
        fns.release_mem = reinterpret_cast<clEnqueueReleaseExternalMemObjectsKHR_fn>(
            cl_.extension_function("clEnqueueReleaseExternalMemObjectsKHR"));
    }
    auto get_memory_fd = reinterpret_cast<PFN_vkGetMemoryFdKHR>(
        tier_ == InteropTier::external ? vk_.device_function("vkGetMemoryFdKHR") : nullptr);
    auto get_semaphore_fd = reinterpret_cast<PFN_vkGetSemaphoreFdKHR>(
        tier_ == InteropTier::external ? vk_.device_function("vkGetSemaphoreFdKHR") : nullptr);
    auto host_pointer_props = reinterpret_cast<PFN_vkGetMemoryHostPointerPropertiesEXT>(
        tier_ == InteropTier::host ? vk_.device_function("vkGetMemoryHostPointerPropertiesEXT")
                                   : nullptr);

    size_t bytes = g.size_bytes();
    size_t host_align = 4096;
    if (tier_ == InteropTier::host) {
        VkPhysicalDeviceExternalMemoryHostPropertiesEXT hp{
            VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT};
        VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &hp};
        vkGetPhysicalDeviceProperties2(vk_.physical(), &p2);
        host_align = std::max<size_t>(host_align, hp.minImportedHostPointerAlignment);
        bytes = round_up(bytes, host_align);
    }

    // A failure part-way leaves no half-built ring: every slot goes, and the next frame retries.
    try {
        for (uint32_t i = 0; i < slots_.size(); ++i) {
            auto s = std::make_unique<Slot>(fns, i);
            const std::string name = fmt::format("SharedFrame[{}]", i);

            VkExternalMemoryBufferCreateInfo ext_buf{
                VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
            VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
            bi.size = bytes;
            bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                       VK_BUFFER_USAGE_TRANSFER_DST_BIT;
            bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
            if (tier_ == InteropTier::external) {
                ext_buf.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
                bi.pNext = &ext_buf;
            } else if (tier_ == InteropTier::host) {
                ext_buf.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
                bi.pNext = &ext_buf;
            }
            VkBuffer raw_buffer = VK_NULL_HANDLE;
            VFX_VK(vkCreateBuffer(dev, &bi, nullptr, &raw_buffer));
            s->buffer = BufferHandle(dev, raw_buffer);
            vk_.set_name(raw_buffer, VK_OBJECT_TYPE_BUFFER, name.c_str());
            VkMemoryRequirements req;
            vkGetBufferMemoryRequirements(dev, raw_buffer, &req);
            auto allocate = [&](const VkMemoryAllocateInfo& info) {
                VkDeviceMemory raw = VK_NULL_HANDLE;
                VFX_VK(vkAllocateMemory(dev, &info, nullptr, &raw));
                s->memory = MemoryHandle(dev, raw);
                vk_.set_name(raw, VK_OBJECT_TYPE_DEVICE_MEMORY, name.c_str());
                VFX_VK(vkBindBufferMemory(dev, raw_buffer, raw, 0));
            };

            VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
            VkExportMemoryAllocateInfo export_info{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
            VkMemoryDedicatedAllocateInfo dedicated{
                VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
            VkImportMemoryHostPointerInfoEXT import_host{
                VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT};
            cl_int err = CL_SUCCESS;

            switch (tier_) {
                case InteropTier::external: {
                    // A dedicated allocation: the whole memory object is this one buffer, which is
                    // what OpenCL imports.
                    dedicated.buffer = raw_buffer;
                    export_info.pNext = &dedicated;
                    export_info.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
                    ai.pNext = &export_info;
                    ai.allocationSize = req.size;
                    ai.memoryTypeIndex =
                        vk_.memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
                    allocate(ai);
                    VkMemoryGetFdInfoKHR fdi{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
                    fdi.memory = s->memory.get();
                    fdi.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
                    int fd = -1;
                    VFX_VK(get_memory_fd(dev, &fdi, &fd));
                    cl_device_id dev_id = cl_.device();
                    const cl_mem_properties props[] = {CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR,
                                                       static_cast<cl_mem_properties>(fd),
                                                       CL_DEVICE_HANDLE_LIST_KHR,
                                                       reinterpret_cast<cl_mem_properties>(dev_id),
                                                       CL_DEVICE_HANDLE_LIST_END_KHR,
                                                       0};
                    cl_mem m = clCreateBufferWithProperties(cl_.context(), props, CL_MEM_READ_WRITE,
                                                            req.size, nullptr, &err);
                    if (err != CL_SUCCESS || close_imported_fds_) close(fd);
                    VFX_CL_ERR(err, "clCreateBufferWithProperties(opaque fd)");
                    s->cl_buffer = ClMem(m);

                    // The two semaphores of the slot, exported by Vulkan, imported by OpenCL. No
                    // device list: Debian 12's headers carry a provisional value NVIDIA rejects.
                    auto make_sem = [&](SemaphoreHandle& vs, ClSemaphore& cs, const char* what) {
                        VkExportSemaphoreCreateInfo esi{
                            VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO};
                        esi.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
                        VkSemaphoreCreateInfo si{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &esi};
                        VkSemaphore raw = VK_NULL_HANDLE;
                        VFX_VK(vkCreateSemaphore(dev, &si, nullptr, &raw));
                        vs = SemaphoreHandle(dev, raw);
                        vk_.set_name(raw, VK_OBJECT_TYPE_SEMAPHORE,
                                     fmt::format("{}.{}", name, what).c_str());
                        VkSemaphoreGetFdInfoKHR sfi{VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
                        sfi.semaphore = raw;
                        sfi.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
                        int sfd = -1;
                        VFX_VK(get_semaphore_fd(dev, &sfi, &sfd));
                        const cl_semaphore_properties_khr sp[] = {
                            CL_SEMAPHORE_TYPE_KHR, CL_SEMAPHORE_TYPE_BINARY_KHR,
                            CL_SEMAPHORE_HANDLE_OPAQUE_FD_KHR,
                            static_cast<cl_semaphore_properties_khr>(sfd), 0};
                        cl_int serr = CL_SUCCESS;
                        cl_semaphore_khr imported = fns.create(cl_.context(), sp, &serr);
                        if (serr != CL_SUCCESS || close_imported_fds_) close(sfd);
                        VFX_CL_ERR(serr, "clCreateSemaphoreWithPropertiesKHR(opaque fd)");
                        cs = ClSemaphore(imported, fns.release);
                    };
                    make_sem(s->sem_ready, s->cl_ready, "ready");
                    make_sem(s->sem_free, s->cl_free, "free");
                    break;
                }
                case InteropTier::host: {
                    s->host_memory.reset(std::aligned_alloc(host_align, bytes),
                                         [](void* p) { std::free(p); });
                    if (!s->host_memory)
                        throw GpuError("host allocation for SharedFrame failed", 0);
                    std::memset(s->host_memory.get(), 0, bytes);
                    VkMemoryHostPointerPropertiesEXT hpp{
                        VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
                    VFX_VK(host_pointer_props(
                        dev, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
                        s->host_memory.get(), &hpp));
                    import_host.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
                    import_host.pHostPointer = s->host_memory.get();
                    ai.pNext = &import_host;
                    ai.allocationSize = bytes;
                    // Coherent: OpenCL's CPU writes cannot be flushed through Vulkan.
                    ai.memoryTypeIndex = vk_.memory_type(
                        req.memoryTypeBits & hpp.memoryTypeBits,
                        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
                    allocate(ai);
                    cl_mem m =
                        clCreateBuffer(cl_.context(), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                                       bytes, s->host_memory.get(), &err);
                    VFX_CL_ERR(err, "clCreateBuffer(CL_MEM_USE_HOST_PTR)");
                    s->cl_buffer = ClMem(m);
                    auto* ref = new std::shared_ptr<void>(s->host_memory);
                    err = clSetMemObjectDestructorCallback(
                        m, [](cl_mem, void* p) { delete static_cast<std::shared_ptr<void>*>(p); },
                        ref);
                    if (err != CL_SUCCESS) delete ref;
                    VFX_CL_ERR(err, "clSetMemObjectDestructorCallback(SharedFrame)");
                    break;
                }
                case InteropTier::copy: {
                    ai.allocationSize = req.size;
                    ai.memoryTypeIndex = vk_.memory_type(
                        req.memoryTypeBits,
                        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
                    allocate(ai);
                    VFX_VK(vkMapMemory(dev, s->memory.get(), 0, VK_WHOLE_SIZE, 0, &s->vk_mapped));
                    cl_mem m = clCreateBuffer(cl_.context(), CL_MEM_READ_WRITE, g.size_bytes(),
                                              nullptr, &err);
                    VFX_CL_ERR(err, "clCreateBuffer(staged SharedFrame)");
                    s->cl_buffer = ClMem(m);
                    break;
                }
            }
            slots_[i] = std::move(s);
        }
    } catch (...) {
        for (auto& slot : slots_)
            slot.reset();
        throw;
    }
    geometry_ = g;
    spdlog::debug("bridge: {} shared frames of {}x{} {} ({} bytes each), tier {}", slots_.size(),
                  g.width, g.height, to_string(g.format), bytes, to_string(tier_));
}

Bridge::WriteTarget Bridge::begin_write(const FrameGeometry& g) {
    if (!slots_[0] || !(g == geometry_)) reallocate(g);
    const auto index = static_cast<uint32_t>(next_frame_++ % slots_.size());
    Slot& s = *slots_[index];
    cl_command_queue q = cl_.queue();
    switch (tier_) {
        case InteropTier::external:
            if (s.free_signalled) {
                VFX_CL(s.fns.wait(q, 1, s.cl_free.ptr(), nullptr, 0, nullptr, nullptr));
                s.free_signalled = false;
            }
            if (s.fns.acquire) {
                cl_mem m = s.cl_buffer.get();
                VFX_CL(s.fns.acquire(q, 1, &m, 0, nullptr, nullptr));
            }
            break;
        case InteropTier::host:
            if (s.render_serial) render_waiter_(s.render_serial);
            if (s.cl_mapped) {
                VFX_CL(clEnqueueUnmapMemObject(q, s.cl_buffer.get(), s.cl_mapped, 0, nullptr,
                                               nullptr));
                s.cl_mapped = nullptr;
            }
            break;
        case InteropTier::copy:
            if (s.render_serial) render_waiter_(s.render_serial);
            break;
    }
    s.render_serial = 0;
    return {index, s.cl_buffer.get(), geometry_};
}

void Bridge::end_write(const WriteTarget& t) {
    Slot& s = *slots_.at(t.slot);
    cl_command_queue q = cl_.queue();
    cl_int err = CL_SUCCESS;
    switch (tier_) {
        case InteropTier::external: {
            cl_mem m = s.cl_buffer.get();
            if (s.fns.release_mem) VFX_CL(s.fns.release_mem(q, 1, &m, 0, nullptr, nullptr));
            VFX_CL(s.fns.signal(q, 1, s.cl_ready.ptr(), nullptr, 0, nullptr, s.written.out()));
            // The signal must reach the device before Vulkan's wait is submitted.
            VFX_CL(clFlush(q));
            break;
        }
        case InteropTier::host:
            s.cl_mapped =
                clEnqueueMapBuffer(q, s.cl_buffer.get(), CL_FALSE, CL_MAP_READ, 0,
                                   geometry_.size_bytes(), 0, nullptr, s.written.out(), &err);
            VFX_CL_ERR(err, "clEnqueueMapBuffer(SharedFrame)");
            VFX_CL(clFlush(q));
            break;
        case InteropTier::copy:
            VFX_CL(clEnqueueReadBuffer(q, s.cl_buffer.get(), CL_FALSE, 0, geometry_.size_bytes(),
                                       s.vk_mapped, 0, nullptr, s.written.out()));
            VFX_CL(clFlush(q));
            ++stats_.copies;
            stats_.bytes_copied += geometry_.size_bytes();
            break;
    }
}

Bridge::ReadView Bridge::hand_over(uint32_t slot) {
    Slot& s = *slots_.at(slot);
    ReadView v;
    v.slot = slot;
    v.buffer = s.buffer.get();
    v.offset = 0;
    v.size = geometry_.size_bytes();
    v.geometry = geometry_;
    if (tier_ == InteropTier::external) {
        v.wait = s.sem_ready.get();
        v.signal = s.sem_free.get();
        v.external_memory = true;
    } else {
        cl_event ev = s.written.get();
        VFX_CL(clWaitForEvents(1, &ev));
    }
    ++stats_.frames;
    return v;
}

void Bridge::rendered(uint32_t slot, uint64_t render_serial) {
    Slot& s = *slots_.at(slot);
    s.render_serial = render_serial;
    if (tier_ == InteropTier::external) s.free_signalled = true;
}

void Bridge::drop(uint32_t slot) {
    Slot& s = *slots_.at(slot);
    if (tier_ != InteropTier::external) return;
    // Consume sem_ready and signal sem_free with an empty submission, so each binary semaphore
    // keeps exactly one pending signal per wait.
    VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.waitSemaphoreCount = 1;
    VkSemaphore ready = s.sem_ready.get(), free = s.sem_free.get();
    si.pWaitSemaphores = &ready;
    si.pWaitDstStageMask = &stage;
    si.signalSemaphoreCount = 1;
    si.pSignalSemaphores = &free;
    VFX_VK(vkQueueSubmit(vk_.queue(), 1, &si, VK_NULL_HANDLE));
    s.free_signalled = true;
}

}  // namespace vfx
