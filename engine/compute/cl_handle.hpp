#pragma once
// RAII ownership of OpenCL objects: ClHandle<T> holds one reference; copies retain, the
// destructor releases. Buffers the GPU may still be using are kept alive by whoever enqueued
// the work until that work's event has completed (see FrameProcessor and the bridge).
#include <utility>

#include "compute/cl_check.hpp"

namespace vfx {

template <typename T>
struct ClTraits;

#define VFX_CL_TRAITS(T, retain_fn, release_fn)              \
    template <>                                              \
    struct ClTraits<T> {                                     \
        static cl_int retain(T h) { return retain_fn(h); }   \
        static cl_int release(T h) { return release_fn(h); } \
    }
VFX_CL_TRAITS(cl_context, clRetainContext, clReleaseContext);
VFX_CL_TRAITS(cl_command_queue, clRetainCommandQueue, clReleaseCommandQueue);
VFX_CL_TRAITS(cl_mem, clRetainMemObject, clReleaseMemObject);
VFX_CL_TRAITS(cl_program, clRetainProgram, clReleaseProgram);
VFX_CL_TRAITS(cl_kernel, clRetainKernel, clReleaseKernel);
VFX_CL_TRAITS(cl_event, clRetainEvent, clReleaseEvent);
#undef VFX_CL_TRAITS

template <typename T>
class ClHandle {
public:
    ClHandle() = default;
    // Takes ownership of one existing reference (what clCreate* returns).
    explicit ClHandle(T h) : h_(h) {}
    ClHandle(const ClHandle& o) : h_(o.h_) {
        if (h_) ClTraits<T>::retain(h_);
    }
    ClHandle(ClHandle&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
    ClHandle& operator=(ClHandle o) noexcept {
        std::swap(h_, o.h_);
        return *this;
    }
    ~ClHandle() { reset(); }

    void reset() {
        if (h_) ClTraits<T>::release(h_);
        h_ = nullptr;
    }
    T get() const { return h_; }
    T* out() {  // for APIs that write a new handle (e.g. the event argument of clEnqueue*)
        reset();
        return &h_;
    }
    explicit operator bool() const { return h_ != nullptr; }

private:
    T h_ = nullptr;
};

using ClContextHandle = ClHandle<cl_context>;
using ClQueue = ClHandle<cl_command_queue>;
using ClMem = ClHandle<cl_mem>;
using ClProgram = ClHandle<cl_program>;
using ClKernel = ClHandle<cl_kernel>;
using ClEvent = ClHandle<cl_event>;

}  // namespace vfx
