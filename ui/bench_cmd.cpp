// `vfx bench`: the benchmark of every filter, the conversions and the default chain (see
// engine/session/bench.hpp for the method), a table on stdout and JSON on request.
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "compute/pinned_pool.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/log.hpp"
#include "decode/source.hpp"
#include "options.hpp"
#include "session/bench.hpp"
#include "session/devices.hpp"
#include "session/report.hpp"

namespace vfx::ui {

namespace {

// --filters' names (empty: all); an empty name between commas is refused, as --chain does.
std::vector<std::string> split_list(const std::string& s) {
    std::vector<std::string> out;
    if (s.empty()) return out;
    size_t start = 0;
    while (start <= s.size()) {
        size_t end = s.find(',', start);
        if (end == std::string::npos) end = s.size();
        if (end == start) fail("--filters '{}': an empty name at character {}", s, start + 1);
        out.push_back(s.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

}  // namespace

// Decode-only: the source (same demuxer, decoder and threads as `play`) read to the end. With
// direct decode (the default, as `play`), into pinned blocks of the OpenCL device `play` would
// use, so that the decode-only rate and playback allocate frames the same way.
int run_decode_only(const BenchCliOptions& o) {
    SourceOptions so;
    so.input = o.decode;
    so.threads = o.decode_threads;
    std::unique_ptr<ClContext> cl;
    if (o.direct_decode) {
        DeviceOptions d;
        d.cl_device = o.cl_device;
        const DeviceChoice devices = choose(d, /*want_vulkan=*/false);
        cl = std::make_unique<ClContext>(devices.cl_device());
        so.allocator = PinnedFramePool::create(*cl);
    }
    auto src = Source::open(so);
    spdlog::debug("direct decode: {}", direct_decode_status(so, src->info()));
    const auto start = std::chrono::steady_clock::now();
    int64_t frames = 0;
    while (src->next())
        ++frames;
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double fps = s > 0 ? static_cast<double>(frames) / s : 0.0;
    const SourceStats st = src->stats();
    std::printf(
        "decode only: %lld frames of %s (%dx%d %s) in %.3f s: %.1f fps (direct decode "
        "%s)\n",
        static_cast<long long>(frames), o.decode.c_str(), src->info().width, src->info().height,
        src->info().codec.c_str(), s, fps,
        !src->info().direct_decode   ? "off"
        : st.frames_direct == frames ? "on"
                                     : "partly");
    if (!o.json.empty())
        write_json_file(o.json,
                        nlohmann::json{{"input", o.decode},
                                       {"frames", frames},
                                       {"seconds", s},
                                       {"fps", fps},
                                       {"codec", src->info().codec},
                                       {"direct_decode", src->info().direct_decode},
                                       {"frames_direct", st.frames_direct}},
                        "JSON");
    return 0;
}

int run_bench(const BenchCliOptions& o) {
    if (!o.decode.empty()) {
        if (!o.sizes.empty() || !o.filters.empty() || o.retune || o.cache_resident)
            spdlog::warn(
                "--decode measures decoding only: --size, --filters, --retune and "
                "--cache-resident are ignored");
        SourceOptions so;
        so.input = o.decode;
        check_distinct_files(files_of_run(so, {{"--json", o.json}}));
        if (!o.json.empty()) check_can_create(o.json, "JSON");
        return run_decode_only(o);
    }
    BenchOptions bo;
    for (const std::string& s : o.sizes)
        bo.sizes.push_back(parse_size(s, "--size"));
    if (o.filters != "all") bo.filters = split_list(o.filters);  // none named: every case
    bo.runs = o.runs;
    bo.warmup = o.warmup;
    bo.cache_resident = o.cache_resident;
    if (!o.json.empty()) check_can_create(o.json, "JSON");

    DeviceOptions d;
    d.cl_device = o.cl_device;
    const DeviceChoice devices = choose(d, /*want_vulkan=*/false);
    spdlog::info("{}", short_name(devices.cl_device()));
    ClContext cl(devices.cl_device());
    if (o.retune) cl.tuner().set_mode(TuneMode::retune);
    if (!cl.tuner().cache_file().empty())
        spdlog::info("tuning cache: {}", cl.tuner().cache_file().string());

    const BenchReport r = run_bench(cl, bo, kDefaultChain);
    std::printf("%s", bench_table(r).c_str());
    if (!o.json.empty()) {
        write_json_file(o.json, to_json(r), "JSON");
        spdlog::info("JSON: {}", o.json);
    }
    return 0;
}

}  // namespace vfx::ui
