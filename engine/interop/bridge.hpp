#pragma once
// The bridge: the ring of SharedFrames through which OpenCL hands finished frames to Vulkan.
// The tier lives only in here; the session and the renderer see slots, buffers and semaphores.
//
//   tier      memory                                         CL -> VK                VK -> CL
//   external  Vulkan-exported (opaque fd), CL-imported       sem_ready[i] (GPU)      sem_free[i]
//   (GPU) host      one page-aligned host allocation: CL USE_HOST  host wait on CL's map   host
//   wait on the
//             _PTR buffer, Vulkan VK_EXT_external_memory_host event at hand_over()   render's fence
//   copy      CL device buffer + Vulkan host-visible buffer; host wait on the read   host wait on
//   the
//             a CL read into the Vulkan memory per frame      at hand_over()          render's
//             fence
//
// Synchronisation contract, slot i (frame n uses slot n % slots()):
//   * begin_write (compute thread, CL queue): before any command that writes slot i,
//       external: enqueues clEnqueueWaitSemaphoresKHR(sem_free[i]) when a render has signalled it
//                 since the last write, then acquires the imported buffer for OpenCL;
//       host/copy: host-waits until the render that last read slot i completed (render waiter).
//     Between begin_write and end_write only the CL queue touches slot i's buffer.
//   * end_write (CL queue): after the last writing command,
//       external: releases the buffer, enqueues clEnqueueSignalSemaphoresKHR(sem_ready[i]),
//       flushes; host: enqueues a map of the buffer (makes the host memory current); copy: enqueues
//       a read of the CL buffer into slot i's Vulkan memory.
//   * hand_over (render thread): external: returns sem_ready[i] to WAIT on and sem_free[i] to
//     SIGNAL (the render submission must do both, exactly once); host/copy: host-waits the event
//     of end_write, returns no semaphores. Vulkan may read slot i until its submission completes.
//   * rendered(i, serial): the render submission that reads slot i has serial `serial`.
//     drop(i): slot i's frame will not be rendered; the bridge balances the semaphores itself.
// Every handed-over slot must be followed by exactly one rendered() or drop().
// A geometry change drains every slot (CL finish + render waits) before the buffers are
// re-created, so no buffer or semaphore is freed while either API may still use it.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "compute/cl_context.hpp"
#include "core/format.hpp"
#include "interop/pairing.hpp"
#include "render/vk_context.hpp"

namespace vfx {

struct BridgeStats {
    uint64_t frames = 0;         // frames handed over
    uint64_t copies = 0;         // staged copies (copy tier only)
    uint64_t bytes_copied = 0;   // bytes moved by staged copies
    uint64_t reallocations = 0;  // shared-buffer re-creations after size changes
};

class Bridge {
public:
    // `render_waiter(serial)` blocks until the Vulkan submission `serial` completed; the host and
    // copy tiers call it before CL reuses a slot, and every tier on a geometry change.
    Bridge(ClContext& cl, VkContext& vk, InteropTier tier, uint32_t slots,
           std::function<void(uint64_t)> render_waiter);
    ~Bridge();
    Bridge(const Bridge&) = delete;
    Bridge& operator=(const Bridge&) = delete;

    InteropTier tier() const { return tier_; }
    uint32_t slots() const { return static_cast<uint32_t>(slots_.size()); }
    const BridgeStats& stats() const { return stats_; }

    struct WriteTarget {
        uint32_t slot = 0;
        cl_mem buffer = nullptr;  // write the frame here, rows geometry.pitch bytes apart
        FrameGeometry geometry;
    };
    WriteTarget begin_write(const FrameGeometry& g);
    void end_write(const WriteTarget& t);

    struct ReadView {
        uint32_t slot = 0;
        VkBuffer buffer = VK_NULL_HANDLE;
        VkDeviceSize offset = 0, size = 0;
        FrameGeometry geometry;
        VkSemaphore wait = VK_NULL_HANDLE;    // wait before reading (external tier)
        VkSemaphore signal = VK_NULL_HANDLE;  // signal when done reading (external tier)
        bool external_memory = false;  // acquire from VK_QUEUE_FAMILY_EXTERNAL before reading
    };
    ReadView hand_over(uint32_t slot);
    void rendered(uint32_t slot, uint64_t render_serial);
    void drop(uint32_t slot);

    // Makes every slot idle (CL finish, render waits); used on teardown and size changes.
    void drain();

    struct Slot;  // defined in bridge.cpp

private:
    void reallocate(const FrameGeometry& g);

    ClContext& cl_;
    VkContext& vk_;
    InteropTier tier_;
    std::function<void(uint64_t)> render_waiter_;
    std::vector<std::unique_ptr<Slot>> slots_;
    FrameGeometry geometry_;
    uint64_t next_frame_ = 0;
    BridgeStats stats_;
    bool close_imported_fds_ = false;  // see the driver quirk in bridge.cpp
};

}  // namespace vfx
