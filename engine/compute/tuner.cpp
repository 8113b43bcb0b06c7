#include "compute/tuner.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <future>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

#include "compute/cl_args.hpp"
#include "compute/cl_context.hpp"
#include "core/error.hpp"

namespace vfx {

namespace {

// Runs per candidate: kWarmups bursts first, then kRounds timed ones in rounds (one burst of
// every candidate per round), so a drift of the device's clocks or of other work on it while the
// tuner measures weighs on every candidate alike instead of on whichever came last. A burst is
// kBurst runs queued back to back, every run but the first timed, so a candidate is measured
// right after a run of its own with no idle gap, as `vfx bench` and playback run a kernel (frame
// after frame), not after another candidate and a wait for the device to go idle. Single runs
// ranked box radius 5's candidates otherwise than the bench did (H100: the one chosen 0.0387 ms
// in the bench, one the tuner put 3 % behind it 0.0361). TunedKernel's runs each come after a
// copy through a buffer larger than the device's caches (ClContext::evict_caches; on a GPU
// about 1 ms a candidate on an H100, more on slower memory), so that a run reads its frame from
// DRAM as the bench's rotating buffers make it do; without it the timed run found much of its
// frame in L2, where the first run of its burst had just left it, and ranked candidates
// otherwise than the bench (the H200 of 2026-11-26 took unsharp's strips of 7 steps, 0.0318 ms
// in the bench; a candidate whose gain is DRAM latency hidden, such as demosaic's prefetch into
// L2, looked no faster). A copy, not a fill: it leaves L2 holding lines read and lines written,
// as the previous frame's kernel does in the bench and in playback, where a fill leaves it all
// written; after a fill the H200's tuner put the one-wave strips of the Gaussian and unsharp
// (gaussian.cl's PG) level with strips of 17 steps or behind them (the Gaussian 0.0294-0.0295
// ms against 0.0294-0.0295, the unsharp 0.0296-0.0299 against 0.0299-0.0300), where the bench
// has them 2 and 4 % ahead (0.0280-0.0286 against 0.0285-0.0299); after a copy it ranks them
// as the bench does, puts the Gaussian's within 1 % of their bench times (0.0282-0.0283 ms
// against 0.0280-0.0283, the strips of 17 steps 0.0287-0.0288 against 0.0285-0.0288), and
// picks as the bench would for demosaic (benchmarks/2026-11-28-s24; a read of the buffer
// instead ranked the strips alike but picked a bilinear demosaic 11 % slower in the bench).
// How candidates are measured, part of every tuning key (TunedKernel::key_of): choices made
// another way (before the runs evicted the caches, or after a fill) are measured again.
constexpr const char* kMethod = "bursts of 2 after a cache eviction by copy";
constexpr int kWarmups = 1;
constexpr int kRounds = 11;
constexpr int kBurst = 2;
// Rounds after which candidates far behind the best (Tuner::set_prune_ratio) stop being measured:
// most of a kernel's candidates lose by far more than the noise, and measuring them 11 times
// made most of the tuning time on the CPU.
constexpr int kPruneAfter = 3;
// Seconds of timed rounds (program builds and warm-ups not counted) after which a kernel's tuning
// ends at the pruning round instead of going on to kRounds: on a GPU every round of every kernel
// takes milliseconds and never comes near it; on a CPU device one run of oilpaint at 1080p takes a
// second, and the 11 rounds took 66 s of a first start (helper measurement, PoCL on 2 cores), which
// looks like a hang.
constexpr double kRoundsBudgetS = 2.0;

std::string uuid_text(const ClDeviceInfo& dev) {
    if (!dev.uuid) return {};
    std::string s;
    for (uint8_t b : *dev.uuid)
        s += fmt::format("{:02x}", b);
    return s;
}

}  // namespace

uint64_t stable_hash(std::string_view s) {
    uint64_t h = 1469598103934665603ull;
    for (char c : s) {
        h ^= static_cast<uint8_t>(c);
        h *= 1099511628211ull;
    }
    return h;
}

namespace {

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace

std::filesystem::path Tuner::default_cache_dir() {
    if (const char* d = std::getenv("VFX_CACHE_DIR"); d && *d) return d;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
        return std::filesystem::path(x) / "vfx";
    if (const char* h = std::getenv("HOME"); h && *h)
        return std::filesystem::path(h) / ".cache" / "vfx";
    return {};
}

Tuner::Tuner(const ClDeviceInfo& dev, std::filesystem::path cache_dir) {
    device_key_ = fmt::format("{} | {} | {}", dev.name, dev.driver_version, uuid_text(dev));
    if (!cache_dir.empty())
        file_ = cache_dir / fmt::format("tuning-{:016x}.json", stable_hash(device_key_));
    load();
}

void Tuner::set_mode(TuneMode m) {
    std::lock_guard lock(mutex_);
    mode_ = m;
    chosen_.clear();
    ++generation_;
}

void Tuner::force(std::string label) {
    std::lock_guard lock(mutex_);
    forced_ = std::move(label);
    chosen_.clear();  // what was chosen under the last forcing is no choice of this run
    ++generation_;
}

bool Tuner::knows(const std::string& key, std::span<const std::string> labels) const {
    std::lock_guard lock(mutex_);
    auto has = [&](const std::string& label) {
        return std::find(labels.begin(), labels.end(), label) != labels.end();
    };
    if (!forced_.empty() && has(forced_)) return true;
    if (mode_ == TuneMode::fixed || labels.size() <= 1) return true;
    if (auto it = chosen_.find(key); it != chosen_.end() && has(it->second)) return true;
    if (mode_ == TuneMode::cached)
        if (auto it = cache_.find(key); it != cache_.end() && has(it->second)) return true;
    return false;
}

std::map<std::string, std::string> Tuner::choices() const {
    std::lock_guard lock(mutex_);
    return chosen_;
}

void Tuner::set_prune_ratio(std::optional<double> ratio) {
    if (ratio && !(*ratio >= 1.0))
        throw std::invalid_argument(fmt::format("tuner: prune ratio {} is below 1", *ratio));
    std::lock_guard lock(mutex_);
    prune_ratio_ = ratio;
}

void Tuner::load() {
    if (file_.empty()) return;
    std::error_code ec;
    if (!std::filesystem::exists(file_, ec)) return;
    try {
        std::ifstream in(file_);
        const nlohmann::json j = nlohmann::json::parse(in);
        if (j.value("device", std::string()) != device_key_) {
            spdlog::warn("tuning cache {} belongs to another device; ignored", file_.string());
            return;
        }
        for (const auto& [k, v] : j.at("entries").items())
            cache_[k] = v.get<std::string>();
        spdlog::debug("tuning cache: {} entries from {}", cache_.size(), file_.string());
    } catch (const std::exception& e) {
        spdlog::warn("tuning cache {} is unreadable ({}); it will be rewritten", file_.string(),
                     e.what());
        cache_.clear();
    }
}

void Tuner::save_locked() {
    if (file_.empty()) return;
    try {
        std::filesystem::create_directories(file_.parent_path());
        nlohmann::json j;
        j["device"] = device_key_;
        j["entries"] = cache_;
        const std::filesystem::path tmp = file_.string() + ".tmp";
        {
            std::ofstream out(tmp, std::ios::trunc);
            out << j.dump(2) << '\n';
            if (!out) throw std::runtime_error("write failed");
        }
        std::filesystem::rename(tmp, file_);
    } catch (const std::exception& e) {
        // The cache only saves time on the next start: a read-only home must not stop a run.
        spdlog::warn("cannot write the tuning cache {}: {}", file_.string(), e.what());
    }
}

size_t Tuner::choose(const std::string& key, std::span<const std::string> labels,
                     const std::function<ClEvent(size_t)>& run) {
    if (labels.empty()) fail("tuner: no candidates for {}", key);
    std::lock_guard lock(mutex_);
    auto index_of = [&](const std::string& label) -> std::optional<size_t> {
        for (size_t i = 0; i < labels.size(); ++i)
            if (labels[i] == label) return i;
        return std::nullopt;
    };
    if (!forced_.empty())
        if (auto i = index_of(forced_)) {
            chosen_[key] = forced_;  // (choices() shows what ran; the cache keeps measurements)
            return *i;
        }
    if (mode_ == TuneMode::fixed || labels.size() == 1) return 0;
    if (auto it = chosen_.find(key); it != chosen_.end())
        if (auto i = index_of(it->second)) return *i;
    if (mode_ == TuneMode::cached)
        if (auto it = cache_.find(key); it != cache_.end())
            if (auto i = index_of(it->second)) {
                chosen_[key] = it->second;
                return *i;
            }

    // One burst of candidate i, waited for: the times in ms of its runs but the first, or
    // nullopt when the device refuses the candidate's shape or resources.
    auto time_burst = [&](size_t i) -> std::optional<std::vector<double>> {
        try {
            std::vector<ClEvent> evs;
            for (int b = 0; b < kBurst; ++b)
                evs.push_back(run(i));
            cl_event last = evs.back().get();
            VFX_CL(clWaitForEvents(1, &last));
            std::vector<double> t;
            for (size_t b = 1; b < evs.size(); ++b)
                t.push_back(cl_event_ms(evs[b].get()));
            return t;
        } catch (const GpuError& e) {
            if (e.code() != CL_INVALID_WORK_GROUP_SIZE && e.code() != CL_OUT_OF_RESOURCES &&
                e.code() != CL_INVALID_KERNEL_ARGS)
                throw;
            return std::nullopt;
        }
    };
    std::vector<std::vector<double>> ms(labels.size());
    enum State : char { skipped, measured, pruned };
    std::vector<State> state(labels.size(), measured);
    // The median of every candidate in state `of`, +infinity for the others.
    auto medians = [&](State of) {
        std::vector<double> m(labels.size(), std::numeric_limits<double>::infinity());
        for (size_t i = 0; i < labels.size(); ++i)
            if (state[i] == of) m[i] = median_of(ms[i]);
        return m;
    };
    for (size_t i = 0; i < labels.size(); ++i)
        for (int r = 0; r < kWarmups && state[i] == measured; ++r)
            if (!time_burst(i)) state[i] = skipped;
    // From here: the warm-ups built every candidate's program, which the budget must not count.
    const auto started = std::chrono::steady_clock::now();
    int rounds = 0;
    for (int r = 0; r < kRounds; ++r) {
        if (r == kPruneAfter && prune_ratio_) {
            const std::vector<double> m = medians(measured);
            const double lead = *std::min_element(m.begin(), m.end());
            for (size_t i = 0; i < labels.size(); ++i)
                if (state[i] == measured && m[i] > *prune_ratio_ * lead) state[i] = pruned;
        }
        if (r == kPruneAfter &&
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() >
                kRoundsBudgetS)
            break;
        ++rounds;
        for (size_t i = 0; i < labels.size(); ++i)
            if (state[i] == measured) {
                if (auto t = time_burst(i))
                    ms[i].insert(ms[i].end(), t->begin(), t->end());
                else
                    state[i] = skipped;
            }
    }
    const std::vector<double> fin = medians(measured);
    const std::vector<double> left = medians(pruned);
    std::string report;
    for (size_t i = 0; i < labels.size(); ++i) {
        if (state[i] == skipped)
            report += fmt::format(" {}: skipped;", labels[i]);
        else if (state[i] == pruned)
            report += fmt::format(" {}: {:.4f} ms (left after {} rounds);", labels[i], left[i],
                                  kPruneAfter);
        else
            report += fmt::format(" {}: {:.4f} ms;", labels[i], fin[i]);
    }
    // The lowest median of the candidates measured to the end; of those left early only if
    // none was (every one refused later in the rounds).
    size_t best = labels.size();
    for (const std::vector<double>* m : {&fin, &left}) {
        const auto it = std::min_element(m->begin(), m->end());
        if (*it != std::numeric_limits<double>::infinity()) {
            best = static_cast<size_t>(it - m->begin());
            break;
        }
    }
    if (best == labels.size()) fail("tuner: no candidate of {} could run", key);
    spdlog::debug("tuned {} ->{} chose {} ({} rounds)", key, report, labels[best], rounds);
    chosen_[key] = labels[best];
    cache_[key] = labels[best];
    save_locked();
    return best;
}

// ---- TunedKernel ----

std::optional<long> build_option(std::string_view options, std::string_view name) {
    const std::string key = fmt::format("-D{}=", name);
    size_t at = 0;
    while ((at = options.find(key, at)) != std::string_view::npos) {
        if (at == 0 || options[at - 1] == ' ') {
            const std::string_view rest = options.substr(at + key.size());
            long v = 0;
            const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), v);
            if (ec == std::errc() && (end == rest.data() + rest.size() || *end == ' ')) return v;
            return std::nullopt;
        }
        at += key.size();
    }
    return std::nullopt;
}

