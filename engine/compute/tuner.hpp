#pragma once
// Auto-tuning: a kernel's variant (build options such as pixels per work-item) and work-group
// shape, chosen per device and frame size by measurement, and cached on disk.
//
// Cache: one JSON file per device under $VFX_CACHE_DIR, else $XDG_CACHE_HOME/vfx, else
// ~/.cache/vfx: `tuning-<hash>.json`, the hash over device name + driver version + UUID (when
// the device has one), which the file also records in full. Entries map a key (kernel, the
// options that are not tuned, working format, frame size, and a hash of the labels of every
// candidate offered for those options and of the way they are measured: TunedKernel::key_of)
// to the winning candidate's label. A choice so stands only among the candidates it was
// measured among, and as it was measured: a build that offers another candidate list (a new
// shape, one dropped) or measures otherwise measures that kernel again. The file is
// rewritten (atomically: temp + rename) after every new measurement; an unreadable or foreign file
// is ignored with a warning.
//
// Every candidate of a kernel must compute exactly the same result (tests run each one: see
// Tuner::force), so the choice only ever changes speed.
#include <array>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "compute/cl_handle.hpp"
#include "core/error.hpp"

namespace vfx {

struct ClDeviceInfo;
class ClContext;

// FNV-1a, 64 bit: a hash that is the same in every build and run (unlike std::hash), for names
// of files derived from their content or key.
uint64_t stable_hash(std::string_view s);

enum class TuneMode : uint8_t {
    cached,  // use the cache; measure what it lacks (the default)
    retune,  // measure every key again on first use this run, and rewrite the cache
    fixed,   // no measurement: the first candidate that fits (tests, CPU smoke runs)
};

class Tuner {
public:
    // cache_dir empty: no disk cache (measurements live for this process only).
    Tuner(const ClDeviceInfo& dev, std::filesystem::path cache_dir);

    void set_mode(TuneMode m);
    TuneMode mode() const { return mode_; }
    // Wherever a candidate with exactly this label is offered, it is chosen without
    // measurement (tests of each variant), and choices() shows it. Empty: no forcing. Either
    // way this run's earlier choices are forgotten.
    void force(std::string label);

    // Candidates whose median after the first rounds is more than `ratio` times the best
    // one's are measured no further (default kDefaultPruneRatio; nullopt: every candidate
    // measured in every round).
    static constexpr double kDefaultPruneRatio = 1.3;
    void set_prune_ratio(std::optional<double> ratio);

    // Chooses among `labels` for `key`. run(i) must enqueue candidate i once (its arguments
    // set) on a profiling queue and return the command's event (TunedKernel's runs put a cache
    // eviction before it: ClContext::evict_caches); it is called only while
    // measuring: a warm-up burst of 2 runs back to back per candidate, then 11 rounds of one
    // such burst of every candidate, every second run timed; after 3 rounds, candidates far
    // behind the best (set_prune_ratio) leave the rounds; the lowest median wins.
    // A candidate whose run throws GpuError with CL_INVALID_WORK_GROUP_SIZE or
    // CL_OUT_OF_RESOURCES is skipped. Thread-safe; measuring blocks the caller.
    size_t choose(const std::string& key, std::span<const std::string> labels,
                  const std::function<ClEvent(size_t)>& run);

    // True when choose() would answer for `key` among `labels` without measuring.
    bool knows(const std::string& key, std::span<const std::string> labels) const;

    // Changes whenever set_mode() or force() does: holders of earlier choices ask again.
    // Lock-free.
    uint64_t generation() const { return generation_.load(); }

    // What was chosen this run, key -> label (for `vfx bench` and reports).
    std::map<std::string, std::string> choices() const;
    const std::filesystem::path& cache_file() const { return file_; }

    // The default cache folder (see above); empty when no home folder is known.
    static std::filesystem::path default_cache_dir();

private:
    void load();
    void save_locked();

