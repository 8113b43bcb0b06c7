#include "session/player.hpp"

#include <thread>

#include "core/error.hpp"
#include "core/log.hpp"

namespace vfx {

namespace {
using Clock = std::chrono::steady_clock;
double ms_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}
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
    source_ = Source::open(opts_.source);
    processor_ = std::make_unique<FrameProcessor>(cl, chain_);
    bridge_ = std::make_unique<Bridge>(cl, vk, tier, std::max<uint32_t>(2, opts_.frames_in_flight),
                                       [this](uint64_t serial) { renderer_.wait_frame(serial); });
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

bool Player::step(const OverlayFn& overlay) {
    harvest(false);
    if (kernel_watcher_ && Clock::now() >= next_kernel_poll_) {  // hot reload, twice a second
        next_kernel_poll_ = Clock::now() + std::chrono::milliseconds(500);
        if (auto changed = kernel_watcher_->poll(); !changed.empty())
            processor_->reload_kernels(std::move(changed));
    }
    if (opts_.max_frames >= 0 && shown_ >= opts_.max_frames) return false;

    const auto t_ask = Clock::now();
    std::optional<HostFrame> frame = source_->next();
    if (!frame) return false;
    const auto t_got = Clock::now();

    // Pacing: frame times map onto the real-time clock from an anchor. A frame more than one
    // interval late is dropped before any GPU work is spent on it, but never more than
    // kMaxDropsInARow in a row: then the clock re-anchors on the frame (the source is slower
    // than real time, e.g. a decoder that cannot keep up) and playback goes on from there. A
    // frame due more than kMaxWait ahead (a timestamp jump) re-anchors too, so the window
    // never stops polling its events for long.
    if (opts_.paced) {
        using Seconds = std::chrono::duration<double>;
        constexpr int kMaxDropsInARow = 8;
        constexpr double kMaxWait = 0.5;
        const auto now = Clock::now();
        auto due_of = [&](const HostFrame& fr) {
            return *clock_start_ +
                   std::chrono::duration_cast<Clock::duration>(Seconds(fr.time_s - first_time_s_));
        };
        if (!clock_start_ || Seconds(due_of(*frame) - now).count() > kMaxWait) {
            clock_start_ = now;
            first_time_s_ = frame->time_s;
        }
        const double interval = stream().fps > 0 ? 1.0 / stream().fps : 1.0 / 30;
        const double late = Seconds(now - due_of(*frame)).count();
        if (shown_ > 0 && late > interval) {
            if (++drops_in_a_row_ <= kMaxDropsInARow) {
                ++dropped_;
                return true;
            }
            clock_start_ = now;
            first_time_s_ = frame->time_s;
        }
        drops_in_a_row_ = 0;
        std::this_thread::sleep_until(due_of(*frame));
    }

    const FrameGeometry g =
        make_geometry(static_cast<uint32_t>(frame->width), static_cast<uint32_t>(frame->height),
                      frame->format.work_format());
    InFlight f;
    f.record.index = frame->index;
    f.record.time_s = frame->time_s;
    f.record.stages.emplace_back("decode", frame->decode_ms);
    f.record.stages.emplace_back("queue", ms_between(t_ask, t_got));

    Bridge::WriteTarget target = bridge_->begin_write(g);
    f.pending = processor_->enqueue(*frame, target.buffer, target.geometry);
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
    vf.sar_num = static_cast<uint32_t>(std::max(frame->sar_num, 1));
    vf.sar_den = static_cast<uint32_t>(std::max(frame->sar_den, 1));
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
    ++shown_;

    frame_desc_ =
        fmt::format("{}x{} {}{}, {} {} -> {}", frame->width, frame->height, frame->pixel_format,
                    frame->swscale_fallback ? " (swscale)" : "", to_string(frame->color.matrix),
                    to_string(frame->color.range), to_string(g.format));
    return true;
}

void Player::harvest(bool wait) {
    const uint64_t completed = wait ? renderer_.submitted_serial() : renderer_.completed_serial();
    while (!in_flight_.empty()) {
        InFlight& f = in_flight_.front();
        if (!wait && (f.serial > completed || !f.pending.complete())) break;
        if (wait) renderer_.wait_frame(f.serial);
        // Stage order in the record: decode, queue, the OpenCL stages, handover, render, present.
        std::vector<std::pair<std::string, double>> stages(f.record.stages.begin(),
                                                           f.record.stages.begin() + 2);
        for (const auto& st : f.pending.timings())
            stages.emplace_back(st.name, st.ms);
        if (auto h = f.pending.histogram()) histogram_ = std::move(h);
        if (auto h = f.pending.view_histograms()) view_histograms_ = std::move(h);
        stages.insert(stages.end(), f.record.stages.begin() + 2, f.record.stages.end() - 1);
        if (auto t = renderer_.timing_of(f.serial)) stages.emplace_back("render", *t);
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