std::string KernelVariant::label() const {
    return fmt::format("{}{}{}x{}{}", options, options.empty() ? "" : " ", local[0], local[1],
                       per_item[0] * per_item[1] > 1
                           ? fmt::format(" px{}x{}", per_item[0], per_item[1])
                           : std::string());
}

TunedKernel::TunedKernel(std::string file, std::string kernel, std::vector<KernelVariant> variants,
                         LocalBytes local_bytes)
    : file_(std::move(file)),
      kernel_(std::move(kernel)),
      variants_(std::move(variants)),
      local_bytes_(std::move(local_bytes)) {
    if (variants_.empty()) fail("{}: no kernel variants", kernel_);
}

std::string TunedKernel::key_of(const Built& b, const std::string& size) const {
    return fmt::format("{}:{} [{}] {} #{:016x}", file_, kernel_, b.options, size, b.offered);
}

std::vector<size_t> TunedKernel::live(const Built& b) {
    std::vector<size_t> out;
    for (size_t t = 0; t < b.candidates.size(); ++t)
        if (!b.unfit[t]) out.push_back(t);
    return out;
}

std::vector<std::string> TunedKernel::labels_of(const Built& b, std::span<const size_t> ts) const {
    std::vector<std::string> labels;
    for (size_t t : ts)
        labels.push_back(variants_[b.candidates[t]].label());
    return labels;
}

