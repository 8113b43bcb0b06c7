#pragma once
// The JSON report of a run (play or process): input, devices, interop tier, chain, per-frame
// stage timings and their summary. Written atomically (temporary file, then rename).
#include <string>

#include <nlohmann/json.hpp>

#include "compute/processor.hpp"
#include "core/files.hpp"
#include "decode/source.hpp"
#include "session/devices.hpp"
#include "timing/timing.hpp"

namespace vfx {

struct RunInfo {
    std::string command;  // "play" or "process"
    std::string chain;    // the parsed chain printed back
    std::string interop;  // tier name, or "none" (process needs no Vulkan)
    std::string interop_reason;
    int64_t frames = 0;
    double wall_s = 0;
    SourceStats source;
    uint64_t staged_copies = 0;
    uint32_t validation_errors = 0;
};

nlohmann::json make_report(const RunInfo& run, const StreamInfo& stream, const DeviceChoice& dev,
                           const TimingLog& timing);

// Writes `j` to `path` atomically (core/files.hpp); throws vfx::Error naming `what` and the
// path when it cannot. Check the path with check_can_create before the work that fills `j`.
void write_json_file(const std::string& path, const nlohmann::json& j, const char* what = "report");
// The same file unpublished, to be published with the run's other outputs (publish_all).
TempFile json_file(const std::string& path, const nlohmann::json& j, const char* what = "report");

// {"r": [256 counts], "g": [...], "b": [...], "luma": [...]} (a chain's histogram filter).
nlohmann::json histogram_json(const Histogram& h);

// A short human table: one line per stage with mean/p50/p95/p99 in ms.
std::string summary_table(const TimingLog& timing);

}  // namespace vfx
