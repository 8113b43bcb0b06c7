#include "session/report.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/files.hpp"

namespace vfx {

namespace fs = std::filesystem;

nlohmann::json histogram_json(const Histogram& h) {
    nlohmann::json j;
    const char* names[] = {"r", "g", "b", "luma"};
    for (int c = 0; c < 4; ++c) {
        nlohmann::json bins = nlohmann::json::array();
        for (int i = 0; i < 256; ++i)
            bins.push_back(h.at(c, i));
        j[names[c]] = std::move(bins);
    }
    return j;
}

nlohmann::json make_report(const RunInfo& run, const StreamInfo& stream, const DeviceChoice& dev,
                           const TimingLog& timing) {
    nlohmann::json j;
    j["command"] = run.command;
    j["version"] = VFX_VERSION;
    j["input"] = {{"url", stream.url},     {"demuxer", stream.demuxer},
                  {"codec", stream.codec}, {"pixel_format", stream.pixel_format},
                  {"width", stream.width}, {"height", stream.height},
                  {"fps", stream.fps},     {"duration_s", stream.duration_s},
                  {"live", stream.live}};
    j["chain"] = run.chain;
    j["devices"] = to_json(dev);
    j["interop"] = {{"tier", run.interop},
                    {"reason", run.interop_reason},
                    {"staged_copies", run.staged_copies}};
    j["frames"] = run.frames;
    j["wall_s"] = run.wall_s;
    j["fps"] = run.wall_s > 0 ? static_cast<double>(run.frames) / run.wall_s : 0.0;
    j["source_stats"] = {{"frames_decoded", run.source.frames_decoded},
                         {"packets_corrupt", run.source.packets_corrupt},
                         {"frames_concealed", run.source.frames_concealed},
                         {"frames_fallback", run.source.frames_fallback},
                         {"frames_direct", run.source.frames_direct}};
    j["direct_decode"] = stream.direct_decode;
    j["validation_errors"] = run.validation_errors;
    auto t = timing.to_json();
    j["timing"] = {{"summary_ms", t["summary"]}, {"frames", t["frames"]}};
    return j;
}

void write_json_file(const std::string& path, const nlohmann::json& j, const char* what) {
    check_can_create(path, what);
    json_file(path, j, what).publish();
}

TempFile json_file(const std::string& path, const nlohmann::json& j, const char* what) {
    return write_text_file(path, j.dump(2) + "\n", what);
}

std::string summary_table(const TimingLog& timing) {
    std::string out = fmt::format("{:<14} {:>9} {:>9} {:>9} {:>9}   (ms over {} frames)\n", "stage",
                                  "mean", "p50", "p95", "p99", timing.records().size());
    for (const auto& name : timing.stage_names()) {
        Summary s = timing.summary(name);
        out += fmt::format("{:<14} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f}\n", name, s.mean, s.p50,
                           s.p95, s.p99);
    }
    return out;
}

}  // namespace vfx
