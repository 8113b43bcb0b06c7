#include "session/devices.hpp"

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace vfx {

DeviceChoice choose(const DeviceOptions& opts, bool want_vulkan) {
    DeviceChoice c;
    c.cl = list_cl_devices();
    if (want_vulkan) c.vk = list_vk_devices();
    c.pair =
        choose_devices(c.cl, c.vk, opts.cl_device, want_vulkan ? opts.vk_device : std::nullopt);
    if (const auto* vk = c.vk_device()) {
        try {
            c.tier = choose_tier(c.cl_device(), *vk, c.pair.same_physical_device, opts.interop);
        } catch (const Error& e) {
            c.tier_error = e.what();
        }
    }
    return c;
}

const TierChoice& require_tier(const DeviceChoice& c) {
    if (!c.tier_error.empty()) throw Error(c.tier_error);
    if (!c.tier)
        throw Error("no Vulkan device found (install a Vulkan driver, e.g. mesa-vulkan-drivers)");
    return *c.tier;
}

namespace {
std::string uuid_text(const Uuid& u) {
    std::string s;
    for (size_t i = 0; i < u.size(); ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
        s += fmt::format("{:02x}", u[i]);
    }
    return s;
}
}  // namespace

std::string short_name(const ClDeviceInfo& d) {
    return fmt::format("OpenCL: {} ({}, {})", d.name, d.type_name(), d.platform_name);
}

std::string short_name(const VkDeviceDesc& d) {
    return fmt::format("Vulkan: {} ({})", d.name, d.type_name());
}

std::string describe(const DeviceChoice& c) {
    std::string out = "OpenCL devices:\n";
    if (c.cl.empty()) out += "  (none)\n";
    for (const auto& d : c.cl) {
        out += fmt::format("  {}{} {} — {} {}, {}, driver {}, UUID {}\n",
                           d.index == c.pair.cl ? "*" : " ", d.index, d.name, d.platform_name,
                           d.type_name(), d.version, d.driver_version,
                           d.uuid ? uuid_text(*d.uuid) : "none");
        const char* exts[] = {"cl_khr_device_uuid", "cl_khr_external_memory_opaque_fd",
                              "cl_khr_external_semaphore_opaque_fd"};
        std::string have;
        for (const char* e : exts)
            if (d.has_extension(e)) have += std::string(have.empty() ? "" : " ") + e;
        out += fmt::format("      interop extensions: {}; host-unified memory: {}\n",
                           have.empty() ? "none" : have, d.host_unified_memory ? "yes" : "no");
    }
    out += "Vulkan devices:\n";
    if (c.vk.empty()) out += "  (none)\n";
    for (const auto& d : c.vk) {
        out += fmt::format("  {}{} {} — {}, {}, UUID {}\n",
                           static_cast<int>(d.index) == c.pair.vk ? "*" : " ", d.index, d.name,
                           d.type_name(), d.driver, uuid_text(d.uuid));
        out += fmt::format(
            "      external memory fd: {}, external semaphore fd: {}, external "
            "memory host: {}\n",
            d.external_memory_fd ? "yes" : "no", d.external_semaphore_fd ? "yes" : "no",
            d.external_memory_host ? "yes" : "no");
    }
    out += fmt::format("Pair: {}{}\n      {}\n", short_name(c.cl_device()),
                       c.vk_device() ? " + " + short_name(*c.vk_device()) : "", c.pair.reason);
    if (c.tier)
        out += fmt::format("Interop tier: {} — {}\n", to_string(c.tier->tier), c.tier->reason);
    else if (!c.tier_error.empty())
        out += fmt::format("Interop tier: none — {}\n", c.tier_error);
    else
        out += "Interop tier: none — no Vulkan device\n";
    return out;
}

nlohmann::json to_json(const DeviceChoice& c) {
    nlohmann::json j;
    j["opencl"] = nlohmann::json::array();
    for (const auto& d : c.cl)
        j["opencl"].push_back({{"index", d.index},
                               {"name", d.name},
                               {"platform", d.platform_name},
                               {"type", d.type_name()},
                               {"version", d.version},
                               {"driver", d.driver_version},
                               {"uuid", d.uuid ? uuid_text(*d.uuid) : ""}});
    j["vulkan"] = nlohmann::json::array();
    for (const auto& d : c.vk)
        j["vulkan"].push_back({{"index", d.index},
                               {"name", d.name},
                               {"type", d.type_name()},
                               {"driver", d.driver},
                               {"uuid", uuid_text(d.uuid)}});
    j["pair"] = {{"opencl", c.pair.cl}, {"vulkan", c.pair.vk}, {"reason", c.pair.reason}};
    if (c.tier)
        j["interop"] = {{"tier", std::string(to_string(c.tier->tier))}, {"reason", c.tier->reason}};
    else
        j["interop"] = {{"tier", nullptr}, {"reason", c.tier_error}};
    return j;
}

}  // namespace vfx
