#pragma once
// The player loop: one frame per step() — take the next decoded frame, pace it, run the OpenCL
// work into a SharedFrame, hand it to the renderer, and fold the frame's stage timings into the
// timing log once the GPUs have finished with it.
//
// Threading: everything here runs on the caller's (render) thread; only the source decodes on
// its own thread. Nothing waits for the GPU per frame on the external tier: the CL work is
// flushed, the render submission waits on the frame's semaphore on the GPU, and the renderer
// blocks only when the slot it needs is still in flight.
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>

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
    std::string chain;              // parsed before anything is opened
    uint32_t frames_in_flight = 3;  // SharedFrames between OpenCL and Vulkan (>= 2)
    int64_t max_frames = -1;        // stop after N frames (-1: whole input)
    bool paced = true;              // present by timestamps on the real-time clock
    std::string kernels_dir;        // kernel hot reload: overrides in DIR, watched ("" = none)
};

class Player {
public:
    // Parses the chain and opens the source (vfx::Error for either), builds the bridge.
    Player(const PlayerOptions& opts, ClContext& cl, VkContext& vk, Renderer& renderer,
           InteropTier tier);
    ~Player();
    Player(const Player&) = delete;
    Player& operator=(const Player&) = delete;

    // Shows the next frame (overlay drawn over it). False at the end of the input.
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
    const Bridge& bridge() const { return *bridge_; }
    int64_t frames_shown() const { return shown_; }
    int64_t frames_dropped() const { return dropped_; }
    double fps() const;  // over the recent frames
    // The last frame's description, e.g. "1280x720 yuv420p, bt709 limited -> rgba8".
    const std::string& frame_description() const { return frame_desc_; }
    // The counts of the chain's histogram filter for the latest completed frame (nullopt
    // without one), for the overlay and the report.
    const std::optional<Histogram>& histogram() const { return histogram_; }

private:
    struct InFlight {
        FrameRecord record;  // host-side stages filled at submission
        PendingFrame pending;
        uint64_t serial = 0;
    };
    void harvest(bool wait);

    PlayerOptions opts_;
    ClContext& cl_;
    Renderer& renderer_;
    Chain chain_;
    std::unique_ptr<Source> source_;
    std::unique_ptr<FrameProcessor> processor_;
    std::unique_ptr<Bridge> bridge_;
    TimingLog timing_;
    std::deque<InFlight> in_flight_;
    int64_t shown_ = 0, dropped_ = 0;
    int drops_in_a_row_ = 0;
    std::string frame_desc_;
    std::optional<Histogram> histogram_;
    std::optional<ViewHistograms> view_histograms_;
    VideoSize video_size_;
    std::unique_ptr<KernelWatcher> kernel_watcher_;
    std::chrono::steady_clock::time_point next_kernel_poll_;

    using Clock = std::chrono::steady_clock;
    std::optional<Clock::time_point> clock_start_;
    double first_time_s_ = 0;
    Clock::time_point last_done_;
};

}  // namespace vfx
