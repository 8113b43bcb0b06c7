#pragma once
// The one Vulkan check macro: logs the call, the decoded VkResult and file:line, then throws
// vfx::GpuError.   VFX_VK(vkCreateBuffer(dev, &info, nullptr, &buf));
#include <vulkan/vulkan.h>

namespace vfx {

const char* vk_result_name(VkResult r);
[[noreturn]] void vk_fail(VkResult r, const char* call, const char* file, int line);

inline void vk_check(VkResult r, const char* call, const char* file, int line) {
    if (r != VK_SUCCESS) vk_fail(r, call, file, line);
}

}  // namespace vfx

#define VFX_VK(call) ::vfx::vk_check((call), #call, __FILE__, __LINE__)
