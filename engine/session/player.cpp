#include "session/player.hpp"

#include <algorithm>
#include <cmath>
#include <thread>

extern "C" {
#include <libavutil/frame.h>
}

#include "compute/cl_check.hpp"
#include "compute/pinned_pool.hpp"
#include "core/error.hpp"
#include "core/log.hpp"

namespace vfx {

namespace {
using Clock = std::chrono::steady_clock;
double ms_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

// Host memory a decoded frame holds (its buffers).
size_t frame_bytes(const HostFrame& f) {
    size_t n = 0;
    if (f.av)
        for (const AVBufferRef* b : f.av->buf)
            if (b) n += b->size;
    return n;
}

constexpr size_t kLatencyWindow = 30;        // frames the latency mean is taken over
constexpr double kPausedRefresh = 1.0 / 60;  // paced re-renders while paused, at most
}  // namespace

Player::Player(const PlayerOptions& opts, ClContext& cl, VkContext& vk, Renderer& renderer,
               InteropTier tier)
    : opts_(opts),
      cl_(cl),
      renderer_(renderer),
      chain_(parse_chain(opts.chain)),
      timing_(512, /*keep_all=*/true) {
    if (!opts_.kernels_dir.empty()) {
        kernel_watcher_ = std::make_unique<KernelWatcher>(opts_.kernels_dir);
        cl.set_kernel_dir(opts_.kernels_dir);
    }
    if (opts_.direct_decode && !opts_.source.allocator)
        opts_.source.allocator = PinnedFramePool::create(cl);
    source_ = Source::open(opts_.source);
    spdlog::debug("direct decode: {}", direct_decode_status(opts_.source, stream()));
    processor_ = std::make_unique<FrameProcessor>(cl, chain_);
    processor_->set_chain_origin(opts_.chain_origin);
    uint32_t slots = std::max<uint32_t>(2, opts_.frames_in_flight);
    if (stream().live) {
        slots = std::min<uint32_t>(slots, kLiveFramesInFlight);
        in_flight_limit_ = kLiveFramesInFlight;
    }
    bridge_ = std::make_unique<Bridge>(cl, vk, tier, slots,
                                       [this](uint64_t serial) { renderer_.wait_frame(serial); });
    speed_ = std::clamp(opts_.speed, kMinSpeed, kMaxSpeed);
    if (stream().live) {
        // A live source comes at its own pace and has no end to go back from.
        if (speed_ != 1 || opts_.source.loop)
            spdlog::warn("'{}' is live: {} ignored", opts_.source.input,
                         speed_ != 1 && opts_.source.loop ? "--speed and --loop are"
                         : speed_ != 1                    ? "--speed is"
                                                          : "--loop is");
        speed_ = 1;
    }
    last_done_ = Clock::now();
}

Player::~Player() {
    try {
        finish();
    } catch (const std::exception& e) {
        spdlog::error("player teardown: {}", e.what());
    }
}

void Player::set_chain(Chain chain) {
    processor_->request_chain(chain);
    chain_ = std::move(chain);
}

double Player::fps() const {
    Summary s = timing_.summary("frame");
    return s.mean > 0 ? 1000.0 / s.mean : 0.0;
}

// --- transport -----------------------------------------------------------------------------------

void Player::set_paused(bool paused) {
    ended_ = false;
    if (paused == paused_) return;
    paused_ = paused;
    if (!paused) {
        steps_ = 0;
        clock_start_.reset();  // the clock re-anchors on the next frame
        if (stream().live) resumed_at_ = Clock::now();
    }
}

void Player::step_frames(int n) {
    paused_ = true;
    ended_ = false;
    steps_ += n;
}

bool Player::seek(double seconds) {
    double target = std::max(0.0, seconds);
    if (duration_s() > 0) target = std::min(target, duration_s());
    if (!source_->seek(target)) return false;
    seek_pending_ = true;
    seek_target_s_ = target;
    steps_ = 0;
    if (ended_) set_paused(false);  // paused by the end (keep_open): a seek plays on
    spdlog::info("seek to {:.2f} s", target);
    return true;
}

bool Player::seek_by(double delta_s) {
    return seek((seek_pending_ ? seek_target_s_ : position_s()) + delta_s);
}

void Player::set_speed(double speed) {
    if (stream().live) {
        spdlog::info("live source: the speed stays 1");
        return;
    }
    speed_ = std::clamp(speed, kMinSpeed, kMaxSpeed);
    clock_start_.reset();
    spdlog::info("speed ×{:g}", speed_);
}

void Player::set_loop(bool loop) {
    source_->set_loop(loop);
    if (loop && ended_) set_paused(false);  // paused by the end: plays on from the start
    if (!stream().live) spdlog::info("loop {}", loop ? "on" : "off");
}

double Player::position_s() const {
    return history_.empty() ? 0.0 : history_[cursor_].position_s;
}

double Player::latency_ms() const {
    if (latencies_.empty()) return -1;
    double sum = 0;
    for (double v : latencies_)
        sum += v;
    return sum / static_cast<double>(latencies_.size());
}

// --- the frame loop ------------------------------------------------------------------------------

void Player::remember(HostFrame frame) {
    history_bytes_ += frame_bytes(frame);
    history_.push_back(std::move(frame));
    cursor_ = history_.size() - 1;
    const size_t keep = std::max<size_t>(2, opts_.step_back_frames);
    while (history_.size() > 2 &&
           (history_.size() > keep || history_bytes_ > opts_.step_back_bytes)) {
        history_bytes_ -= frame_bytes(history_.front());
        history_.pop_front();
        --cursor_;
    }
}

Player::Pick Player::forward(bool stepping) {
    if (!history_.empty() && cursor_ + 1 < history_.size()) {  // after steps back: the cache
        ++cursor_;
        return Pick::fresh;
    }
    for (;;) {
        std::optional<HostFrame> f = source_->next();
        if (!f) return stepping && !history_.empty() ? Pick::again : Pick::end;
        // Resumed live source: what waited in the queue during the pause is stale.
        if (resumed_at_ && f->captured_at < *resumed_at_) continue;
        resumed_at_.reset();
        remember(std::move(*f));
        from_source_ = true;
        return Pick::fresh;
    }
}

Player::Pick Player::pick_frame() {
    if (seek_pending_) {
        seek_pending_ = false;
        std::optional<HostFrame> f = source_->next();
        if (f) {
            history_.clear();
            history_bytes_ = 0;
            remember(std::move(*f));
            from_source_ = true;
            clock_start_.reset();
            return Pick::fresh;
        }
        return history_.empty() ? Pick::end : Pick::again;
    }
    if (history_.empty()) return forward(false);
    if (steps_ < 0) {
        ++steps_;
        if (cursor_ == 0) {
            spdlog::debug("step back: the cache holds no earlier frame");
            return Pick::again;
        }
        --cursor_;
        return Pick::fresh;
    }
    if (steps_ > 0) {
        --steps_;
        return forward(true);
    }
    if (!paused_) return forward(false);
    return Pick::again;
}

// Pacing: frame times map onto the real-time clock from an anchor, divided by the speed. A
// frame more than one interval late is dropped before any GPU work is spent on it, but never
// more than kMaxDropsInARow in a row: then the clock re-anchors on the frame (the source is
// slower than real time, e.g. a decoder that cannot keep up) and playback goes on from there.
// A frame due more than kMaxWait ahead (a timestamp jump) re-anchors too, so the window never
// stops polling its events for long. Seeks, pause, steps and speed changes re-anchor.
bool Player::pace(const HostFrame& frame) {
    using Seconds = std::chrono::duration<double>;
    constexpr int kMaxDropsInARow = 8;
    constexpr double kMaxWait = 0.5;
    const auto now = Clock::now();
    auto due_of = [&](const HostFrame& fr) {
        return *clock_start_ + std::chrono::duration_cast<Clock::duration>(
                                   Seconds((fr.time_s - first_time_s_) / speed_));
    };
    if (!clock_start_ || Seconds(due_of(frame) - now).count() > kMaxWait ||
        frame.time_s < first_time_s_) {
        clock_start_ = now;
        first_time_s_ = frame.time_s;
    }
    const double interval = (stream().fps > 0 ? 1.0 / stream().fps : 1.0 / 30) / speed_;
    const double late = Seconds(now - due_of(frame)).count();
    if (shown_ > 0 && late > interval) {
        if (++drops_in_a_row_ <= kMaxDropsInARow) {
            ++dropped_;
            return false;
        }
        clock_start_ = now;
        first_time_s_ = frame.time_s;
    }
    drops_in_a_row_ = 0;
    std::this_thread::sleep_until(due_of(frame));
    return true;
}

bool Player::step(const OverlayFn& overlay) {
    harvest(false);
    if (kernel_watcher_ && Clock::now() >= next_kernel_poll_) {  // hot reload, twice a second
        next_kernel_poll_ = Clock::now() + std::chrono::milliseconds(500);
        if (auto changed = kernel_watcher_->poll(); !changed.empty())
            processor_->reload_kernels(std::move(changed));
    }
    if (opts_.max_frames >= 0 && shown_ >= opts_.max_frames) return false;

    const bool stepping = steps_ != 0 || seek_pending_;
    from_source_ = false;
    const auto t_ask = Clock::now();
    Pick pick = pick_frame();
    if (pick == Pick::end) {
        if (!opts_.keep_open || history_.empty()) return false;
        if (!paused_) spdlog::info("end of the input: paused on the last frame");
        paused_ = true;
        ended_ = true;
        steps_ = 0;
        pick = Pick::again;  // the frame shown stays
    }
    const auto t_got = Clock::now();
    const HostFrame& frame = history_[cursor_];
    const bool fresh = pick == Pick::fresh;

    if (fresh && !paused_ && !stepping) {
        if (opts_.paced && !pace(frame)) return true;
    } else {
        clock_start_.reset();  // steps and seeks: playback re-anchors when it resumes
        if (!fresh && opts_.paced) {
            std::this_thread::sleep_until(last_done_ +
                                          std::chrono::duration_cast<Clock::duration>(
                                              std::chrono::duration<double>(kPausedRefresh)));
        }
    }
    render_frame(frame, fresh, ms_between(t_ask, t_got), overlay);
    return true;
}

void Player::render_frame(const HostFrame& frame, bool fresh, double queue_ms,
                          const OverlayFn& overlay) {
    // Live: at most in_flight_limit_ frames between leaving the queue and their render
    // completing. (Files rely on the bridge and the renderer blocking on a busy slot.)
    while (in_flight_limit_ > 0 && in_flight_.size() >= in_flight_limit_) {
        InFlight& oldest = in_flight_.front();
        renderer_.wait_frame(oldest.serial);
        oldest.pending.wait();
        harvest(false);
    }

    const FrameGeometry g =
        make_geometry(static_cast<uint32_t>(frame.width), static_cast<uint32_t>(frame.height),
                      frame.format.work_format());
    InFlight f;
    f.record.index = frame.index;
    f.record.time_s = frame.time_s;
    if (from_source_) {  // not for a re-render or a frame replayed from the cache
        f.record.stages.emplace_back("decode", frame.decode_ms);
        f.record.stages.emplace_back("queue", queue_ms);
    }
    f.head = f.record.stages.size();

    Bridge::WriteTarget target = bridge_->begin_write(g);
    // A capture reads the chain's output, copied before the split view is drawn over it.
    ClMem chain_output;
    if (capture_requested_)
        chain_output = cl_.buffer(CL_MEM_READ_WRITE, target.geometry.size_bytes());
    f.pending = processor_->enqueue(frame, target.buffer, target.geometry, chain_output.get());
    if (capture_requested_) {
        // The chain's output, before the renderer: waits for this frame's OpenCL work once.
        CapturedFrame c;
        c.geometry = target.geometry;
        c.pixels.resize(c.geometry.size_bytes());
        VFX_CL(clEnqueueReadBuffer(cl_.queue(), chain_output.get(), CL_TRUE, 0, c.pixels.size(),
                                   c.pixels.data(), 0, nullptr, nullptr));
        c.rotation = frame.rotation;
        c.index = frame.index;
        c.position_s = frame.position_s;
        capture_ = std::move(c);
        capture_requested_ = false;
    }
    bridge_->end_write(target);

    const auto t_hand = Clock::now();
    Bridge::ReadView view = bridge_->hand_over(target.slot);
    const auto t_render = Clock::now();

    VideoFrame vf;
    vf.buffer = view.buffer;
    vf.offset = view.offset;
    vf.range = view.size;
    vf.width = g.width;
    vf.height = g.height;
    vf.pitch = g.pitch;
    vf.format = g.format;
    vf.sar_num = static_cast<uint32_t>(std::max(frame.sar_num, 1));
    vf.sar_den = static_cast<uint32_t>(std::max(frame.sar_den, 1));
    vf.rotation = static_cast<uint32_t>(frame.rotation);
    vf.ownership = view.external_memory ? BufferOwnership::external : BufferOwnership::local;
    video_size_ = {vf.width, vf.height, vf.sar_num, vf.sar_den};
    FrameSubmit submit;
    submit.frame = &vf;
    if (view.wait) submit.wait_semaphores = std::span<const VkSemaphore>(&view.wait, 1);
    if (view.signal) submit.signal_semaphores = std::span<const VkSemaphore>(&view.signal, 1);
    submit.overlay = overlay;
    FrameResult res = renderer_.render(submit);
    bridge_->rendered(target.slot, res.serial);
    const auto t_done = Clock::now();

    f.record.stages.emplace_back("handover", ms_between(t_hand, t_render));
    f.record.stages.emplace_back("present", ms_between(t_render, t_done));
    f.record.frame_ms = ms_between(last_done_, t_done);
    f.serial = res.serial;
    last_done_ = t_done;
    in_flight_.push_back(std::move(f));
    max_in_flight_ = std::max(max_in_flight_, in_flight_.size());
    if (fresh) {
        ++shown_;
        if (stream().live && from_source_) {
            latencies_.push_back(ms_between(frame.captured_at, t_done));
            if (latencies_.size() > kLatencyWindow) latencies_.pop_front();
        }
    } else {
        ++rerendered_;
    }

    frame_desc_ =
        fmt::format("{}x{} {}{}, {} {} -> {}", frame.width, frame.height, frame.pixel_format,
                    frame.swscale_fallback ? " (swscale)" : "", to_string(frame.color.matrix),
                    to_string(frame.color.range), to_string(g.format));
}

void Player::harvest(bool wait) {
    const uint64_t completed = wait ? renderer_.submitted_serial() : renderer_.completed_serial();
    while (!in_flight_.empty()) {
        InFlight& f = in_flight_.front();
        if (!wait && (f.serial > completed || !f.pending.complete())) break;
        if (wait) renderer_.wait_frame(f.serial);
        // Stage order in the record: decode, queue (fresh frames), the OpenCL stages, handover,
        // switch, render, present.
        const auto head = f.record.stages.begin() + static_cast<std::ptrdiff_t>(f.head);
        std::vector<std::pair<std::string, double>> stages(f.record.stages.begin(), head);
        for (const auto& st : f.pending.timings())
            stages.emplace_back(st.name, st.ms);
        if (auto h = f.pending.histogram()) histogram_ = std::move(h);
        if (auto h = f.pending.view_histograms()) view_histograms_ = std::move(h);
        stages.insert(stages.end(), head, f.record.stages.end() - 1);
        if (auto t = renderer_.frame_timing(f.serial)) {
            stages.emplace_back("switch", t->switch_ms);  // to Vulkan's context, before render
            stages.emplace_back("render", t->gpu_ms);
        }
        stages.push_back(f.record.stages.back());
        f.record.stages = std::move(stages);
        timing_.add(std::move(f.record));
        in_flight_.pop_front();
    }
}

void Player::finish() {
    if (in_flight_.empty()) return;
    clFinish(cl_.queue());
    renderer_.wait_all();
    harvest(true);
}

}  // namespace vfx
