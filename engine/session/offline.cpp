#include "session/offline.hpp"

#include <chrono>
#include <deque>

#include "compute/chain.hpp"
#include "compute/pinned_pool.hpp"
#include "compute/processor.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/log.hpp"
#include "session/report.hpp"

namespace vfx {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// One frame in flight: its output buffer on the device, a pinned host buffer the result is read
// into, and the events that say when both are done.
struct InFlight {
    ClMem device;
    ClMem pinned;
    void* host = nullptr;
    FrameGeometry geometry;
    PendingFrame pending;
    ClEvent read;
    int64_t index = 0;  // of the frame in flight (its planes were copied at enqueue)
    int rotation = 0;   // its display matrix: written turned upright
    double time_s = 0, decode_ms = 0;
    bool busy = false;
};

}  // namespace

OfflineResult run_offline(const OfflineOptions& opts) {
    // Validate everything the user gave before any work: chain, output folder, report folder.
    Chain chain = parse_chain(opts.chain);
    if (opts.output != "null") check_can_create(opts.output, "output");
    if (!opts.report.empty()) check_can_create(opts.report, "report");

    // The device first: direct decode needs its context before the source opens.
    DeviceChoice devices = choose(opts.devices, /*want_vulkan=*/false);
    ClContext cl(devices.cl_device());
    spdlog::info("{}", short_name(cl.info()));
    SourceOptions source_opts = opts.source;
    if (opts.direct_decode && !source_opts.allocator)
        source_opts.allocator = PinnedFramePool::create(cl);
    auto source = Source::open(source_opts);
    if (const std::string w = cfa_mismatch(chain, source->info().pixel_format); !w.empty())
        spdlog::warn("{}", w);
    spdlog::debug("direct decode: {}", direct_decode_status(source_opts, source->info()));
    FrameProcessor processor(cl, chain);
    processor.set_chain_origin(opts.chain_origin);

    const auto start = Clock::now();
    std::unique_ptr<Sink> sink;
    std::vector<InFlight> ring(std::max<uint32_t>(opts.in_flight, 1));
    // Declared after the ring so it runs first when an error unwinds: the device finishes the
    // reads into the ring's pinned buffers before those are released.
    struct FinishOnExit {
        cl_command_queue queue;
        ~FinishOnExit() { clFinish(queue); }
    } finish_on_exit{cl.queue()};
    TimingLog timing(512, /*keep_all=*/true);
    int64_t submitted = 0, written = 0;
    std::optional<Histogram> last_histogram;  // of the last frame written (a histogram filter)
    std::vector<uint8_t> upright;             // a rotated frame's pixels, turned
    auto last_done = Clock::now();

    auto retire = [&](InFlight& f) {
        const auto t0 = Clock::now();
        cl_event ev = f.read.get();
        VFX_CL(clWaitForEvents(1, &ev));
        const double wait_ms = ms_since(t0);
        const auto tw = Clock::now();
        if (f.rotation % 360 == 0) {
            sink->write(static_cast<const uint8_t*>(f.host), f.geometry, f.index, f.time_s);
        } else {  // as a viewer sees it, like ffmpeg's autorotate (outputs carry no rotation)
            const FrameGeometry turned =
                turn_upright(static_cast<const uint8_t*>(f.host), f.geometry, f.rotation, upright);
            sink->write(upright.data(), turned, f.index, f.time_s);
        }
        FrameRecord rec;
        rec.index = f.index;
        rec.time_s = f.time_s;
        rec.stages.emplace_back("decode", f.decode_ms);
        for (const auto& st : f.pending.timings())
            rec.stages.emplace_back(st.name, st.ms);
        if (auto h = f.pending.histogram()) last_histogram = *h;
        rec.stages.emplace_back("readback", cl_event_ms(ev));
        rec.stages.emplace_back("wait", wait_ms);
        rec.stages.emplace_back("write", ms_since(tw));
        rec.frame_ms = ms_since(last_done);
        last_done = Clock::now();
        timing.add(std::move(rec));
        f.busy = false;
        ++written;
    };

    while (opts.frames < 0 || submitted < opts.frames) {
        std::optional<HostFrame> frame = source->next();
        if (!frame) break;
        InFlight& f = ring[static_cast<size_t>(submitted) % ring.size()];
        if (f.busy) retire(f);
        const FrameGeometry g =
            make_geometry(static_cast<uint32_t>(frame->width), static_cast<uint32_t>(frame->height),
                          frame->format.work_format());
        if (!sink) {
            const bool side = frame->rotation % 180 != 0;  // turned a quarter: w and h swap
            SinkOptions so;
            so.path = opts.output;
            so.codec = opts.codec;
            so.encoder_options = opts.encoder_options;
            so.fps = source->info().fps > 0 ? source->info().fps : 25.0;
            so.time_base_num = source->info().time_base_num;
            so.time_base_den = source->info().time_base_den;
            so.color_primaries = source->info().color_primaries;
            so.color_trc = source->info().color_trc;
            so.sar_num = side ? frame->sar_den : frame->sar_num;
            so.sar_den = side ? frame->sar_num : frame->sar_den;
            sink = Sink::open(so, side ? make_geometry(g.height, g.width, g.format) : g);
            spdlog::info("output: {}", sink->describe());
            if (const int a = source->info().audio_streams; a > 0 && sink->is_video_file())
                spdlog::warn("'{}' has {}; vfx writes the video only: the output has no sound",
                             opts.source.input, a == 1 ? "an audio stream" : "audio streams");
        }
        if (!(f.geometry == g)) {  // first use, or the stream changed size
            cl_int err = CL_SUCCESS;
            if (f.pinned && f.host)
                clEnqueueUnmapMemObject(cl.queue(), f.pinned.get(), f.host, 0, nullptr, nullptr);
            clFinish(cl.queue());
            f.device = ClMem(
                clCreateBuffer(cl.context(), CL_MEM_READ_WRITE, g.size_bytes(), nullptr, &err));
            VFX_CL_ERR(err, "clCreateBuffer(output)");
            f.pinned = ClMem(
                clCreateBuffer(cl.context(), CL_MEM_ALLOC_HOST_PTR, g.size_bytes(), nullptr, &err));
            VFX_CL_ERR(err, "clCreateBuffer(pinned read-back)");
            f.host =
                clEnqueueMapBuffer(cl.queue(), f.pinned.get(), CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                   0, g.size_bytes(), 0, nullptr, nullptr, &err);
            VFX_CL_ERR(err, "clEnqueueMapBuffer(pinned read-back)");
            f.geometry = g;
        }
        f.pending = processor.enqueue(*frame, f.device.get(), g);
        VFX_CL(clEnqueueReadBuffer(cl.queue(), f.device.get(), CL_FALSE, 0, g.size_bytes(), f.host,
                                   0, nullptr, f.read.out()));
        VFX_CL(clFlush(cl.queue()));
        f.index = frame->index;
        f.rotation = frame->rotation;
        f.time_s = frame->time_s;
        f.decode_ms = frame->decode_ms;
        f.busy = true;
        ++submitted;
    }
    // Retire the frames still in flight, oldest first.
    for (int64_t i = 0; i < static_cast<int64_t>(ring.size()); ++i) {
        InFlight& f = ring[static_cast<size_t>(submitted + i) % ring.size()];
        if (f.busy) retire(f);
    }
    if (!sink) fail("'{}': the input gave no frames", opts.source.input);
    // The run's files (the output, the report, the preset) are written first and published
    // together at the end: a failure on any of them leaves none, and an interrupt all or none.
    std::vector<TempFile> files;
    sink->finish_into(files);
    for (auto& f : ring)
        if (f.pinned && f.host)
            clEnqueueUnmapMemObject(cl.queue(), f.pinned.get(), f.host, 0, nullptr, nullptr);
    clFinish(cl.queue());

    OfflineResult r;
    r.frames = written;
    r.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
    r.output_description = sink->describe();
    r.summary = summary_table(timing);
    RunInfo info;
    info.command = "process";
    info.chain = format_chain(chain);
    info.interop = "none";
    info.interop_reason = "offline: frames are read back from OpenCL, no Vulkan";
    info.frames = written;
    info.wall_s = r.wall_s;
    info.source = source->stats();
    r.report = make_report(info, source->info(), devices, timing);
    if (last_histogram) r.report["histogram"] = histogram_json(*last_histogram);
    r.report["uploads"] = {{"direct", processor.upload_stats().direct},
                           {"copied", processor.upload_stats().copied}};
    if (!opts.report.empty()) files.push_back(json_file(opts.report, r.report));
    for (const TextOutput& t : opts.text_outputs)
        files.push_back(write_text_file(t.path, t.text, t.what));
    publish_all(files);
    return r;
}

}  // namespace vfx
