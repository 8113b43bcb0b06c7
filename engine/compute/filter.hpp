#pragma once
// The GPU side of a filter: what a registered filter's factory makes (see registry.hpp).
#include <vector>

#include "compute/cl_context.hpp"
#include "core/format.hpp"

namespace vfx {

// Everything one filter's enqueue works with. `src` and `dst` are working-format buffers of
// geometry `g` (distinct buffers); the commands go on `queue` (in-order).
// The fields after `keep` have defaults that suit a colour -> colour filter:
//  - dst_g: the geometry of `dst` when the filter changes the frame kind (demosaic: mono ->
//    rgba, mosaic: rgba -> mono); null when it is `g`. Use dst_geometry().
//  - input / input_g: the chain's input frame (the conversion's output, alive through the
//    whole chain), for filters registered with uses_chain_input; null otherwise. For a mosaic
//    source it is the mosaic itself (mono8/mono16).
//  - source_bits: significant bits of the source's samples (8..16) for filters whose
//    parameters are code values (blacklevel); 0 when unknown: take the working depth.
//  - histogram_out: where a statistics filter hands back a device buffer of 4 x 256 cl_uint
//    (R, G, B, luma) that the processor reads back after the chain; null: nobody asks.
struct FilterIo {
    ClContext& cl;
    cl_command_queue queue;
    cl_mem src;
    cl_mem dst;
    const FrameGeometry& g;
    std::vector<ClEvent>& events;  // append the event of every command enqueued, in order
    std::vector<ClMem>& keep;      // append every other buffer those commands use
    const FrameGeometry* dst_g = nullptr;
    cl_mem input = nullptr;
    const FrameGeometry* input_g = nullptr;
    int source_bits = 0;
    ClMem* histogram_out = nullptr;

    const FrameGeometry& dst_geometry() const { return dst_g ? *dst_g : g; }
    // source_bits, or the working depth when unknown.
    int bits() const { return source_bits > 0 ? source_bits : (is_deep(g.format) ? 16 : 8); }
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
