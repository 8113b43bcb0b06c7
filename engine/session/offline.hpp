#pragma once
// `vfx process`: decode -> OpenCL (upload, convert, chain) -> read-back -> sink, as fast as the
// devices go. No Vulkan: the frames never need to be displayed.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "decode/source.hpp"
#include "encode/sink.hpp"
#include "session/devices.hpp"

namespace vfx {

struct OfflineOptions {
    SourceOptions source;
    std::string chain;   // chain text (parsed before anything is opened)
    std::string output;  // sink path, or "null"
    std::string codec;
    std::vector<std::pair<std::string, std::string>> encoder_options;
    int64_t frames = -1;  // stop after N frames
    DeviceOptions devices;
    uint32_t in_flight = 3;
    std::string report;         // JSON report path ("" = none)
    bool direct_decode = true;  // decode into pinned blocks (as PlayerOptions::direct_decode)
};

struct OfflineResult {
    int64_t frames = 0;
    double wall_s = 0;
    std::string output_description;
    std::string summary;  // per-stage timing table, in pipeline order
    nlohmann::json report;
};

// Throws vfx::Error for anything the user caused; no partial output file is left behind.
OfflineResult run_offline(const OfflineOptions& opts);

}  // namespace vfx
