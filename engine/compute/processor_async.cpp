// FrameProcessor's live changes for the player's overlay: chains built in the background and
// swapped in, kernel hot reload, and the view additions (before/after histograms, split view).
// The synchronisation contract is in processor.hpp ("Live changes").
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

extern "C" {
#include <libavutil/frame.h>
}

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>

#include "compute/cl_args.hpp"
#include "compute/isp_common.hpp"
#include "compute/processor.hpp"
#include "core/error.hpp"

namespace vfx {

namespace {

// Warm-ups run over a blank frame of the size of the frames being played (kernels are built per
// working format and options; tuned kernels also choose their variant per frame size, by
// measurement, which must happen in the warm-up rather than on the frame that swaps in).

// A blank frame of format `sf` (zero samples), over an AVFrame that points into memory the
// frame owns.
HostFrame blank_frame(const SourceFormat& sf, int w, int h) {
    const size_t b = sf.bytes;
    const size_t cw =
        (static_cast<size_t>(w) + (size_t{1} << sf.chroma_w_log2) - 1) >> sf.chroma_w_log2;
    const size_t ch =
        (static_cast<size_t>(h) + (size_t{1} << sf.chroma_h_log2) - 1) >> sf.chroma_h_log2;
    const size_t uw = static_cast<size_t>(w), uh = static_cast<size_t>(h);
    std::vector<std::pair<size_t, size_t>> planes;  // row bytes, rows
    switch (sf.layout) {
        case PlaneLayout::yuv_planar:
            planes = {{uw * b, uh}, {cw * b, ch}, {cw * b, ch}};
            break;
        case PlaneLayout::yuv_semiplanar:
            planes = {{uw * b, uh}, {2 * cw * b, ch}};
            break;
        case PlaneLayout::yuyv:
            planes = {{(uw + 1) / 2 * 4 * b, uh}};
            break;
        case PlaneLayout::rgba:
            planes = {{4 * uw * b, uh}};
            break;
        case PlaneLayout::gray:
            planes = {{uw * b, uh}};
            break;
    }
    auto memory = std::make_shared<std::vector<std::vector<uint8_t>>>();
    AVFrame* av = av_frame_alloc();
    if (!av) throw std::bad_alloc();
    for (size_t i = 0; i < planes.size(); ++i) {
        memory->emplace_back(planes[i].first * planes[i].second, uint8_t{0});
        av->data[i] = memory->back().data();
        av->linesize[i] = static_cast<int>(planes[i].first);
    }
    HostFrame f;
    f.av = std::shared_ptr<AVFrame>(av, [memory](AVFrame* p) { av_frame_free(&p); });
    f.format = sf;
    f.width = w;
    f.height = h;
    return f;
}

}  // namespace

// ---- the background worker ----

struct FrameProcessor::Background {
    struct Job {
        uint64_t serial = 0;
        std::optional<Chain> chain;  // the chain to make and warm (the latest request)
        std::optional<SourceFormat> format;
        std::pair<int, int> size{32, 32};                           // of the frames being played
        std::vector<std::string> reload;                            // kernel files to reload first
        std::vector<std::pair<std::string, std::string>> programs;  // (file, options) to build
    };
    struct Ready {
        uint64_t serial = 0;
        std::unique_ptr<FrameProcessor> warmed;  // its chain_ and stages_ are taken over
    };

    explicit Background(ClContext& c) : cl(c) {}
    ~Background() {
        {
            std::lock_guard lock(mutex);
            stop = true;
        }
        cv.notify_all();
        if (worker.joinable()) worker.join();
    }

    // Render thread: queues `job`, merged into a queued one (the newer chain wins; files and
    // programs add up).
    void post(Job job) {
        {
            std::lock_guard lock(mutex);
            if (!queued) {
                queued = std::move(job);
            } else {
                if (job.chain) {
                    queued->serial = job.serial;
                    queued->chain = std::move(job.chain);
                    queued->format = job.format;
                }
                for (auto& f : job.reload)
                    if (std::find(queued->reload.begin(), queued->reload.end(), f) ==
                        queued->reload.end())
                        queued->reload.push_back(std::move(f));
                for (auto& p : job.programs)
                    queued->programs.push_back(std::move(p));
            }
            if (!worker.joinable()) worker = std::thread([this] { run(); });
        }
        cv.notify_all();
    }

