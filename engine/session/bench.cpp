#include "session/bench.hpp"

extern "C" {
#include <libavutil/frame.h>
}

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "compute/chain.hpp"
#include "compute/pointwise.hpp"
#include "compute/processor.hpp"
#include "compute/registry.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "timing/timing.hpp"

namespace vfx {

namespace {

constexpr uint64_t kRotationBytes = 256ull << 20;  // touched per rotation: well past any L2
constexpr size_t kMaxSets = 32;

// Median, min and p95 of the timed runs (nearest rank, as every timing in vfx).
using Stats = Summary;

size_t sets_for(uint64_t bytes_per_set, bool cache_resident) {
    if (bytes_per_set == 0 || cache_resident) return 1;
    return std::clamp<size_t>((kRotationBytes + bytes_per_set - 1) / bytes_per_set, 1, kMaxSets);
}

uint64_t packed_bytes(uint32_t w, uint32_t h, WorkFormat f) {
    return uint64_t{w} * h * bytes_per_pixel(f);
}

// A device buffer filled with pseudo-random bytes (content matters to data-dependent kernels:
// median sorting networks do not, histogram atomics and oil paint bins do).
ClMem random_buffer(ClContext& cl, size_t bytes, uint32_t seed) {
    std::vector<uint8_t> host(bytes);
    std::mt19937 rng(seed);
    for (size_t i = 0; i + 4 <= bytes; i += 4) {
        const auto v = static_cast<uint32_t>(rng());
        std::memcpy(host.data() + i, &v, 4);
    }
    ClMem m = cl.buffer(CL_MEM_READ_WRITE, bytes);
    VFX_CL(clEnqueueWriteBuffer(cl.queue(), m.get(), CL_TRUE, 0, bytes, host.data(), 0, nullptr,
                                nullptr));
    return m;
}

std::string size_text(uint32_t w, uint32_t h) {
    return fmt::format("{}x{}", w, h);
}

class Bench {
public:
    Bench(ClContext& cl, const BenchOptions& o) : cl_(cl), o_(o) {}

    double copy(uint32_t w, uint32_t h) {
        const uint64_t bytes = packed_bytes(w, h, WorkFormat::rgba8);
        const size_t sets = sets_for(2 * bytes, o_.cache_resident);
        std::vector<ClMem> src, dst;
        for (size_t i = 0; i < sets; ++i) {
            src.push_back(random_buffer(cl_, bytes, static_cast<uint32_t>(i)));
            dst.push_back(cl_.buffer(CL_MEM_READ_WRITE, bytes));
        }
        const Stats s = measure([&](size_t i, std::vector<ClEvent>& ev) {
            ClEvent e;
            VFX_CL(clEnqueueCopyBuffer(cl_.queue(), src[i % sets].get(), dst[i % sets].get(), 0, 0,
                                       bytes, 0, nullptr, e.out()));
            ev.push_back(e);
        });
        BenchResult r = result("copy", "copy (clEnqueueCopyBuffer)", w, h, "rgba8", s, 2 * bytes);
        const double gbps = r.gbps;
        copy_gbps_[size_text(w, h)] = gbps;
        r.copy_ratio = 1.0;
        results_.push_back(r);
        return gbps;
    }

