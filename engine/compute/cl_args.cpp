#include "compute/cl_args.hpp"

#include <fmt/format.h>

#include <string>

namespace vfx {

void cl_arg_fail(cl_int err, cl_kernel k, cl_uint index) {
    char name[128] = "?";
    if (clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof(name), name, nullptr) != CL_SUCCESS)
        name[0] = '?', name[1] = '\0';
    name[sizeof(name) - 1] = '\0';
    const std::string call = fmt::format("clSetKernelArg({}, {})", name, index);
    cl_fail(err, call.c_str(), __FILE__, __LINE__);
}

size_t kernel_max_group(cl_kernel k, cl_device_id dev) {
    size_t n = 0;
    VFX_CL(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof(n), &n, nullptr));
    return n;
}

size_t kernel_static_local(cl_kernel k, cl_device_id dev) {
    cl_ulong n = 0;
    VFX_CL(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof(n), &n, nullptr));
    return static_cast<size_t>(n);
}

std::array<size_t, 2> fit_local_2d(cl_kernel k, cl_device_id dev, size_t want_x, size_t want_y) {
    const size_t max = kernel_max_group(k, dev);
    size_t x = want_x, y = want_y;
    while (x * y > max && y > 1)
        y /= 2;
    while (x * y > max && x > 1)
        x /= 2;
    return {x, y};
}

ClEvent enqueue_2d(cl_command_queue q, cl_kernel k, size_t width, size_t height,
                   std::array<size_t, 2> local, std::span<const cl_event> wait) {
    const size_t global[2] = {(width + local[0] - 1) / local[0] * local[0],
                              (height + local[1] - 1) / local[1] * local[1]};
    ClEvent ev;
    VFX_CL(clEnqueueNDRangeKernel(q, k, 2, nullptr, global, local.data(),
                                  static_cast<cl_uint>(wait.size()),
                                  wait.empty() ? nullptr : wait.data(), ev.out()));
    return ev;
}

ClEvent enqueue_groups(cl_command_queue q, cl_kernel k, size_t groups, std::array<size_t, 2> local,
                       std::span<const cl_event> wait) {
    return enqueue_2d(q, k, groups * local[0], local[1], local, wait);
}

}  // namespace vfx
