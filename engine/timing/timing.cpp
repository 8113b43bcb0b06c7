#include "timing/timing.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>

namespace vfx {

double FrameRecord::stage_ms(const std::string& name) const {
    for (const auto& [n, ms] : stages)
        if (n == name) return ms;
    return 0;
}

Summary summarize(std::vector<double> v) {
    Summary s;
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    s.count = v.size();
    s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    auto rank = [&](double p) {
        // Nearest rank: the smallest value with at least p% of the values at or below it.
        const auto n = static_cast<double>(v.size());
        auto k = static_cast<size_t>(std::ceil(p / 100.0 * n));
        return v[std::clamp<size_t>(k, 1, v.size()) - 1];
    };
    s.p50 = rank(50);
    s.p95 = rank(95);
    s.p99 = rank(99);
    s.min = v.front();
    s.max = v.back();
    return s;
}

void TimingLog::add(FrameRecord rec) {
    if (names_.empty()) names_.push_back("frame");
    for (const auto& [name, ms] : rec.stages)
        if (std::find(names_.begin(), names_.end(), name) == names_.end()) names_.push_back(name);
    records_.push_back(std::move(rec));
    ++total_;
    if (!keep_all_)
        while (records_.size() > ring_)
            records_.pop_front();
}

void TimingLog::clear() {
    records_.clear();
    names_.clear();
    total_ = 0;
}

Summary TimingLog::summary(const std::string& stage) const {
    std::vector<double> v;
    v.reserve(records_.size());
    for (const auto& r : records_) {
        if (stage == "frame") {
            v.push_back(r.frame_ms);
            continue;
        }
        for (const auto& [n, ms] : r.stages)
            if (n == stage) v.push_back(ms);
    }
    return summarize(std::move(v));
}

nlohmann::json TimingLog::to_json() const {
    nlohmann::json frames = nlohmann::json::array();
    for (const auto& r : records_) {
        nlohmann::json stages = nlohmann::json::object();
        for (const auto& [n, ms] : r.stages)
            stages[n] = ms;
        frames.push_back({{"index", r.index},
                          {"time_s", r.time_s},
                          {"frame_ms", r.frame_ms},
                          {"stages_ms", stages}});
    }
    nlohmann::json summary = nlohmann::json::object();
    for (const auto& name : names_) {
        Summary s = this->summary(name);
        summary[name] = {{"count", s.count}, {"mean", s.mean}, {"p50", s.p50}, {"p95", s.p95},
                         {"p99", s.p99},     {"min", s.min},   {"max", s.max}};
    }
    return {{"frames", frames}, {"summary", summary}};
}

void TimingWindow::update(const TimingLog& log) {
    if (frozen_ || (log.total_frames() == seen_total_ && !frame_ms_.empty())) return;
    seen_total_ = log.total_frames();
    stages_.clear();
    for (const std::string& n : log.stage_names())
        if (n != "frame") stages_.push_back(n);
    const auto& recs = log.records();
    const size_t count = std::min(capacity_, recs.size());
    const size_t ns = stages_.size();
    values_.assign(count * ns, 0.0);
    stacked_.assign(count, 0.0);
    frame_ms_.assign(count, 0.0);
    std::vector<std::vector<double>> per_stage(ns);
    max_stacked_ = 0;
    const size_t first = recs.size() - count;
    for (size_t f = 0; f < count; ++f) {
        const FrameRecord& r = recs[first + f];
        frame_ms_[f] = r.frame_ms;
        for (const auto& [name, ms] : r.stages) {
            const auto it = std::find(stages_.begin(), stages_.end(), name);
            if (it == stages_.end()) continue;
            const auto s = static_cast<size_t>(it - stages_.begin());
            values_[f * ns + s] += ms;
            per_stage[s].push_back(ms);
            stacked_[f] += ms;
        }
        max_stacked_ = std::max(max_stacked_, stacked_[f]);
    }
    summaries_.clear();
    for (auto& v : per_stage)
        summaries_.push_back(summarize(std::move(v)));
    frame_summary_ = summarize(frame_ms_);
}

}  // namespace vfx