    // One chain of filters (fused as the player would run it, unless `fuse` is false), run
    // on random frames of the kind its first filter takes.
    void stages(const std::string& filter, const std::string& text, uint32_t w, uint32_t h,
                bool fuse = true, std::string note = {}) {
        const Chain chain = parse_chain(text);
        auto names = [&](size_t i) { return chain.filters[i].name(); };
        std::vector<ChainStage> st = make_stages(cl_, chain, fuse, names);
        const FilterInfo& first = *chain.filters.front().info;
        const WorkFormat in_fmt = first.takes_colour ? WorkFormat::rgba8 : WorkFormat::mono8;
        std::vector<WorkFormat> fmts{in_fmt};
        bool uses_input = false, observes = false;
        for (const FilterInstance& f : chain.filters) {
            const FrameKind k = is_mono(fmts.back()) ? FrameKind::mosaic : FrameKind::colour;
            fmts.push_back(f.info->output_kind(k) == FrameKind::mosaic ? WorkFormat::mono8
                                                                       : WorkFormat::rgba8);
            uses_input = uses_input || f.info->uses_chain_input;
        }
        // An observer alone (the histogram) runs as a chain runs it: counting in place, the
        // frame neither copied nor written (FilterInfo::observes).
        observes = chain.filters.size() == 1 && first.observes;
        const FrameGeometry g_rgba = make_geometry(w, h, WorkFormat::rgba8);
        auto geom = [&](WorkFormat f) { return make_geometry(w, h, f); };
        const uint64_t in_bytes = packed_bytes(w, h, in_fmt);
        const uint64_t out_bytes = observes ? 0 : packed_bytes(w, h, fmts.back());
        const uint64_t bytes = in_bytes * (uses_input ? 2 : 1) + out_bytes;
        const size_t sets = sets_for(in_bytes + 2 * g_rgba.size_bytes(), o_.cache_resident);
        struct Set {
            ClMem in, a, b;
        };
        std::vector<Set> bufs;
        for (size_t i = 0; i < sets; ++i)
            bufs.push_back({random_buffer(cl_, g_rgba.size_bytes(), static_cast<uint32_t>(i)),
                            cl_.buffer(CL_MEM_READ_WRITE, g_rgba.size_bytes()),
                            cl_.buffer(CL_MEM_READ_WRITE, g_rgba.size_bytes())});
        std::vector<ClMem> keep;
        const auto before = cl_.tuner().choices();
        const Stats s = measure([&](size_t run, std::vector<ClEvent>& ev) {
            Set& set = bufs[run % sets];
            cl_mem src = set.in.get();
            size_t at = 0;  // filter index the stage starts at
            for (size_t k = 0; k < st.size(); ++k) {
                cl_mem dst = observes ? src : k % 2 == 0 ? set.a.get() : set.b.get();
                const FrameGeometry gi = geom(fmts[at]), go = geom(fmts[at + st[k].count]);
                ClMem hist;
                FilterIo io{cl_, cl_.queue(), src, dst, gi, ev, keep};
                if (!(go == gi)) io.dst_g = &go;
                const FrameGeometry gin = geom(in_fmt);
                if (uses_input) {
                    io.input = set.in.get();
                    io.input_g = &gin;
                }
                io.source_bits = 8;
                io.histogram_out = &hist;
                st[k].filter->enqueue(io);
                src = dst;
                at += st[k].count;
            }
            if (keep.size() > 64) keep.clear();  // per-frame buffers (histogram counts)
        });
        BenchResult r = result(filter, text, w, h, std::string(to_string(in_fmt)), s, bytes);
        r.variant = new_choices(before);
        r.note = note.empty() && st.size() < chain.filters.size()
                     ? fmt::format("fused: {} kernel{} for {} filters", st.size(),
                                   st.size() == 1 ? "" : "s", chain.filters.size())
                     : note;
        if (observes && r.note.empty()) r.note = "counts in place, as in a chain (read only)";
        results_.push_back(r);
    }

