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

}  // namespace vfx
