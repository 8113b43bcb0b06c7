#pragma once
// Which OpenCL device computes and which Vulkan device renders, and which interop tier joins them.
// Plain data in, plain data out: testable without any GPU.
#include <optional>
#include <string>
#include <vector>

#include "compute/cl_context.hpp"
#include "render/vk_context.hpp"

namespace vfx {

enum class InteropTier { external, host, copy };
enum class InteropRequest { automatic, external, host, copy };

std::string_view to_string(InteropTier t);
// "auto", "external", "host", "copy"; throws vfx::Error naming the allowed values otherwise.
InteropRequest parse_interop(std::string_view text);

struct DevicePair {
    int cl = -1;  // index into the CL list
    int vk = -1;  // index into the VK list; -1 when no Vulkan device (process needs none)
    bool same_physical_device = false;  // UUIDs matched
    std::string reason;                 // one line: how the pair was chosen
};

// Prefers a GPU. Pairs the OpenCL device with the Vulkan one by UUID when both report one, else
// by type (GPU with GPU, CPU with CPU) and PCI vendor. `cl_override` is an index or a substring
// of the device name (--cl-device); `vk_override` an index (--vk-device). Throws vfx::Error for
// an override that matches nothing or when no OpenCL device exists.
DevicePair choose_devices(const std::vector<ClDeviceInfo>& cl, const std::vector<VkDeviceDesc>& vk,
                          const std::optional<std::string>& cl_override,
                          const std::optional<std::string>& vk_override);

struct TierChoice {
    InteropTier tier = InteropTier::copy;
    std::string reason;  // why this tier (and why not the better ones)
};

// The best tier both devices support, or the forced one. A forced tier the pair cannot do is a
// vfx::Error naming what is missing.
TierChoice choose_tier(const ClDeviceInfo& cl, const VkDeviceDesc& vk, bool same_physical_device,
                       InteropRequest request);

}  // namespace vfx