    // Upload + conversion (+ a chain) through FrameProcessor, as the player runs it. Timed:
    // the conversion and the chain's stages (not the upload, reported in the note).
    void processor(const std::string& filter, const std::string& label, const std::string& text,
                   AVPixelFormat pix, uint32_t w, uint32_t h) {
        if (pix != AV_PIX_FMT_NV12 && pix != AV_PIX_FMT_YUV420P)
            fail("bench: only nv12 and yuv420p sources are generated");
        AVFrame* av = av_frame_alloc();
        av->format = pix;
        av->width = static_cast<int>(w);
        av->height = static_cast<int>(h);
        if (av_frame_get_buffer(av, 0) < 0) {
            av_frame_free(&av);
            fail("bench: cannot allocate a {}x{} frame", w, h);
        }
        std::shared_ptr<AVFrame> hold(av, [](AVFrame* p) { av_frame_free(&p); });
        std::mt19937 rng(5);
        for (int p = 0; p < 4 && av->buf[p]; ++p)
            for (size_t i = 0; i < av->buf[p]->size; ++i)
                av->buf[p]->data[i] = static_cast<uint8_t>(rng() % 200 + 28);
        HostFrame frame;
        frame.av = hold;
        frame.width = static_cast<int>(w);
        frame.height = static_cast<int>(h);
        frame.format.layout =
            pix == AV_PIX_FMT_NV12 ? PlaneLayout::yuv_semiplanar : PlaneLayout::yuv_planar;
        frame.format.bits = 8;
        frame.format.bytes = 1;
        frame.format.chroma_w_log2 = 1;
        frame.format.chroma_h_log2 = 1;
        frame.color.matrix = Matrix::bt709;
        frame.color.range = Range::limited;
        const FrameGeometry g = make_geometry(w, h, frame.format.work_format());
        const size_t sets = sets_for(2 * g.size_bytes(), o_.cache_resident);
        std::vector<ClMem> targets;
        for (size_t i = 0; i < sets; ++i)
            targets.push_back(cl_.buffer(CL_MEM_READ_WRITE, g.size_bytes()));
        FrameProcessor proc(cl_, parse_chain(text));
        uint64_t src_bytes = 0;
        for (int p = 0; p < 4; ++p)
            src_bytes += frame.plane(p).data ? plane_bytes(frame, p) : 0;
        const auto before = cl_.tuner().choices();
        std::vector<double> gpu_ms, upload_ms;
        for (int run = 0; run < o_.warmup + o_.runs; ++run) {
            PendingFrame pf =
                proc.enqueue(frame, targets[static_cast<size_t>(run) % sets].get(), g);
            pf.wait();
            if (run < o_.warmup) continue;
            double sum = 0;
            for (const StageTime& t : pf.timings()) {
                if (t.name == "upload")
                    upload_ms.push_back(t.ms);
                else
                    sum += t.ms;
            }
            gpu_ms.push_back(sum);
        }
        const uint64_t bytes = src_bytes + packed_bytes(w, h, g.format);
        BenchResult r =
            result(filter, label, w, h, std::string(to_string(g.format)), summarize(gpu_ms), bytes);
        r.variant = new_choices(before);
        r.note = fmt::format("upload {:.3f} ms (not counted)", summarize(upload_ms).p50);
        results_.push_back(r);
    }

    BenchReport report() {
        BenchReport out;
        out.device = cl_.info().name;
        out.driver = cl_.info().driver_version;
        out.cache_resident = o_.cache_resident;
        for (const auto& [k, v] : copy_gbps_)
            out.copy_gbps.emplace_back(k, v);
        out.results = results_;
        return out;
    }

private:
    // Enqueues warm-up + runs of `one` (run index, the events to time: first start to last
    // end), waits, and summarises the timed runs.
    template <typename F>
    Stats measure(F&& one) {
        std::vector<std::vector<ClEvent>> events;
        for (int i = 0; i < o_.warmup + o_.runs; ++i) {
            std::vector<ClEvent> ev;
            one(static_cast<size_t>(i), ev);
            if (ev.empty()) fail("bench: a case enqueued nothing");
            if (i >= o_.warmup) events.push_back(std::move(ev));
            if (i == 0 || i + 1 == o_.warmup) VFX_CL(clFinish(cl_.queue()));
        }
        VFX_CL(clFinish(cl_.queue()));
        std::vector<double> ms;
        for (const auto& ev : events)
            ms.push_back(cl_events_ms(ev.front().get(), ev.back().get()));
        return summarize(std::move(ms));
    }