void TunedKernel::prepare(ClContext& cl, const std::string& options, uint32_t width,
                          uint32_t height) {
    Built& b = built(cl, options);
    sync_generation(cl, b);
    const std::string size = fmt::format("{}x{}", width, height);
    if (b.choice.count(size)) return;
    if (const std::optional<size_t> t = resolve(cl, b, size, nullptr)) b.choice.emplace(size, *t);
}

void TunedKernel::sync_generation(ClContext& cl, Built& b) {
    if (const uint64_t gen = cl.tuner().generation(); gen != b.generation) {
        b.choice.clear();
        b.generation = gen;
    }
}

std::optional<size_t> TunedKernel::resolve(ClContext& cl, Built& b, const std::string& size,
                                           const std::function<ClEvent(size_t)>* run) {
    const std::string key = key_of(b, size);
    for (;;) {
        std::vector<size_t> ts = live(b);
        if (ts.empty()) throw no_fit(b.options);
        std::vector<std::string> labels = labels_of(b, ts);
        if (!cl.tuner().knows(key, labels)) {
            // Measuring blocks: a thread that must not wait (the render thread trying a chain
            // change in a CacheOnlyScope) hands the change to the background.
            if (ClContext::cache_only())
                throw ProgramNotCached(
                    fmt::format("{}: the variant for {} is not chosen yet", kernel_, size));
            compile_all(cl, b);
            if (!run) return std::nullopt;  // prepare(): the measuring is enqueue()'s
            ts = live(b);
            if (ts.empty()) throw no_fit(b.options);
            labels = labels_of(b, ts);
        }
        // Measurement runs wait for whatever the queue holds before them (in-order queue).
        const size_t pick = cl.tuner().choose(key, labels, [&](size_t i) -> ClEvent {
            if (!run)  // only if the mode changed since knows(): the next enqueue measures
                throw GpuError(fmt::format("{}: not measured yet", kernel_), CL_INVALID_OPERATION);
            return (*run)(ts[i]);
        });
        if (ensure(cl, b, ts[pick])) return ts[pick];
        // A fixed, forced or cached choice that does not fit this device: ask again without it
        // (said, so that a test forcing every candidate in turn shows which it could not run).
        spdlog::debug("{} [{}]: {} does not fit this device; choosing again without it", kernel_,
                      b.options, labels[pick]);
    }
}

