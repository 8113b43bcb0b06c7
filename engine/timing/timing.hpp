#pragma once
// Frame timing: each frame carries a record of how long each stage took (host clocks for decode
// and queueing, OpenCL profiling events for upload/convert/kernels, Vulkan timestamps for render,
// host clocks for present). The overlay and the report read finished records only, never live
// GPU state. Single-threaded: the session's frame loop owns the log.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace vfx {

struct FrameRecord {
    int64_t index = 0;
    double time_s = 0;                                   // presentation time of the frame
    std::vector<std::pair<std::string, double>> stages;  // stage name -> milliseconds, in order
    double frame_ms = 0;  // wall-clock interval since the previous frame was finished

    double stage_ms(const std::string& name) const;  // 0 when absent
};

struct Summary {
    size_t count = 0;
    double mean = 0, p50 = 0, p95 = 0, p99 = 0, min = 0, max = 0;
};

// Nearest-rank percentiles of `values` (any order). Empty input gives a zero summary.
Summary summarize(std::vector<double> values);

class TimingLog {
public:
    // keep_all: keep every record (for the report); otherwise only the last `ring` records.
    explicit TimingLog(size_t ring = 512, bool keep_all = false)
        : ring_(ring), keep_all_(keep_all) {}

    void add(FrameRecord rec);
    void clear();

    const std::deque<FrameRecord>& records() const { return records_; }
    size_t total_frames() const { return total_; }

    // Stage names in first-seen order (stable for plotting), plus "frame" for frame_ms.
    const std::vector<std::string>& stage_names() const { return names_; }

    // Summary of one stage over the kept records ("frame" = frame intervals).
    Summary summary(const std::string& stage) const;

    // {"frames": [...per-frame records...], "summary": {stage: {mean,p50,p95,p99,min,max,count}}}
    nlohmann::json to_json() const;

private:
    size_t ring_;
    bool keep_all_;
    size_t total_ = 0;
    std::deque<FrameRecord> records_;
    std::vector<std::string> names_;
};

// The overlay's live timeline: the last `capacity` frames of a TimingLog, one value per stage
// per frame, and the statistics of each stage over those frames. Frozen, it keeps what it
// has (the overlay's pause) while the log goes on. Single-threaded like the log.
class TimingWindow {
public:
    explicit TimingWindow(size_t capacity = 300) : capacity_(capacity) {}

    // Takes the log's latest records (cheap when nothing was added); nothing while frozen.
    void update(const TimingLog& log);
    void set_frozen(bool frozen) { frozen_ = frozen; }
    bool frozen() const { return frozen_; }
    size_t capacity() const { return capacity_; }

    // Frames in the window, oldest first.
    size_t frames() const { return frame_ms_.size(); }
    // Stage names in the log's first-seen order, without "frame".
    const std::vector<std::string>& stages() const { return stages_; }
    // Milliseconds of stage `s` in frame `f` (0 when the frame had no such stage).
    double ms(size_t f, size_t s) const { return values_[f * stages_.size() + s]; }
    // The sum of frame f's stages (the height of its stacked bar).
    double stacked_ms(size_t f) const { return stacked_[f]; }
    double frame_ms(size_t f) const { return frame_ms_[f]; }
    double max_stacked_ms() const { return max_stacked_; }
    // Per stage (index into stages()), over the frames of the window that had the stage.
    const std::vector<Summary>& summaries() const { return summaries_; }
    // The frame intervals of the window.
    const Summary& frame_summary() const { return frame_summary_; }

private:
    size_t capacity_;
    bool frozen_ = false;
    size_t seen_total_ = 0;
    std::vector<std::string> stages_;
    std::vector<double> values_;  // frames() x stages_.size(), row-major
    std::vector<double> stacked_, frame_ms_;
    double max_stacked_ = 0;
    std::vector<Summary> summaries_;
    Summary frame_summary_;
};

}  // namespace vfx
