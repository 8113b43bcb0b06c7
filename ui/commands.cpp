// The `probe` and `process` commands. `play` lives in play.cpp.
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "compute/preset.hpp"
#include "core/files.hpp"
#include "core/log.hpp"
#include "options.hpp"
#include "session/devices.hpp"
#include "session/offline.hpp"
#include "session/report.hpp"

namespace vfx::ui {

int run_probe(const ProbeOptions& o) {
    DeviceChoice c = choose(o.devices);
    if (o.json)
        std::printf("%s\n", to_json(c).dump(2).c_str());
    else
        std::printf("%s", describe(c).c_str());
    return 0;
}

int run_process(const ProcessOptions& o) {
    // An output over the input, or two outputs on one file, would destroy one of them (a
    // numbered output or input names each file of its sequence).
    check_distinct_files(files_of_run(o.source, {{"--output", o.output == "null" ? "" : o.output},
                                                 {"--report", o.report},
                                                 {"--save-preset", o.save_preset}}));
    // Checked before the run; written after it, with the output and the report (all or none),
    // so a failed run leaves no preset behind.
    Chain to_save;
    if (!o.save_preset.empty()) {
        check_can_create(o.save_preset, "preset");
        to_save = parse_chain(o.chain);
    }
    OfflineOptions off;
    off.source = o.source;
    off.chain = o.chain;
    off.chain_origin = o.chain_origin;
    off.output = o.output;
    off.codec = o.codec;
    off.encoder_options = o.encoder_options;
    off.frames = o.frames;
    off.devices = o.devices;
    off.report = o.report;
    off.direct_decode = o.direct_decode;
    if (!o.save_preset.empty())
        off.text_outputs.push_back(
            {o.save_preset,
             preset_text(make_preset(to_save, std::filesystem::path(o.save_preset).stem().string(),
                                     "saved by vfx process from: " + format_chain(to_save))),
             "preset"});
    OfflineResult r = run_offline(off);
    std::printf("%lld frames in %.2f s (%.1f fps) -> %s\n", static_cast<long long>(r.frames),
                r.wall_s, r.wall_s > 0 ? static_cast<double>(r.frames) / r.wall_s : 0.0,
                r.output_description.c_str());
    std::printf("%s", r.summary.c_str());
    if (!o.save_preset.empty()) spdlog::info("preset saved: {}", o.save_preset);
    return 0;
}

}  // namespace vfx::ui