    bool idle() {
        std::lock_guard lock(mutex);
        return !queued && !busy && !ready;
    }

    void run() {
        std::unique_ptr<FrameProcessor> builder;  // this thread's private processor
        for (;;) {
            Job job;
            {
                std::unique_lock lock(mutex);
                cv.wait(lock, [&] { return stop || (queued && !hold); });
                if (stop) return;
                job = std::move(*queued);
                queued.reset();
                busy = true;
            }
            std::optional<std::string> kernel_result;  // set when a reload ran: "" or the error
            std::string program_error;
            if (!job.reload.empty()) {
                try {
                    cl.reload(job.reload);
                    kernel_result = "";
                } catch (const std::exception& e) {
                    kernel_result = e.what();
                    spdlog::warn("kernel reload failed; the last good kernels keep running: {}",
                                 e.what());
                }
            }
            for (const auto& [file, options] : job.programs) {
                try {
                    cl.program(file, options);
                } catch (const std::exception& e) {
                    program_error = fmt::format("the overlay's {}: {}", file, e.what());
                }
            }
            std::optional<Ready> made;
            std::string chain_error;
            if (job.chain && job.format) {
                try {
                    if (!builder) builder.reset(new FrameProcessor(cl, Private{}));
                    builder->warm(std::move(*job.chain), *job.format, job.size, /*wait=*/true);
                    made = Ready{job.serial, std::move(builder)};
                } catch (const std::exception& e) {
                    chain_error = e.what();
                    builder.reset();  // its state is unknown after a failure part-way
                }
            }
            {
                std::lock_guard lock(mutex);
                busy = false;
                if (kernel_result) {
                    kernel_error = *kernel_result;
                    if (kernel_result->empty()) {
                        ++reloads;
                        last_reload = fmt::format("{}", fmt::join(job.reload, ", "));
                        reset_own_kernels = true;
                    }
                }
                if (!program_error.empty()) kernel_error = program_error;
                if (job.chain) {
                    chain_error_ = chain_error;
                    if (made) ready = std::move(made);
                }
            }
            cv.notify_all();
        }
    }

    ClContext& cl;
    mutable std::mutex mutex;
    std::condition_variable cv;
    std::thread worker;
    // Guarded by mutex:
    bool stop = false, hold = false, busy = false;
    std::optional<Job> queued;
    std::optional<Ready> ready;
    bool reset_own_kernels = false;  // a reload succeeded: remake the conversion kernels
    std::string chain_error_, kernel_error, last_reload;
    uint64_t reloads = 0;