GpuError TunedKernel::no_fit(const std::string& options) const {
    return GpuError(fmt::format("{} ({}): no variant fits this device's work-group or local "
                                "memory limits",
                                kernel_, options),
                    CL_OUT_OF_RESOURCES);
}

TunedKernel::Built& TunedKernel::built(ClContext& cl, const std::string& options) {
    auto it = built_.find(options);
    if (it != built_.end()) return it->second;
    Built b;
    b.options = options;
    const size_t avail_local = cl.info().local_mem_bytes;
    for (size_t i = 0; i < variants_.size(); ++i) {
        const KernelVariant& v = variants_[i];
        if ((!v.applies || v.applies(options)) &&
            (!local_bytes_ || local_bytes_(v, options) <= avail_local))
            b.candidates.push_back(i);
    }
    if (b.candidates.empty()) throw no_fit(options);
    std::string labels = kMethod;
    for (size_t i : b.candidates)
        labels += '\n' + variants_[i].label();
    b.offered = stable_hash(labels);
    b.kernels.resize(b.candidates.size());
    b.unfit.assign(b.candidates.size(), 0);
    return built_.emplace(options, std::move(b)).first->second;
}

ClKernel TunedKernel::compile(ClContext& cl, const Built& b, size_t t) const {
    const KernelVariant& v = variants_[b.candidates[t]];
    return cl.kernel(file_, kernel_.c_str(),
                     v.options.empty() ? b.options : fmt::format("{} {}", b.options, v.options));
}

