#pragma once
// The one OpenCL check macro. On failure it logs the call's text, the decoded error name and
// file:line, then throws vfx::GpuError.
//   VFX_CL(clEnqueueNDRangeKernel(q, k, ...));           // calls that return cl_int
//   cl_int err; cl_mem m = clCreateBuffer(..., &err); VFX_CL_ERR(err, "clCreateBuffer");
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

namespace vfx {

const char* cl_error_name(cl_int err);
[[noreturn]] void cl_fail(cl_int err, const char* call, const char* file, int line);

inline void cl_check(cl_int err, const char* call, const char* file, int line) {
    if (err != CL_SUCCESS) cl_fail(err, call, file, line);
}

}  // namespace vfx

#define VFX_CL(call) ::vfx::cl_check((call), #call, __FILE__, __LINE__)
#define VFX_CL_ERR(err, what) ::vfx::cl_check((err), (what), __FILE__, __LINE__)
