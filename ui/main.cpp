// vfx: the command line. Parses, dispatches to a command, and turns every user-caused error
// into one line on stderr and exit status 1.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <limits>
#include <sstream>
#include <string_view>

#include "compute/preset.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/log.hpp"
#include "options.hpp"

namespace vfx::ui {

std::pair<std::string, std::string> split_key_value(const std::string& kv, const char* flag) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) fail("{} '{}': expected KEY=VALUE", flag, kv);
    return {kv.substr(0, eq), kv.substr(eq + 1)};
}

std::pair<uint32_t, uint32_t> parse_size(const std::string& s, const char* flag) {
    // Each side a plain decimal count (from_chars: no sign, no wrap-around past 2^32).
    auto side = [](std::string_view t, uint32_t& v) {
        const auto [at, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
        return ec == std::errc() && at == t.data() + t.size() && v >= 1 && v <= 16384;
    };
    const auto x = s.find('x');
    uint32_t w = 0, h = 0;
    if (x == std::string::npos || !side(std::string_view(s).substr(0, x), w) ||
        !side(std::string_view(s).substr(x + 1), h))
        fail("{} '{}': expected WxH, e.g. 3840x2160 (1 to 16384 each)", flag, s);
    return {w, h};
}

void apply_preset(std::string& chain, std::string& origin, bool chain_given,
                  const std::string& preset) {
    if (preset.empty()) return;
    if (chain_given) {
        spdlog::warn("--chain given: ignoring preset '{}'", preset);
        return;
    }
    const Preset p = read_preset(preset);
    chain = format_chain(p.chain());
    origin = fmt::format("preset '{}'", preset);
    spdlog::info("preset '{}'{}: {}", preset, p.name.empty() ? "" : " (" + p.name + ")",
                 chain.empty() ? "(no enabled stage)" : chain);
}

std::string default_input() {
    namespace fs = std::filesystem;
    // Next to the program's source tree (build tree use), or ../share/vfx next to the binary.
    for (fs::path p : {fs::path(VFX_ASSETS_DIR) / "sample.mp4",
                       fs::read_symlink("/proc/self/exe").parent_path() / "../share/vfx/sample.mp4",
                       fs::read_symlink("/proc/self/exe").parent_path() / "assets/sample.mp4"}) {
        std::error_code ec;
        if (fs::exists(p, ec)) return p.lexically_normal().string();
    }
    return (fs::path(VFX_ASSETS_DIR) / "sample.mp4").string();
}

namespace {

// One input name as a file on disk, or "" (see files_of_run).
std::string input_file(const std::string& input) {
    const std::string p = local_file(input);
    std::error_code ec;
    if (std::filesystem::is_regular_file(p, ec)) return p;
    // An image sequence (in_%04d.png) names files too; a URL or a source with a prefix
    // (lavfi:, v4l2:) does not.
    const size_t colon = p.find(':');
    if (find_number_pattern(std::filesystem::path(p).filename().string()) &&
        (colon == std::string::npos || colon > p.find('/')))
        return p;
    return {};
}

}  // namespace

std::vector<std::pair<const char*, std::string>> files_of_run(
    const SourceOptions& s, std::vector<std::pair<const char*, std::string>> outputs) {
    std::vector<std::pair<const char*, std::string>> files;
    const std::string_view concat = "concat:";
    const bool glob_pattern = std::ranges::any_of(s.options, [](const auto& kv) {
        return kv.first == "pattern_type" && kv.second == "glob";
    });
    if (glob_pattern) {
        // The image2 demuxer's glob (-pattern_type glob): every file it matches now, as FFmpeg
        // expands it (glob(3)).
        glob_t g{};
        if (::glob(local_file(s.input).c_str(), GLOB_BRACE, nullptr, &g) == 0)
            for (size_t i = 0; i < g.gl_pathc; ++i)
                files.emplace_back("the input", g.gl_pathv[i]);
        globfree(&g);
    } else if (s.input.starts_with(concat)) {
        // FFmpeg's concat protocol: files joined by '|'.
        std::string_view rest = std::string_view(s.input).substr(concat.size());
        for (size_t bar; !rest.empty();
             rest.remove_prefix(bar == rest.npos ? rest.size() : bar + 1)) {
            bar = rest.find('|');
            files.emplace_back("the input", input_file(std::string(rest.substr(0, bar))));
        }
    } else {
        files.emplace_back("the input", input_file(s.input));
    }
    files.insert(files.end(), outputs.begin(), outputs.end());
    return files;
}

namespace {

// A whole number from lo to hi, with a message that says so (CLI11's PositiveNumber takes
// fractions and prints its range up to 1.8e308).
CLI::Validator whole_number(int64_t lo, int64_t hi) {
    return CLI::Validator(
        [lo, hi](std::string& s) -> std::string {
            int64_t v = 0;
            const char* end = s.data() + s.size();
            const auto [at, ec] = std::from_chars(s.data(), end, v);
            if (at == end && ec == std::errc() && v >= lo && v <= hi) return {};
            const std::string range = hi == std::numeric_limits<int64_t>::max()
                                          ? fmt::format("of at least {}", lo)
                                          : fmt::format("from {} to {}", lo, hi);
            return fmt::format("expected a whole number {}, not '{}'", range, s);
        },
        hi == std::numeric_limits<int64_t>::max() ? fmt::format("at least {}", lo)
                                                  : fmt::format("in [{} - {}]", lo, hi));
}

// A finite number from lo to hi (CLI11's Range lets NaN through).
CLI::Validator number_in(double lo, double hi, const char* shown) {
    return CLI::Validator(
        [lo, hi, shown](std::string& s) -> std::string {
            double v = 0;
            const char* end = s.data() + s.size();
            const auto [at, ec] = std::from_chars(s.data(), end, v);
            if (ec == std::errc() && at == end && std::isfinite(v) && v >= lo && v <= hi) return {};
            return fmt::format("expected a number from {}, not '{}'", shown, s);
        },
        fmt::format("in [{}]", shown));
}

// Decoder threads: FFmpeg warns above 16 and gains nothing beyond a few dozen; each thread
// holds frames, so an unbounded count is a way to exhaust memory.
constexpr int64_t kMaxDecodeThreads = 64;

struct Common {
    std::string log_level = "info";
};

// Help that lists an option which is a positional too (`input`, also `--input`) once, among the
// positionals and under both names, where CLI11 lists it in both sections.
class HelpFormatter final : public CLI::Formatter {
public:
    std::string make_option(const CLI::Option* opt, bool is_positional) const override {
        if (!is_positional && opt->get_positional()) return {};
        if (!is_positional || !opt->nonpositional())
            return CLI::Formatter::make_option(opt, is_positional);
        std::stringstream out;
        CLI::detail::format_help(
            out,
            opt->get_name(true, false) + ", " + opt->get_name(false, true) + make_option_opts(opt),
            make_option_desc(opt), column_width_);
        return out.str();
    }
};

void add_input_options(CLI::App* cmd, SourceOptions& s, std::vector<std::string>& opts) {
    cmd->add_option("--input-format", s.format,
                    "Demuxer to use (e.g. rawvideo, v4l2, lavfi, image2); default: probe");
    cmd->add_option("--input-opt", opts,
                    "Demuxer option KEY=VALUE, repeatable (e.g. video_size=1920x1080)")
        ->allow_extra_args(false);
}

void add_direct_decode_option(CLI::App* cmd, bool& direct) {
    cmd->add_flag_function(
        "--no-direct-decode", [&direct](std::int64_t) { direct = false; },
        "Decode into FFmpeg's own buffers and copy them for upload, instead of straight into "
        "pinned upload memory (for comparison)");
}

void add_device_options(CLI::App* cmd, DeviceOptions& d, std::string& interop, bool& validation) {
    cmd->add_option_function<std::string>(
        "--cl-device", [&d](const std::string& v) { d.cl_device = v; },
        "OpenCL device: index from 'vfx probe' or part of its name");
    cmd->add_option_function<std::string>(
        "--vk-device", [&d](const std::string& v) { d.vk_device = v; },
        "Vulkan device: index from 'vfx probe' or part of its name");
    cmd->add_option("--interop", interop, "How frames cross from OpenCL to Vulkan")
        ->check(CLI::IsMember({"auto", "external", "host", "copy"}))
        ->default_val("auto");
    cmd->add_flag("--validation", validation, "Enable the Vulkan validation layer");
}

}  // namespace

int main_impl(int argc, char** argv) {
    CLI::App app{"vfx — real-time video effects: FFmpeg decode, OpenCL filters, Vulkan display"};
    app.formatter(std::make_shared<HelpFormatter>());  // before the commands: they copy it
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("vfx ") + VFX_VERSION);
    Common common;
    app.add_option("--log-level", common.log_level,
                   "trace, debug, info, warn, error, critical or off")
        ->default_val("info");
    // Options common to every command may come after the command name too.
    auto common_opts = [&](CLI::App* cmd) {
        cmd->add_option("--log-level", common.log_level,
                        "trace, debug, info, warn, error, critical or off");
    };

    // --- play ---
    PlayOptions play;
    std::vector<std::string> play_inopts;
    std::string play_interop = "auto", vsync = "on";
    bool play_validation = false;
    auto* p = app.add_subcommand("play", "Play an input through a chain, in a window or headless");
    common_opts(p);
    p->add_option("--input,input", play.source.input,
                  "Input file or lavfi:GRAPH / v4l2:/dev/videoN (default: the bundled sample)");
    add_input_options(p, play.source, play_inopts);
    p->add_option("--chain", play.chain,
                  "Filter chain, e.g. gaussian=sigma=1.5,unsharp=sigma=1:amount=0.5");
    p->add_option("--preset", play.preset,
                  "Preset file (JSON, e.g. assets/presets/denoise.json); --chain wins over it");
    p->add_flag("--headless", play.headless,
                "Render offscreen, no window (default when there is no display)");
    p->add_flag("--realtime", play.realtime,
                "Headless: pace frames by their timestamps (the same as --clock realtime)");
    p->add_option("--clock", play.clock,
                  "realtime: pace by timestamps (default in a window); fast: as fast as possible "
                  "(default headless; for profiling)")
        ->check(CLI::IsMember({"realtime", "fast"}));
    p->add_option("--speed", play.speed, "Playback speed on the real-time clock (1/16 to 16)")
        ->check(number_in(1.0 / 16, 16.0, "1/16 to 16"));
    p->add_flag("--loop", play.loop, "Restart at the end of the input (files)");
    p->add_option("--decode-threads", play.source.threads,
                  "Decoder threads, 0 to 64 (default 0: as many as cores)")
        ->check(whole_number(0, kMaxDecodeThreads));
    p->add_option("--screenshot-dir", play.screenshot_dir,
                  "Window: folder the S key writes vfx-shot-NNNN.png into (default: .)");
    p->add_option("--frames", play.frames, "Stop after N frames")
        ->check(whole_number(1, std::numeric_limits<int64_t>::max()));
    p->add_option("--report", play.report,
                  "Write a JSON report (per-frame stage timings, summary, devices, tier)");
    p->add_option("--vsync", vsync, "Window presentation: on (FIFO) or off")
        ->check(CLI::IsMember({"on", "off"}));
    p->add_option("--frames-in-flight", play.frames_in_flight,
                  "Frames in flight between OpenCL and Vulkan")
        ->check(whole_number(2, 8));
    p->add_option("--screenshot", play.screenshot, "Headless: save the last rendered frame as PNG");
    std::string headless_size;
    p->add_option("--headless-size", headless_size,
                  "Headless: the offscreen target's size WxH (default 1280x720)");
    p->add_option("--video-pass", play.video_pass,
                  "How the video is drawn: compute (a compute shader), fragment (a full-screen "
                  "triangle) or auto (both measured on the first frames of each size, the "
                  "faster kept)")
        ->check(CLI::IsMember({"auto", "compute", "fragment"}));
    p->add_option("--kernels-dir", play.kernels_dir,
                  "Kernel hot reload: a .cl file in DIR overrides the embedded one; DIR is "
                  "watched and changed kernels are rebuilt in the background");
    add_direct_decode_option(p, play.direct_decode);
    add_device_options(p, play.devices, play_interop, play_validation);

    // --- process ---
    ProcessOptions proc;
    std::vector<std::string> proc_inopts, proc_encopts;
    std::string proc_interop = "auto";
    bool proc_validation = false;
    auto* pr =
        app.add_subcommand("process", "Run a chain over an input offline, as fast as possible");
    common_opts(pr);
    pr->add_option("--input,input", proc.source.input,
                   "Input file or lavfi:GRAPH / v4l2:/dev/videoN")
        ->required();
    add_input_options(pr, proc.source, proc_inopts);
    pr->add_option("--output,-o", proc.output,
                   "Output: x.png (one frame), x_%04d.png (every frame), x.mp4/x.mkv/x.mov "
                   "(encode), null (discard)")
        ->required();
    pr->add_option("--chain", proc.chain, "Filter chain");
    pr->add_option("--preset", proc.preset,
                   "Preset file (JSON, e.g. assets/presets/denoise.json); --chain wins over it");
    pr->add_option("--save-preset", proc.save_preset,
                   "After the run, write the chain that ran as a preset file (JSON)");
    pr->add_option("--frames", proc.frames, "Stop after N frames")
        ->check(whole_number(1, std::numeric_limits<int64_t>::max()));
    pr->add_option("--report", proc.report, "Write a JSON report");
    pr->add_option("--codec", proc.codec, "Encoder for video outputs (default libx264)");
    pr->add_option("--encoder-opt", proc_encopts,
                   "Encoder option KEY=VALUE, repeatable (e.g. crf=18)");
    add_direct_decode_option(pr, proc.direct_decode);
    add_device_options(pr, proc.devices, proc_interop, proc_validation);

    // --- probe ---
    ProbeOptions probe;
    std::string probe_interop = "auto";
    bool probe_validation = false;
    auto* pb = app.add_subcommand(
        "probe", "List OpenCL and Vulkan devices, the pair chosen and the interop tier");
    common_opts(pb);
    pb->add_flag("--json", probe.json, "Print JSON");
    add_device_options(pb, probe.devices, probe_interop, probe_validation);

    // --- filters ---
    FiltersOptions filters;
    auto* fl = app.add_subcommand("filters", "List every filter and its parameters");
    common_opts(fl);
    fl->add_flag("--json", filters.json,
                 "Print JSON: type, default, min, max, allowed values, help");

    // --- bench ---
    BenchCliOptions bench;
    auto* bn = app.add_subcommand(
        "bench", "Kernel times, bandwidth and ratio to the device's copy bandwidth");
    common_opts(bn);
    bn->add_option("--size", bench.sizes,
                   "Frame size WxH, repeatable (default 1920x1080 3840x2160)")
        ->allow_extra_args(false);
    bn->add_option("--filters", bench.filters,
                   "Comma-separated filter names (also convert, fused, chain), or all (the "
                   "default)");
    bn->add_option("--json", bench.json, "Write the results as JSON to FILE");
    bn->add_option("--decode-threads", bench.decode_threads,
                   "With --decode: decoder threads, 0 to 64 (default 0: as many as cores)")
        ->check(whole_number(0, kMaxDecodeThreads));
    bn->add_option("--decode", bench.decode,
                   "Instead: decode CLIP as fast as possible and report the decode-only frame "
                   "rate (what headless playback is compared with)");
    add_direct_decode_option(bn, bench.direct_decode);
    bn->add_flag("--retune", bench.retune,
                 "Measure every auto-tuned kernel again and rewrite the tuning cache");
    bn->add_flag("--cache-resident", bench.cache_resident,
                 "Run every case on one buffer set, so frames that fit the GPU's L2 are read "
                 "from it: each kernel's cost without DRAM (not comparable with the default "
                 "figures; pick a --size whose frames fit, e.g. 3840x1080 on an H100)");
    bn->add_option("--runs", bench.runs, "Timed runs per case (default 100)")
        ->check(whole_number(1, 100000));
    bn->add_option("--warmup", bench.warmup, "Untimed runs first (default 10)")
        ->check(whole_number(0, 100000));
    bn->add_option_function<std::string>(
        "--cl-device", [&bench](const std::string& v) { bench.cl_device = v; },
        "OpenCL device: index from 'vfx probe' or part of its name");

    // An empty value would be read as "not given" and silently ignored (--report "").
    const CLI::Validator given(
        [](std::string& s) { return s.empty() ? std::string("expected a value, not ''") : ""; },
        "");
    for (CLI::App* cmd : {p, pr, bn, pb})
        for (CLI::Option* o : cmd->get_options())
            if (o->get_type_size() != 0 && o->get_name() != "--input-opt" &&
                o->get_name() != "--encoder-opt" && o->get_name() != "--chain")
                o->check(given);

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);
        // CLI11 checks counts before it looks at words no option took, so an option of another
        // command (`process --decode-threads 1`) reads as "--input ... received 2": name the
        // word it did not take first, an option or a word no positional took (`process a.mp4
        // b.mp4`, a value without its option).
        for (CLI::App* cmd : app.get_subcommands())
            for (const std::string& w : cmd->remaining()) {
                if (w.starts_with("-"))
                    std::cerr << "vfx: " << cmd->get_name() << " does not take "
                              << printable_line(w);
                else
                    std::cerr << "vfx: " << cmd->get_name() << ": unexpected '" << printable_line(w)
                              << "'";
                std::cerr << " (see vfx " << cmd->get_name() << " --help)\n";
                return 1;
            }
        // An option that takes one value, given twice (CLI11: "At Most 1 required but received
        // 2"): which one, in the words of the command line.
        for (CLI::App* cmd : app.get_subcommands())
            for (const CLI::Option* o : cmd->get_options())
                if (o->count() > 1 && o->get_type_size() != 0 && o->get_items_expected_max() == 1 &&
                    o->get_multi_option_policy() == CLI::MultiOptionPolicy::Throw) {
                    std::cerr << "vfx: " << cmd->get_name() << ": " << o->get_name() << " given "
                              << o->count() << " times; it takes one value\n";
                    return 1;
                }
        // The command the error concerns ("" before any).
        const std::string cmd =
            app.get_subcommands().empty() ? "" : app.get_subcommands().front()->get_name();
        const std::string cmd_prefix = cmd.empty() ? "" : cmd + ": ";
        // An option at the end without its value (CLI11: "--frames: 1 required INT:at least 1
        // missing").
        if (const std::string_view what = e.what();
            dynamic_cast<const CLI::ArgumentMismatch*>(&e) && what.ends_with(" missing") &&
            what.starts_with("--") && what.find(':') != what.npos) {
            std::cerr << "vfx: " << cmd_prefix << what.substr(0, what.find(':'))
                      << " needs a value\n";
            return 1;
        }
        std::string commands;  // "play, process, ..." as registered
        for (const CLI::App* c : app.get_subcommands({}))
            commands += (commands.empty() ? "" : ", ") + c->get_name();
        // Words before any command: an option vfx itself does not take, or no such command.
        for (const std::string& w : app.remaining()) {
            if (w.starts_with("-"))
                std::cerr << "vfx: unknown option " << printable_line(w)
                          << " (a command's options come after its name; see vfx --help)\n";
            else if (cmd.empty())
                std::cerr << "vfx: unknown command '" << printable_line(w)
                          << "' (commands: " << commands << ")\n";
            else
                continue;
            return 1;
        }
        // Anything else: in the words of CLI11, with the command it concerns.
        if (cmd.empty() && std::string_view(e.what()) == "A subcommand is required") {
            std::cerr << "vfx: a command is required (commands: " << commands
                      << "; see vfx --help)\n";
            return 1;
        }
        if (dynamic_cast<const CLI::RequiredError*>(&e) && !cmd.empty() &&
            std::string_view(e.what()) == "--input is required") {
            std::cerr << "vfx: " << cmd
                      << ": an input is required (a file, lavfi:GRAPH or v4l2:/dev/videoN; see vfx "
                      << cmd << " --help)\n";
            return 1;
        }
        std::cerr << "vfx: " << cmd_prefix << e.what() << " (see vfx "
                  << (cmd.empty() ? "" : cmd + " ") << "--help)\n";
        return 1;
    }
    if (!set_log_level(common.log_level)) {
        std::cerr << "vfx: --log-level '" << common.log_level
                  << "' is not one of trace, debug, info, warn, error, critical, off\n";
        return 1;
    }

    if (p->parsed()) {
        for (const auto& kv : play_inopts)
            play.source.options.push_back(split_key_value(kv, "--input-opt"));
        play.chain_given = !play.chain.empty() || p->count("--chain") > 0;
        apply_preset(play.chain, play.chain_origin, play.chain_given, play.preset);
        if (!play.chain_given && play.preset.empty()) play.chain = kDefaultChain;
        if (play.source.input.empty()) play.source.input = default_input();
        play.vsync = vsync == "on";
        if (!headless_size.empty())
            play.headless_size = parse_size(headless_size, "--headless-size");
        play.devices.interop = parse_interop(play_interop);
        play.devices.validation = play_validation;
        return run_play(play);
    }
    if (pr->parsed()) {
        for (const auto& kv : proc_inopts)
            proc.source.options.push_back(split_key_value(kv, "--input-opt"));
        for (const auto& kv : proc_encopts)
            proc.encoder_options.push_back(split_key_value(kv, "--encoder-opt"));
        proc.devices.interop = parse_interop(proc_interop);
        proc.devices.validation = proc_validation;
        proc.chain_given = pr->count("--chain") > 0;
        apply_preset(proc.chain, proc.chain_origin, proc.chain_given, proc.preset);
        return run_process(proc);
    }
    if (fl->parsed()) return run_filters(filters);
    if (bn->parsed()) return run_bench(bench);
    probe.devices.interop = parse_interop(probe_interop);
    probe.devices.validation = probe_validation;
    return run_probe(probe);
}

}  // namespace vfx::ui

int main(int argc, char** argv) {
    vfx::install_interrupt_cleanup();  // before any thread starts
    try {
        const int status = vfx::ui::main_impl(argc, argv);
        // What was printed must have reached its reader (`vfx filters --json > FILE` on a full
        // disk is a failure, not an empty file and status 0); a pipe whose reader left on
        // purpose (`| head -1`) is not.
        const int earlier = errno;  // most likely that of the write that failed, if one did
        errno = 0;
        const bool flush_failed = std::fflush(stdout) != 0;
        const int e = flush_failed && errno ? errno : earlier ? earlier : EIO;
        struct stat st {};
        const bool pipe =
            ::fstat(STDOUT_FILENO, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
        if ((flush_failed || std::ferror(stdout)) && !pipe)
            vfx::fail("cannot write to standard output ({})", std::strerror(e));
        return status;
    } catch (const vfx::Error& e) {
        std::cerr << "vfx: " << e.what() << "\n";
        return 1;
    } catch (const vfx::GpuError& e) {
        std::cerr << "vfx: GPU error: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "vfx: internal error: " << e.what() << "\n";
        return 3;
    }
}
