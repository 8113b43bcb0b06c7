#pragma once
// The player loop: one frame per step() — take the next decoded frame, pace it, run the OpenCL
// work into a SharedFrame, hand it to the renderer, and fold the frame's stage timings into the
// timing log once the GPUs have finished with it.
//
// Threading: everything here runs on the caller's (render) thread; only the source decodes on
// its own thread. Nothing waits for the GPU per frame on the external tier: the CL work is
// flushed, the render submission waits on the frame's semaphore on the GPU, and the renderer
// blocks only when the slot it needs is still in flight.
//
// Transport: pause, frame steps, seeks, speed and loop take effect on the next step(). Paused,
// step() re-runs the chain on the current frame and shows it again (no decode), so parameter
// changes and the overlay stay live. The last decoded frames stay in host memory (a cache of
// PlayerOptions::step_back_frames) for stepping back; a seek empties it.
//
// Live sources (StreamInfo::live: lavfi:, v4l2:): the source queue holds one frame and at most
// kLiveFramesInFlight frames are between leaving the queue and their render completing; before
// a third is processed the oldest is waited for. Capture-to-present latency is measured per
// frame (HostFrame::captured_at to the return of the render/present call).
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compute/chain.hpp"
#include "compute/kernel_watch.hpp"
#include "compute/processor.hpp"
#include "decode/source.hpp"
#include "interop/bridge.hpp"
#include "render/renderer.hpp"
#include "timing/timing.hpp"

namespace vfx {

struct PlayerOptions {
    SourceOptions source;
    std::string chain;                   // parsed before anything is opened
    std::string chain_origin = "chain";  // FrameProcessor::set_chain_origin
    uint32_t frames_in_flight = 3;       // SharedFrames between OpenCL and Vulkan (>= 2)
    int64_t max_frames = -1;             // stop after N frames (-1: whole input)
    bool paced = true;                   // present by timestamps on the real-time clock (else: as
                                         // fast as possible, `--clock fast`)
    double speed = 1;                    // paced playback speed, clamped to [kMinSpeed, kMaxSpeed]
    size_t step_back_frames = 30;        // decoded frames kept for stepping back...
    size_t step_back_bytes = size_t{512} << 20;  // ...within this much host memory (>= 2 kept)
    std::string kernels_dir;  // kernel hot reload: overrides in DIR, watched ("" = none)
    // Direct decode: the decoder writes into pinned blocks of a PinnedFramePool made on the
    // player's ClContext (compute/pinned_pool.hpp), which the upload reads by DMA without a
    // CPU copy; unless source.allocator is set already. false: FFmpeg's own buffers, copied.
    bool direct_decode = true;
    // At the end of the input (without loop), pause on the last frame instead of ending, as a
    // window does: the chain and its edits stay; a seek, or loop switched on, plays on from
    // there (un-pausing plays to the end again). false: step() returns false there (headless
    // runs).
    bool keep_open = false;
};

// A processed frame read back for a screenshot: the chain's output in the working format,
// before the renderer (no overlay, no scaling), with what is needed to show it upright.
struct CapturedFrame {
    FrameGeometry geometry;
    std::vector<uint8_t> pixels;  // geometry.size_bytes()
    int rotation = 0;             // degrees clockwise the picture is shown turned
    int64_t index = 0;
    double position_s = 0;
};

class Player {
public:
    static constexpr double kMinSpeed = 1.0 / 16, kMaxSpeed = 16;
    static constexpr size_t kLiveFramesInFlight = 2;

    // Parses the chain and opens the source (vfx::Error for either), builds the bridge.
    Player(const PlayerOptions& opts, ClContext& cl, VkContext& vk, Renderer& renderer,
           InteropTier tier);
    ~Player();
    Player(const Player&) = delete;
    Player& operator=(const Player&) = delete;

    // Shows the next frame (overlay drawn over it); paused, the current one again (or the one a
    // frame step or seek asked for). False at the end of the input while playing, or after
    // max_frames distinct frames.
    bool step(const OverlayFn& overlay = {});
    // Waits for every frame in flight and folds in their timings.
    void finish();

    const TimingLog& timing() const { return timing_; }
    const Chain& chain() const { return chain_; }
    // The chain to run (the overlay's editor): FrameProcessor::request_chain — from the next
    // frame on when every kernel it needs is built, else built in the background while the
    // current chain keeps running; frames already in flight keep theirs. chain() is the latest
    // chain asked for; build_status() says whether it is still building or was rejected.
    void set_chain(Chain chain);
    BuildStatus build_status() const { return processor_->build_status(); }
    // The overlay's additions to the frames shown (before/after histograms, split view).
    void set_view(const ViewOptions& v) { processor_->set_view(v); }
    const ViewOptions& view() const { return processor_->view(); }
    // The before/after histograms of the latest completed frame that had them.
    const std::optional<ViewHistograms>& view_histograms() const { return view_histograms_; }
    // The latest frame's size and sample aspect ratio (0 x 0 before the first).
    struct VideoSize {
        uint32_t width = 0, height = 0, sar_num = 1, sar_den = 1;
    };
    const VideoSize& video_size() const { return video_size_; }
    // --kernels-dir: the watched directory ("" when none).
    const std::string& kernels_dir() const { return opts_.kernels_dir; }
    const StreamInfo& stream() const { return source_->info(); }
    SourceStats source_stats() const { return source_->stats(); }
    // Frames uploaded straight from their pinned block (direct decode) and copied.
    FrameProcessor::UploadStats upload_stats() const { return processor_->upload_stats(); }
    const Bridge& bridge() const { return *bridge_; }
    int64_t frames_shown() const { return shown_; }  // distinct frames presented
    int64_t frames_dropped() const { return dropped_; }
    int64_t frames_rerendered() const { return rerendered_; }  // paused re-presentations