    BenchResult result(const std::string& filter, const std::string& chain, uint32_t w, uint32_t h,
                       const std::string& format, const Stats& s, uint64_t bytes) {
        BenchResult r;
        r.filter = filter;
        r.chain = chain;
        r.width = w;
        r.height = h;
        r.format = format;
        r.ms_median = s.p50;
        r.ms_min = s.min;
        r.ms_p95 = s.p95;
        r.bytes = bytes;
        r.gbps = s.p50 > 0 ? static_cast<double>(bytes) / (s.p50 * 1e6) : 0;
        if (auto it = copy_gbps_.find(size_text(w, h)); it != copy_gbps_.end() && it->second > 0)
            r.copy_ratio = r.gbps / it->second;
        spdlog::debug("bench {} {}: {:.4f} ms", chain, size_text(w, h), s.p50);
        return r;
    }

    std::string new_choices(const std::map<std::string, std::string>& before) const {
        std::string out;
        for (const auto& [k, v] : cl_.tuner().choices())
            if (auto it = before.find(k); it == before.end() || it->second != v)
                out += (out.empty() ? "" : "; ") + v;
        return out;
    }

    static uint64_t plane_bytes(const HostFrame& f, int p) {
        const SourceFormat& sf = f.format;
        const bool chroma = p > 0 && sf.layout != PlaneLayout::rgba;
        const uint64_t w = chroma
                               ? (static_cast<uint64_t>(f.width) + (1u << sf.chroma_w_log2) - 1) >>
                                     sf.chroma_w_log2
                               : static_cast<uint64_t>(f.width);
        const uint64_t h = chroma
                               ? (static_cast<uint64_t>(f.height) + (1u << sf.chroma_h_log2) - 1) >>
                                     sf.chroma_h_log2
                               : static_cast<uint64_t>(f.height);
        uint64_t per = sf.bytes;
        if (sf.layout == PlaneLayout::rgba) per *= 4;
        if (sf.layout == PlaneLayout::yuv_semiplanar && p == 1) per *= 2;
        if (sf.layout == PlaneLayout::yuyv) per *= 2;
        return w * h * per;
    }