bool TunedKernel::ensure(ClContext& cl, Built& b, size_t t) {
    if (b.unfit[t]) return false;
    if (b.kernels[t]) return true;
    ClKernel k = compile(cl, b, t);
    const KernelVariant& v = variants_[b.candidates[t]];
    const size_t avail_local = cl.info().local_mem_bytes;
    const size_t need = local_bytes_ ? local_bytes_(v, b.options) : 0;
    const size_t local = std::max(kernel_static_local(k.get(), cl.device()), need);
    if (v.local[0] * v.local[1] > kernel_max_group(k.get(), cl.device()) || local > avail_local) {
        b.unfit[t] = 1;
        return false;
    }
    b.kernels[t] = std::move(k);
    return true;
}

void TunedKernel::compile_all(ClContext& cl, Built& b) {
    // Side by side: a first start on a new device compiles every candidate before measuring.
    // Never under a CacheOnlyScope (the caller has checked): the scope is per thread and would
    // not reach the helpers. Candidates that differ only in work-group shape share a program,
    // so each distinct program is compiled once, by at most as many threads as cores.
    std::vector<size_t> todo;
    std::map<std::string, size_t> programs;  // build options -> the first candidate needing it
    for (size_t t = 0; t < b.candidates.size(); ++t) {
        if (b.unfit[t] || b.kernels[t]) continue;
        todo.push_back(t);
        programs.emplace(variants_[b.candidates[t]].options, t);
    }
    std::vector<size_t> first;
    for (const auto& [opts, t] : programs)
        first.push_back(t);
    const size_t width = std::max<size_t>(1, std::thread::hardware_concurrency());
    std::exception_ptr first_error;
    for (size_t at = 0; at < first.size(); at += width) {
        std::vector<std::future<ClKernel>> pending;
        for (size_t i = at; i < std::min(first.size(), at + width); ++i)
            pending.push_back(
                std::async(std::launch::async, [&, t = first[i]] { return compile(cl, b, t); }));
        for (auto& f : pending) {  // wait for all before rethrowing: they use `cl` and `b`
            try {
                (void)f.get();  // the program is cached in `cl` now
            } catch (...) {
                if (!first_error) first_error = std::current_exception();
            }
        }
        if (first_error) std::rethrow_exception(first_error);
    }
    for (size_t t : todo)  // from the cache: the kernel objects and their fit
        (void)ensure(cl, b, t);
}

