#pragma once
// Small helpers for setting kernel arguments and launching 2-D kernels.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include "compute/cl_handle.hpp"

namespace vfx {

// A __local kernel argument of `bytes` bytes.
struct LocalMem {
    size_t bytes = 0;
};

[[noreturn]] void cl_arg_fail(cl_int err, cl_kernel k, cl_uint index);

template <typename T>
void set_arg(cl_kernel k, cl_uint index, const T& v) {
    static_assert(!std::is_same_v<T, ClMem>, "pass ClMem::get()");
    if (cl_int err = clSetKernelArg(k, index, sizeof(T), &v); err != CL_SUCCESS)
        cl_arg_fail(err, k, index);
}
inline void set_arg(cl_kernel k, cl_uint index, LocalMem m) {
    if (cl_int err = clSetKernelArg(k, index, m.bytes, nullptr); err != CL_SUCCESS)
        cl_arg_fail(err, k, index);
}

// Sets arguments 0, 1, 2 ... in order. Argument types must match the kernel's exactly
// (cl_int for int, cl_uint for uint, cl_float for float, cl_mem for buffers).
template <typename... Args>
void set_args(cl_kernel k, const Args&... args) {
    cl_uint i = 0;
    (set_arg(k, i++, args), ...);
}

// The largest work-group size `k` may be launched with on `dev`.
size_t kernel_max_group(cl_kernel k, cl_device_id dev);
// Local memory `k` already uses statically (bytes).
size_t kernel_static_local(cl_kernel k, cl_device_id dev);

// A 2-D local size of at most (want_x, want_y) that `k` accepts on `dev`: halves y, then x.
std::array<size_t, 2> fit_local_2d(cl_kernel k, cl_device_id dev, size_t want_x, size_t want_y);

// Enqueues `k` over width x height work-items (rounded up to whole work-groups of `local`),
// after the events in `wait`; returns the command's event.
ClEvent enqueue_2d(cl_command_queue q, cl_kernel k, size_t width, size_t height,
                   std::array<size_t, 2> local, std::span<const cl_event> wait = {});

// Enqueues `k` as a fixed grid of `groups` work-groups of `local` (side by side along x), for
// kernels that loop over the frame themselves (histogram.cl); returns the command's event.
ClEvent enqueue_groups(cl_command_queue q, cl_kernel k, size_t groups, std::array<size_t, 2> local,
                       std::span<const cl_event> wait = {});

// How many work-groups such a grid gets: 8 per compute unit (enough to hide latency, few
// enough that each group's per-launch set-up and merge stays small), at most one per frame
// row (histogram.cl gives each group whole rows), at least 1.
inline size_t histogram_groups(uint32_t compute_units, uint32_t height) {
    const size_t want = 8 * static_cast<size_t>(compute_units > 0 ? compute_units : 1);
    return want < height ? want : (height > 0 ? height : 1);
}

}  // namespace vfx