    // Render thread only:
    uint64_t requested = 0, running = 0;  // request serials
    std::optional<Chain> desired;         // the latest chain asked for
    std::unique_ptr<FrameProcessor> probe;
    std::set<std::string> programs_asked;  // view programs handed to the worker
};

void FrameProcessor::BackgroundDeleter::operator()(Background* b) const {
    delete b;
}

FrameProcessor::FrameProcessor(ClContext& cl, Private) : FrameProcessor(cl, Chain{}) {
    own_queue_ = cl_.make_queue(CL_QUEUE_PROFILING_ENABLE);
}

void FrameProcessor::warm(Chain chain, const SourceFormat& sf, std::pair<int, int> size,
                          bool wait) {
    chain_ = std::move(chain);
    make_filters();
    const auto [w, h] = size;
    const HostFrame f = blank_frame(sf, w, h);
    const FrameGeometry g =
        make_geometry(static_cast<uint32_t>(w), static_cast<uint32_t>(h), sf.work_format());
    if (!warm_target_ || warm_target_bytes_ < g.size_bytes()) {
        warm_target_ = cl_.buffer(CL_MEM_READ_WRITE, g.size_bytes());
        warm_target_bytes_ = g.size_bytes();
    }
    PendingFrame p = enqueue(f, warm_target_.get(), g);
    if (wait) p.wait();
}

void FrameProcessor::adopt(FrameProcessor& warmed) {
    chain_ = std::move(warmed.chain_);
    chain_origin_ = "chain";
    stages_ = std::move(warmed.stages_);
    warmed.chain_ = Chain{};
    if (warmed.fuse_ != fuse_) make_filters();  // fusion off (benchmarks): not what was warmed
}

void FrameProcessor::before_enqueue(const HostFrame& frame) {
    last_format_ = frame.format;
    last_size_ = {frame.width, frame.height};
    if (!bg_) return;
    std::optional<Background::Ready> ready;
    bool reset = false;
    {
        std::lock_guard lock(bg_->mutex);
        ready = std::move(bg_->ready);
        bg_->ready.reset();
        reset = std::exchange(bg_->reset_own_kernels, false);
    }
    if (reset) {  // the reload rebuilt every cached program: make the kernels again from them
        convert_.clear();
        mono_.clear();
        view_kernels_.clear();
        bg_->programs_asked.clear();  // one that failed to build may build now
    }
    if (ready && ready->serial > bg_->running) {
        adopt(*ready->warmed);
        bg_->running = ready->serial;
        // The emptied private processor is released here (its warm-up completed); the worker
        // makes a new one for its next job.
    }
}

ChainRequest FrameProcessor::request_chain(Chain chain) {
    if (!bg_) bg_.reset(new Background(cl_));
    Background& bg = *bg_;
    const uint64_t serial = ++bg.requested;
    bg.desired = chain;
    if (!last_format_) {  // nothing ran yet: the first frame builds what it needs (start-up)
        try {
            set_chain(std::move(chain));
        } catch (const std::exception& e) {
            std::lock_guard lock(bg.mutex);
            bg.chain_error_ = e.what();
            return ChainRequest::failed;
        }
        bg.running = serial;
        return ChainRequest::applied;
    }
    if (bg.idle()) {
        try {
            ClContext::CacheOnlyScope cache_only;
            if (!bg.probe) bg.probe.reset(new FrameProcessor(cl_, Private{}));
            bg.probe->warm(chain, *last_format_, last_size_, /*wait=*/false);
            adopt(*bg.probe);
            bg.running = serial;
            std::lock_guard lock(bg.mutex);
            bg.chain_error_.clear();
            return ChainRequest::applied;
        } catch (const ProgramNotCached&) {
            // Goes to the worker below.
        } catch (const std::exception& e) {
            bg.probe.reset();  // its state is unknown after a failure part-way
            std::lock_guard lock(bg.mutex);
            bg.chain_error_ = e.what();
            return ChainRequest::failed;
        }
    }
    Background::Job job;
    job.serial = serial;
    job.chain = std::move(chain);
    job.format = last_format_;
    job.size = last_size_;
    bg.post(std::move(job));
    return ChainRequest::building;
}

void FrameProcessor::reload_kernels(std::vector<std::string> files) {
    if (files.empty()) return;
    if (!bg_) bg_.reset(new Background(cl_));
    Background& bg = *bg_;
    Background::Job job;
    job.reload = std::move(files);
    if (last_format_) {  // remake the chain that should run from the reloaded programs
        job.serial = ++bg.requested;
        job.chain = bg.desired ? *bg.desired : chain_;
        job.format = last_format_;
        job.size = last_size_;
    }
    bg.post(std::move(job));
}

BuildStatus FrameProcessor::build_status() const {
    BuildStatus s;
    if (!bg_) return s;
    std::lock_guard lock(bg_->mutex);
    s.building = bg_->queued.has_value() || bg_->busy;
    s.chain_error = bg_->chain_error_;
    s.kernel_error = bg_->kernel_error;
    s.reloads = bg_->reloads;
    s.last_reload = bg_->last_reload;
    return s;
}

void FrameProcessor::wait_background() {
    if (!bg_) return;
    std::unique_lock lock(bg_->mutex);
    if (bg_->hold && bg_->queued) fail("wait_background: background work is held");
    bg_->cv.wait(lock, [&] { return !bg_->queued && !bg_->busy; });
}

void FrameProcessor::hold_background(bool hold) {
    if (!bg_) bg_.reset(new Background(cl_));
    {
        std::lock_guard lock(bg_->mutex);
        bg_->hold = hold;
    }
    bg_->cv.notify_all();
}

// ---- the view: before/after histograms, split view ----

std::optional<ViewHistograms> PendingFrame::view_histograms() const {
    if (!before_ || !after_ || !complete()) return std::nullopt;
    ViewHistograms h;
    std::memcpy(h.before.counts.data(), before_->host, sizeof(h.before.counts));
    std::memcpy(h.after.counts.data(), after_->host, sizeof(h.after.counts));
    return h;
}

void FrameProcessor::enqueue_view(PendingFrame& out, cl_mem input, const FrameGeometry& input_g,
                                  cl_mem target, const FrameGeometry& g) {
    if (!view_needs_input()) return;
    cl_command_queue q = queue();
    // A kernel of the view, made only when its program is built; otherwise the worker builds
    // it and this frame goes without.
    auto view_kernel = [&](const char* file, const char* name,
                           const std::string& options) -> const ConvertKernel* {
        const std::string key = fmt::format("{} {}", name, options);
        if (auto it = view_kernels_.find(key); it != view_kernels_.end()) return &it->second;
        try {
            ClContext::CacheOnlyScope cache_only;
            ConvertKernel k;
            k.kernel = cl_.kernel(file, name, options);
            k.local = fit_local_2d(k.kernel.get(), cl_.device(), 16, 16);
            return &view_kernels_.emplace(key, std::move(k)).first->second;
        } catch (const ProgramNotCached&) {
            if (!bg_) bg_.reset(new Background(cl_));
            const std::string program = fmt::format("{}\n{}", file, options);
            if (bg_->programs_asked.insert(program).second) {
                Background::Job job;
                job.programs.emplace_back(file, options);
                bg_->post(std::move(job));
            }
            return nullptr;
        }
    };
    std::vector<ClEvent> events;
    if (view_.histograms) {
        // The histogram filter's options: its program serves the view too.
        const ConvertKernel* after =
            view_kernel("histogram.cl", "histogram_count", isp::format_options(g.format));
        const ConvertKernel* before =
            view_kernel("histogram.cl", "histogram_count", isp::format_options(input_g.format));
        if (after && before) {
            auto count = [&](const ConvertKernel& k, cl_mem src, const FrameGeometry& sg,
                             std::shared_ptr<PendingFrame::Pinned>& host) {
                ClMem counts = cl_.buffer(CL_MEM_READ_WRITE, sizeof(Histogram::counts));
                const cl_uint zero = 0;
                ClEvent filled;
                VFX_CL(clEnqueueFillBuffer(q, counts.get(), &zero, sizeof(zero), 0,
                                           sizeof(Histogram::counts), 0, nullptr, filled.out()));
                events.push_back(filled);
                set_args(k.kernel.get(), src, static_cast<cl_int>(sg.pitch),
                         static_cast<cl_int>(sg.width), static_cast<cl_int>(sg.height),
                         counts.get());
                events.push_back(
                    enqueue_groups(q, k.kernel.get(),
                                   histogram_groups(cl_.info().compute_units, sg.height), k.local));
                host = pinned_block();
                ClEvent read;
                VFX_CL(clEnqueueReadBuffer(q, counts.get(), CL_FALSE, 0, sizeof(Histogram::counts),
                                           host->host, 0, nullptr, read.out()));
                events.push_back(read);
                out.keep_.push_back(counts);
            };
            count(*after, target, g, out.after_);
            count(*before, input, input_g, out.before_);
        }
    }
    if (view_.split) {
        const std::string options = fmt::format(
            "-DWORK16={} -DIN_MONO={}", is_deep(g.format) ? 1 : 0, is_mono(input_g.format) ? 1 : 0);
        if (const ConvertKernel* k = view_kernel("compose.cl", "split_compose", options)) {
            const double pos = std::clamp(view_.split_position, 0.0, 1.0);
            const auto split_x = static_cast<cl_int>(std::lround(pos * g.width));
            const auto line = static_cast<cl_int>(std::max<uint32_t>(2, g.width / 640));
            set_args(k->kernel.get(), input, static_cast<cl_int>(input_g.pitch), target,
                     static_cast<cl_int>(g.pitch), static_cast<cl_int>(g.width),
                     static_cast<cl_int>(g.height), split_x, line);
            events.push_back(enqueue_2d(q, k->kernel.get(), g.width, g.height, k->local));
        }
    }
    if (events.empty()) return;
    out.stages_.push_back({"view", events.front(), events.back()});
    out.done_ = events.back();
}

}  // namespace vfx