    std::string device_key_;  // name, driver, uuid as recorded in the file
    std::filesystem::path file_;
    TuneMode mode_ = TuneMode::cached;
    std::string forced_;
    std::optional<double> prune_ratio_ = kDefaultPruneRatio;
    // Read without the lock: every enqueue asks, and choose() holds the lock while it measures
    // (a background chain build must not stall the render thread's enqueues).
    std::atomic<uint64_t> generation_{0};
    mutable std::mutex mutex_;
    std::map<std::string, std::string> cache_;   // from disk and measured
    std::map<std::string, std::string> chosen_;  // this run
};

// A kernel offered in several variants: each candidate is a set of extra build options, a
// work-group shape and the pixels one work-item covers along x and y. enqueue() builds the
// candidates for the frame's options on first use, lets the tuner choose one per (options,
// frame size), and launches it over ceil(width / per_item.x) x ceil(height / per_item.y)
// work-items rounded up to whole work-groups (or, where a candidate sets group_px, over
// ceil(width / group_px.x) groups across; where its options hold -DPG=N, over G = N groups per
// compute unit, or one per column of group_px.x pixels where that is more, as a grid of
// C = ceil(width / group_px.x) columns x ceil(G / C) groups, with G as the kernel's last
// argument (set here, after set_args): a kernel that shares the frame out itself, so that the
// grid is one wave of groups with equal work; group_px.x is required).
// Candidates whose shape the kernel cannot take (CL_KERNEL_WORK_GROUP_SIZE) or whose local memory
// does not fit are dropped before measuring. Not thread-safe: one instance per filter (kernel
// objects are not shared across threads).
struct KernelVariant {
    std::string options;                     // e.g. "-DPX=4"; may be empty
    std::array<size_t, 2> local{16, 16};     // work-group shape
    std::array<uint32_t, 2> per_item{1, 1};  // pixels per work-item along x, y
    // Whether the candidate is offered for a build with these common options (e.g. only for
    // RGBA8, or up to some radius); null: for every build. Not part of the label.
    std::function<bool(const std::string& options)> applies;
    // Pixels one work-group makes along x, y where that is less than local x per_item (its edge
    // work-items only feed their neighbours); 0: local x per_item. The launch covers the frame
    // with ceil(width / group_px.x) groups across.
    std::array<uint32_t, 2> group_px{0, 0};
    std::string label() const;  // "-DPX=4 16x16"
};

// The value of "-DNAME=value" among build options, if it is there and an integer.
std::optional<long> build_option(std::string_view options, std::string_view name);

class TunedKernel {
public:
    // `local_bytes(variant, options)`: bytes of __local memory the variant needs when built
    // with the common `options` (static arrays sized by build options included). A candidate
    // that needs more than the device has is dropped BEFORE it is built (a static __local
    // array too large for the device may fail the build). Null: only the kernel's static use,
    // read after building, is checked.
    using LocalBytes = std::function<size_t(const KernelVariant&, const std::string& options)>;
    using SetArgs = std::function<void(cl_kernel, std::array<size_t, 2> local)>;

    TunedKernel(std::string file, std::string kernel, std::vector<KernelVariant> variants,
                LocalBytes local_bytes = {});

    // Sets the arguments with set_args(kernel, local) and enqueues the chosen variant over a
    // width x height frame on `queue`, after `wait`. `options` are the build options common
    // to every variant (e.g. "-DWORK16=1 -DRADIUS=2"); they are part of the tuning key.
    ClEvent enqueue(ClContext& cl, cl_command_queue queue, const std::string& options,
                    uint32_t width, uint32_t height, const SetArgs& set_args,
                    std::span<const cl_event> wait = {});

    // Builds now what enqueue() will need for a width x height frame (the known choice, or
    // every candidate when the tuner is going to measure), so that a build failure comes before
    // any other work of the caller. Measures nothing.
    void prepare(ClContext& cl, const std::string& options, uint32_t width, uint32_t height);

    // The variant chosen for the last enqueue (for reports); null before the first.
    const KernelVariant* last_choice() const { return last_; }

private:
    struct Built;
    Built& built(ClContext& cl, const std::string& options);
    // The tuner's key of `b` at `size` (see the top of this file).
    std::string key_of(const Built& b, const std::string& size) const;
    // Compiles candidate t of `b` if it is not yet; false (and marked) if it does not fit.
    bool ensure(ClContext& cl, Built& b, size_t t);
    ClKernel compile(ClContext& cl, const Built& b, size_t t) const;
    void compile_all(ClContext& cl, Built& b);
    static std::vector<size_t> live(const Built& b);
    std::vector<std::string> labels_of(const Built& b, std::span<const size_t> ts) const;
    GpuError no_fit(const std::string& options) const;
    static void sync_generation(ClContext& cl, Built& b);
    // The candidate for `size`: a known choice (only it is compiled), else every candidate
    // compiled and measured with `run`; with no `run` (prepare) nullopt in that case.
    std::optional<size_t> resolve(ClContext& cl, Built& b, const std::string& size,
                                  const std::function<ClEvent(size_t)>* run);
    struct Built {
        std::string options;                   // the common build options
        std::vector<size_t> candidates;        // indices into variants_ within the local memory
        uint64_t offered = 0;                  // stable_hash of the candidates' labels
        std::vector<ClKernel> kernels;         // per candidate; empty until compiled
        std::vector<char> unfit;               // per candidate: compiled, does not fit the device
        std::map<std::string, size_t> choice;  // "WxH" -> index into candidates
        uint64_t generation = 0;               // the tuner's, when `choice` was filled
    };
    std::string file_, kernel_;
    std::vector<KernelVariant> variants_;
    LocalBytes local_bytes_;
    std::map<std::string, Built> built_;  // by common options
    const KernelVariant* last_ = nullptr;
};

}  // namespace vfx
