#include "interop/pairing.hpp"

#include <algorithm>
#include <charconv>

#include "core/error.hpp"

namespace vfx {

std::string_view to_string(InteropTier t) {
    switch (t) {
        case InteropTier::external:
            return "external";
        case InteropTier::host:
            return "host";
        case InteropTier::copy:
            return "copy";
    }
    return "?";
}

InteropRequest parse_interop(std::string_view text) {
    if (text == "auto") return InteropRequest::automatic;
    if (text == "external") return InteropRequest::external;
    if (text == "host") return InteropRequest::host;
    if (text == "copy") return InteropRequest::copy;
    fail("--interop: '{}' is not one of auto, external, host, copy", text);
}

namespace {

bool is_gpu(const ClDeviceInfo& d) {
    return (d.type & CL_DEVICE_TYPE_GPU) != 0;
}
bool is_gpu(const VkDeviceDesc& d) {
    return d.type == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ||
           d.type == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ||
           d.type == VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU;
}

std::optional<int> parse_index(const std::string& s) {
    int v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
    return v;
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

template <typename List>
int resolve_override(const List& list, const std::string& what, const std::string& flag) {
    if (auto idx = parse_index(what)) {
        if (*idx < 0 || *idx >= static_cast<int>(list.size()))
            fail("{} {}: no such device (found {}; see 'vfx probe')", flag, what, list.size());
        return *idx;
    }
    for (size_t i = 0; i < list.size(); ++i)
        if (lower(list[i].name).find(lower(what)) != std::string::npos) return static_cast<int>(i);
    fail("{} '{}': no device name contains it (see 'vfx probe')", flag, what);
}

// Same device seen through both APIs: equal UUIDs, or (no CL UUID) same kind and vendor.
bool uuid_match(const ClDeviceInfo& c, const VkDeviceDesc& v) {
    return c.uuid && *c.uuid == v.uuid;
}
bool kind_match(const ClDeviceInfo& c, const VkDeviceDesc& v) {
    if (is_gpu(c) != is_gpu(v)) return false;
    return !is_gpu(c) || c.vendor_id == v.vendor_id;  // CPUs: any vendor (PoCL and lavapipe)
}

}  // namespace

DevicePair choose_devices(const std::vector<ClDeviceInfo>& cl, const std::vector<VkDeviceDesc>& vk,
                          const std::optional<std::string>& cl_override,
                          const std::optional<std::string>& vk_override) {
    if (cl.empty())
        fail("no OpenCL device found (install an OpenCL driver, e.g. the pocl-opencl-icd package)");
    DevicePair p;
    std::string how;
    if (vk_override) {
        if (vk.empty()) fail("--vk-device {}: no Vulkan device found", *vk_override);
        p.vk = resolve_override(vk, *vk_override, "--vk-device");
        how = "Vulkan device from --vk-device";
    } else if (!vk.empty()) {
        p.vk = static_cast<int>(std::max_element(vk.begin(), vk.end(),
                                                 [](const auto& a, const auto& b) {
                                                     return device_type_rank(a.type) <
                                                            device_type_rank(b.type);
                                                 }) -
                                vk.begin());
    }
    if (cl_override) {
        p.cl = resolve_override(cl, *cl_override, "--cl-device");
        how += how.empty() ? "OpenCL device from --cl-device" : ", OpenCL device from --cl-device";
        if (!vk_override && !vk.empty()) {  // follow the OpenCL choice on the Vulkan side
            for (size_t i = 0; i < vk.size(); ++i)
                if (uuid_match(cl[p.cl], vk[i])) p.vk = static_cast<int>(i);
        }
    } else if (p.vk >= 0) {
        const auto& v = vk[p.vk];
        auto it =
            std::find_if(cl.begin(), cl.end(), [&](const auto& c) { return uuid_match(c, v); });
        if (it == cl.end())
            it =
                std::find_if(cl.begin(), cl.end(), [&](const auto& c) { return kind_match(c, v); });
        if (it == cl.end())
            it = std::find_if(cl.begin(), cl.end(), [](const auto& c) { return is_gpu(c); });
        p.cl = static_cast<int>(it == cl.end() ? 0 : it - cl.begin());
    } else {
        auto it = std::find_if(cl.begin(), cl.end(), [](const auto& c) { return is_gpu(c); });
        p.cl = static_cast<int>(it == cl.end() ? 0 : it - cl.begin());
    }

    const auto& c = cl[p.cl];
    if (p.vk < 0) {
        p.reason = fmt::format("OpenCL {} '{}' (no Vulkan device)", c.type_name(), c.name);
        return p;
    }
    const auto& v = vk[p.vk];
    p.same_physical_device = uuid_match(c, v);
    std::string match =
        p.same_physical_device ? "paired by device UUID"
        : kind_match(c, v)
            ? (c.uuid ? "paired by type and vendor (UUIDs differ)"
                      : "paired by type and vendor (the OpenCL device reports no UUID)")
            : "not the same kind of device: only a staged copy can join them";
    p.reason = fmt::format("{}{}{}", how, how.empty() ? "" : "; ", match);
    return p;
}

TierChoice choose_tier(const ClDeviceInfo& cl, const VkDeviceDesc& vk, bool same_physical_device,
                       InteropRequest request) {
    std::vector<std::string> no_external;
    for (const char* ext :
         {"cl_khr_external_memory_opaque_fd", "cl_khr_external_semaphore_opaque_fd"})
        if (!cl.has_extension(ext)) no_external.push_back(fmt::format("OpenCL lacks {}", ext));
    if (!vk.external_memory_fd) no_external.push_back("Vulkan lacks VK_KHR_external_memory_fd");
    if (!vk.external_semaphore_fd)
        no_external.push_back("Vulkan lacks VK_KHR_external_semaphore_fd");
    if (!same_physical_device)
        no_external.push_back("the devices are not the same GPU (no UUID match)");

    std::vector<std::string> no_host;
    if (!vk.external_memory_host) no_host.push_back("Vulkan lacks VK_EXT_external_memory_host");
    if (!cl.host_unified_memory) no_host.push_back("the OpenCL device does not share host memory");

    auto join = [](const std::vector<std::string>& v) {
        std::string s;
        for (const auto& x : v)
            s += (s.empty() ? "" : ", ") + x;
        return s;
    };

    switch (request) {
        case InteropRequest::external:
            if (!no_external.empty())
                fail("--interop external is not possible here: {}", join(no_external));
            return {InteropTier::external, "forced with --interop external"};
        case InteropRequest::host:
            if (!no_host.empty()) fail("--interop host is not possible here: {}", join(no_host));
            return {InteropTier::host, "forced with --interop host"};
        case InteropRequest::copy:
            return {InteropTier::copy, "forced with --interop copy"};
        case InteropRequest::automatic:
            break;
    }
    if (no_external.empty())
        return {InteropTier::external,
                "GPU zero-copy: Vulkan-exported memory and semaphores imported into OpenCL"};
    if (no_host.empty())
        return {InteropTier::host,
                "CPU zero-copy: one host allocation used by both (no GPU tier: " +
                    join(no_external) + ")"};
    return {InteropTier::copy, "staged copy (no GPU tier: " + join(no_external) +
                                   "; no CPU tier: " + join(no_host) + ")"};
}

}  // namespace vfx
