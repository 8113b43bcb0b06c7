#pragma once
// Device discovery and choice, shared by every command: which OpenCL and Vulkan devices exist,
// which pair is used, and which interop tier joins them (and why).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "compute/cl_context.hpp"
#include "interop/pairing.hpp"
#include "render/vk_context.hpp"

namespace vfx {

struct DeviceOptions {
    std::optional<std::string> cl_device;  // --cl-device: index or name substring
    std::optional<std::string> vk_device;  // --vk-device: index or name substring
    InteropRequest interop = InteropRequest::automatic;
    bool validation = false;  // Vulkan validation layer (debug builds and tests turn it on)
};

struct DeviceChoice {
    std::vector<ClDeviceInfo> cl;
    std::vector<VkDeviceDesc> vk;
    DevicePair pair;
    std::optional<TierChoice> tier;  // empty when no Vulkan device (or tier_error says why)
    std::string tier_error;          // a forced tier that is impossible here

    const ClDeviceInfo& cl_device() const { return cl.at(static_cast<size_t>(pair.cl)); }
    const VkDeviceDesc* vk_device() const {
        return pair.vk < 0 ? nullptr : &vk.at(static_cast<size_t>(pair.vk));
    }
};

// Lists both APIs' devices and chooses. Throws vfx::Error for impossible overrides or when
// there is no OpenCL device; a forced tier that is impossible is kept in tier_error so that
// `vfx probe` can show it (other commands call require_tier()).
DeviceChoice choose(const DeviceOptions& opts, bool want_vulkan = true);

// The tier, or a vfx::Error with the reason when there is none.
const TierChoice& require_tier(const DeviceChoice& c);

std::string describe(const DeviceChoice& c);  // the text `vfx probe` prints
nlohmann::json to_json(const DeviceChoice& c);
std::string short_name(const ClDeviceInfo& d);  // "OpenCL: NVIDIA H100 (GPU, NVIDIA CUDA)"
std::string short_name(const VkDeviceDesc& d);  // "Vulkan: llvmpipe (CPU)"

}  // namespace vfx