    // --- transport (effective on the next step()) ---
    void set_paused(bool paused);
    bool paused() const { return paused_; }
    // Pauses, then shows `n` frames on (from the cache, then the source) or -n back within the
    // cache, one per step(). Stepping back past the cache's oldest frame stays there.
    void step_frames(int n);
    // Seeks to `seconds` into the input (clamped to [0, duration]); the next step() shows the
    // first frame at or after it, also while paused. False (logged) for a live source.
    bool seek(double seconds);
    bool seek_by(double delta_s);  // from the current position (or a pending seek's target)
    void set_speed(double speed);  // clamped; live sources stay at 1
    double speed() const { return speed_; }
    void set_loop(bool loop);  // files only
    bool loop() const { return source_->loop(); }
    // The current frame's place in the input, and the input's length (0: unknown or live).
    double position_s() const;
    double duration_s() const { return stream().duration_s; }
    // Live sources: mean capture-to-present latency over the last frames; -1 otherwise or
    // before any frame.
    double latency_ms() const;
    size_t frames_in_flight() const { return in_flight_.size(); }
    size_t max_frames_in_flight() const { return max_in_flight_; }      // the most ever at once
    size_t frames_in_flight_limit() const { return in_flight_limit_; }  // 0: none (files)
    size_t cached_frames() const { return history_.size(); }

    // Screenshot: the next frame step() processes (a re-render when paused) is also read back
    // after the chain, before the renderer; take_capture() hands it over once.
    void request_capture() { capture_requested_ = true; }
    std::optional<CapturedFrame> take_capture() { return std::exchange(capture_, std::nullopt); }
    double fps() const;  // over the recent frames
    // The last frame's description, e.g. "1280x720 yuv420p, bt709 limited -> rgba8".
    const std::string& frame_description() const { return frame_desc_; }
    // The counts of the chain's histogram filter for the latest completed frame (nullopt
    // without one), for the overlay and the report.
    const std::optional<Histogram>& histogram() const { return histogram_; }

private:
    struct InFlight {
        FrameRecord record;  // host-side stages filled at submission
        size_t head = 2;     // leading host stages (decode, queue) before the OpenCL ones
        PendingFrame pending;
        uint64_t serial = 0;
    };
    void harvest(bool wait);
    // Where step() takes its frame from.
    enum class Pick { none, fresh, again, end };
    Pick pick_frame();
    Pick forward(bool stepping);
    bool pace(const HostFrame& frame);  // false: dropped (missed its slot)
    void render_frame(const HostFrame& frame, bool fresh, double queue_ms,
                      const OverlayFn& overlay);  // fresh: not shown the step() before
    void remember(HostFrame frame);               // into the step-back cache

    PlayerOptions opts_;
    ClContext& cl_;
    Renderer& renderer_;
    Chain chain_;
    std::unique_ptr<Source> source_;
    std::unique_ptr<FrameProcessor> processor_;
    std::unique_ptr<Bridge> bridge_;
    TimingLog timing_;
    std::deque<InFlight> in_flight_;
    int64_t shown_ = 0, dropped_ = 0, rerendered_ = 0;
    int drops_in_a_row_ = 0;
    size_t in_flight_limit_ = 0, max_in_flight_ = 0;

    std::deque<HostFrame> history_;  // the step-back cache, oldest first
    size_t history_bytes_ = 0;
    size_t cursor_ = 0;  // the current frame in history_
    bool paused_ = false;
    bool ended_ = false;  // paused by the end of the input (keep_open); a seek or loop resumes
    int steps_ = 0;       // pending frame steps (+ forward, - back)
    bool seek_pending_ = false;
    double seek_target_s_ = 0;
    double speed_ = 1;
    std::deque<double> latencies_;  // ms, the last few live frames
    bool from_source_ = false;      // the frame step() shows came from the source just now
    bool capture_requested_ = false;
    std::optional<CapturedFrame> capture_;
    std::string frame_desc_;
    std::optional<Histogram> histogram_;
    std::optional<ViewHistograms> view_histograms_;
    VideoSize video_size_;
    std::unique_ptr<KernelWatcher> kernel_watcher_;
    std::chrono::steady_clock::time_point next_kernel_poll_;

    using Clock = std::chrono::steady_clock;
    std::optional<Clock::time_point> clock_start_;  // reset: re-anchor on the next frame
    double first_time_s_ = 0;
    Clock::time_point last_done_;
    std::optional<Clock::time_point> resumed_at_;  // live: frames captured before are stale
};

}  // namespace vfx
