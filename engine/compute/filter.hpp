#pragma once
// The GPU side of a filter: what a registered filter's factory makes (see registry.hpp).
#include <vector>

#include "compute/cl_context.hpp"
#include "core/format.hpp"

namespace vfx {

// Everything one filter's enqueue works with. `src` and `dst` are working-format buffers of
// geometry `g` (distinct buffers); the commands go on `queue` (in-order).
struct FilterIo {
    ClContext& cl;
    cl_command_queue queue;
    cl_mem src;
    cl_mem dst;
    const FrameGeometry& g;
    std::vector<ClEvent>& events;  // append the event of every command enqueued, in order
    std::vector<ClMem>& keep;      // append every other buffer those commands use
};

class GpuFilter {
public:
    virtual ~GpuFilter() = default;
    // Enqueues the filter: reads io.src, writes every pixel of io.dst (R, G, B filtered, alpha
    // copied). Must not wait for the device. Buffers it owns and uses go into io.keep so a
    // frame in flight keeps them alive even if the filter is destroyed (chain changed).
    virtual void enqueue(FilterIo& io) = 0;
};

}  // namespace vfx