ClEvent TunedKernel::enqueue(ClContext& cl, cl_command_queue queue, const std::string& options,
                             uint32_t width, uint32_t height, const SetArgs& set_args,
                             std::span<const cl_event> wait) {
    Built& b = built(cl, options);
    sync_generation(cl, b);
    auto launch = [&](size_t t, std::span<const cl_event> after) {
        if (!ensure(cl, b, t))  // the tuner skips a candidate that reports this
            throw GpuError(fmt::format("{}: {} does not fit this device", kernel_,
                                       variants_[b.candidates[t]].label()),
                           CL_INVALID_WORK_GROUP_SIZE);
        const KernelVariant& v = variants_[b.candidates[t]];
        cl_kernel k = b.kernels[t].get();
        set_args(k, v.local);
        // Work-items along each axis: ceil(size / per_item), or whole groups of group_px.
        auto items = [&](uint32_t size, int a) -> size_t {
            if (v.group_px[a] != 0) return (size + v.group_px[a] - 1) / v.group_px[a] * v.local[a];
            return (size + v.per_item[a] - 1) / v.per_item[a];
        };
        if (const auto pg = build_option(v.options, "PG"); pg && *pg > 0) {
            // G = N groups per compute unit, or one per column of group_px.x pixels if there
            // are more, as columns x ceil(G / columns) groups; G is the kernel's last argument.
            if (v.group_px[0] == 0)
                throw std::logic_error(
                    fmt::format("{}: PG candidate {} has no group_px.x", kernel_, v.label()));
            // (At least one column: a frame 0 wide launches groups that write nothing.)
            const size_t cols = std::max<size_t>((width + v.group_px[0] - 1) / v.group_px[0], 1);
            const size_t groups = std::max<size_t>(
                static_cast<size_t>(*pg) * std::max(cl.info().compute_units, 1u), cols);
            const cl_int g = static_cast<cl_int>(groups);
            cl_uint nargs = 0;
            VFX_CL(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, nullptr));
            if (nargs == 0)
                throw std::logic_error(fmt::format(
                    "{}: PG candidate {} has no argument for the group count", kernel_, v.label()));
            VFX_CL(clSetKernelArg(k, nargs - 1, sizeof g, &g));
            return enqueue_2d(queue, k, cols * v.local[0], (groups + cols - 1) / cols * v.local[1],
                              v.local, after);
        }
        return enqueue_2d(queue, k, items(width, 0), items(height, 1), v.local, after);
    };
    const std::string size = fmt::format("{}x{}", width, height);
    auto c = b.choice.find(size);
    if (c == b.choice.end()) {
        // Only what is needed is compiled: every candidate when the tuner is going to measure,
        // else (a cached, fixed or forced choice) just the chosen one.
        // Each measuring run reads its frame from DRAM, as the bench's do (top of this file):
        // it waits on a copy that empties the caches, whose scratch goes when measuring ends.
        const std::function<ClEvent(size_t)> run = [&](size_t t) {
            const ClEvent evicted = cl.evict_caches(queue, wait);
            if (!evicted) return launch(t, wait);
            std::vector<cl_event> after(wait.begin(), wait.end());
            after.push_back(evicted.get());
            return launch(t, after);
        };
        struct ScratchGone {
            ClContext& cl;
            ~ScratchGone() { cl.release_eviction_scratch(); }
        } scratch_gone{cl};
        c = b.choice.emplace(size, *resolve(cl, b, size, &run)).first;
    }
    last_ = &variants_[b.candidates[c->second]];
    return launch(c->second, wait);
}

}  // namespace vfx
