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

// A small file the run writes besides its output (a saved preset), published with it.
struct TextOutput {
    std::string path;
    std::string text;
    const char* what = "file";  // what errors call it
};

struct OfflineOptions {
    SourceOptions source;
    std::string chain;                   // chain text (parsed before anything is opened)
    std::string chain_origin = "chain";  // FrameProcessor::set_chain_origin
    std::string output;                  // sink path, or "null"
    std::string codec;
    std::vector<std::pair<std::string, std::string>> encoder_options;
    int64_t frames = -1;  // stop after N frames
    DeviceOptions devices;
    uint32_t in_flight = 3;
    std::string report;         // JSON report path ("" = none)
    bool direct_decode = true;  // decode into pinned blocks (as PlayerOptions::direct_decode)
    // Written at the end and published with the output and the report: all or none.
    std::vector<TextOutput> text_outputs;
};

struct OfflineResult {
    int64_t frames = 0;
    double wall_s = 0;
    std::string output_description;
    std::string summary;  // per-stage timing table, in pipeline order
    nlohmann::json report;
};

// Throws vfx::Error for anything the user caused; no partial output file is left behind, and
// the output, the report and the text outputs appear together or not at all.
OfflineResult run_offline(const OfflineOptions& opts);

}  // namespace vfx