    ClContext& cl_;
    const BenchOptions& o_;
    std::map<std::string, double> copy_gbps_;
    std::vector<BenchResult> results_;
};

// The cases of one filter: its defaults, or instead the settings that matter: those the peers
// are compared at (median, box, gaussian, bilateral, oilpaint, unsharp), both demosaic methods,
// a visible change where the defaults do nothing (color), and gamma's sRGB curve. README.md's
// Speed section lists them.
std::vector<std::string> cases_of(const FilterInfo& f) {
    static const std::map<std::string, std::vector<std::string>> extra = {
        {"median", {"median=radius=1", "median=radius=2"}},
        {"box", {"box=radius=1", "box=radius=5"}},
        {"gaussian", {"gaussian=sigma=2"}},
        {"bilateral", {"bilateral=sigma_s=2"}},
        {"oilpaint", {"oilpaint=radius=4:levels=16"}},
        {"demosaic", {"demosaic=method=mhc", "demosaic=method=bilinear"}},
        {"unsharp", {"unsharp=sigma=1:amount=0.5"}},
        {"gamma", {"gamma=curve=srgb"}},
        {"color", {"color=saturation=1.3:hue=10"}},
    };
    if (auto it = extra.find(f.name); it != extra.end()) return it->second;
    return {f.name};
}

constexpr const char* kPointwiseRun =
    "color=saturation=1.3:hue=10,gamma=curve=srgb,ccm=matrix=1.2|-0.1|-0.1|-0.05|1.1|-0.05|0|-0.2|"
    "1.2,sepia";

}  // namespace

BenchReport run_bench(ClContext& cl, const BenchOptions& opts, const std::string& default_chain) {
    std::vector<std::pair<uint32_t, uint32_t>> sizes = opts.sizes;
    if (sizes.empty()) sizes = {{1920, 1080}, {3840, 2160}};
    auto wanted = [&](const std::string& name) {
        return opts.filters.empty() ||
               std::find(opts.filters.begin(), opts.filters.end(), name) != opts.filters.end();
    };
    for (const std::string& name : opts.filters)
        if (name != "convert" && name != "chain" && name != "fused" && !find_filter(name))
            fail("bench: unknown filter '{}' (see 'vfx filters'; also: convert, fused, chain)",
                 name);
    if (opts.runs < 1 || opts.warmup < 0) fail("bench: --runs must be >= 1, --warmup >= 0");

    Bench b(cl, opts);
    for (auto [w, h] : sizes) {
        spdlog::info("bench {}x{}: copy reference", w, h);
        b.copy(w, h);
        if (wanted("convert")) {
            b.processor("convert", "convert nv12", "", AV_PIX_FMT_NV12, w, h);
            b.processor("convert", "convert yuv420p", "", AV_PIX_FMT_YUV420P, w, h);
        }
        for (const FilterInfo* f : registered_filters()) {
            if (!wanted(f->name)) continue;
            spdlog::info("bench {}x{}: {}", w, h, f->name);
            for (const std::string& c : cases_of(*f))
                b.stages(f->name, c, w, h);
        }
        if (wanted("fused")) {
            b.stages("pointwise run", kPointwiseRun, w, h, true);
            b.stages("pointwise run", kPointwiseRun, w, h, false, "not fused: 4 kernels");
        }
        if (wanted("chain"))
            b.processor("chain", "convert yuv420p," + default_chain, default_chain,
                        AV_PIX_FMT_YUV420P, w, h);
    }
    return b.report();
}

std::string bench_table(const BenchReport& r) {
    std::string out = fmt::format("device: {} (driver {})\n", r.device, r.driver);
    if (r.cache_resident)
        out +=
            "cache-resident: one buffer set per case; frames that fit the L2 (input and output "
            "together) are read from it\n";
    for (const auto& [size, gbps] : r.copy_gbps)
        out += fmt::format("copy bandwidth {}: {:.1f} GB/s (read + write)\n", size, gbps);
    out += fmt::format("\n{:<14} {:<44} {:>9} {:>9} {:>9} {:>8} {:>7}  {}\n", "filter", "case",
                       "size", "ms p50", "ms min", "GB/s", "% copy", "variant / note");
    for (const BenchResult& x : r.results) {
        std::string extra = x.variant;
        if (!x.note.empty()) extra += (extra.empty() ? "" : "  ") + std::string("(") + x.note + ")";
        out += fmt::format("{:<14} {:<44} {:>9} {:>9.4f} {:>9.4f} {:>8.1f} {:>6.0f}%  {}\n",
                           x.filter, x.chain.size() > 44 ? x.chain.substr(0, 41) + "..." : x.chain,
                           size_text(x.width, x.height), x.ms_median, x.ms_min, x.gbps,
                           100 * x.copy_ratio, extra);
    }
    return out;
}

nlohmann::json to_json(const BenchReport& r) {
    nlohmann::json j;
    j["device"] = r.device;
    j["driver"] = r.driver;
    j["method"] =
        "OpenCL profiling events, first command start to last command end; warm-up then the "
        "median of the runs; bytes = inputs read once + outputs written once (packed)";
    nlohmann::json copy = nlohmann::json::object();
    for (const auto& [size, gbps] : r.copy_gbps)
        copy[size] = gbps;
    j["copy_gbps_by_size"] = copy;
    j["cache_resident"] = r.cache_resident;
    // The largest size's copy rate, for tools that want one figure.
    j["copy_gbps"] = r.copy_gbps.empty() ? 0.0 : r.copy_gbps.back().second;
    nlohmann::json results = nlohmann::json::array();
    for (const BenchResult& x : r.results)
        results.push_back({{"filter", x.filter},
                           {"chain", x.chain},
                           {"size", size_text(x.width, x.height)},
                           {"format", x.format},
                           {"ms_median", x.ms_median},
                           {"ms_min", x.ms_min},
                           {"ms_p95", x.ms_p95},
                           {"bytes", x.bytes},
                           {"gbps", x.gbps},
                           {"copy_ratio", x.copy_ratio},
                           {"variant", x.variant},
                           {"note", x.note}});
    j["results"] = results;
    return j;
}

}  // namespace vfx
