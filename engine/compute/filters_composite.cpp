// The composite family: blend (kernels/blend.cl) and histogram (kernels/histogram.cl).
#include "compute/isp_common.hpp"
#include "core/error.hpp"

namespace vfx {

namespace {

using namespace isp;

// blend: the current frame over the chain's input frame (FilterIo::input). For a mosaic
// source the chain's input is the mosaic itself, used as grey (R = G = B = the sample).
class BlendFilter final : public GpuFilter {
public:
    explicit BlendFilter(const FilterInstance& f)
        : opacity_(static_cast<cl_float>(f.get_float("opacity"))) {
        const std::string& m = f.get_enum("mode");
        mode_ = m == "normal" ? 0 : m == "add" ? 1 : m == "multiply" ? 2 : 3;
    }
    void enqueue(FilterIo& io) override {
        if (!io.input || !io.input_g) fail("blend: the chain's input frame is not available");
        const Launch& l =
            cache_.get(io.cl, "blend.cl", "blend",
                       fmt::format("-DWORK16={} -DBASE_MONO={}", is_deep(io.g.format) ? 1 : 0,
                                   is_mono(io.input_g->format) ? 1 : 0));
        set_frame_args(l.kernel.get(), io);
        set_arg(l.kernel.get(), 6, io.input);
        set_arg(l.kernel.get(), 7, static_cast<cl_int>(io.input_g->pitch));
        set_arg(l.kernel.get(), 8, mode_);
        set_arg(l.kernel.get(), 9, opacity_);
        launch(io, l);
    }

private:
    cl_int mode_ = 0;
    cl_float opacity_;
    KernelCache cache_;
};

// histogram: counts into a fresh device buffer per frame (frames in flight each have theirs),
// handed to the processor through FilterIo::histogram_out. A fixed grid of work-groups that
// loop over the frame's rows (kernels/histogram.cl).
class HistogramFilter final : public GpuFilter {
public:
    void enqueue(FilterIo& io) override {
        // Observing (dst == src, see FilterInfo::observes): count only; else count and copy.
        const bool copy = io.dst != io.src;
        const std::string options = format_options(io.g.format);
        const std::string key = options + (copy ? " copy" : "");
        auto it = kernels_.find(key);
        if (it == kernels_.end()) {
            Launch l;
            l.kernel =
                io.cl.kernel("histogram.cl", copy ? "histogram" : "histogram_count", options);
            l.local = fit_local_2d(l.kernel.get(), io.cl.device(), 16, 16);
            it = kernels_.emplace(key, std::move(l)).first;
        }
        const Launch& l = it->second;
        ClMem counts = io.cl.buffer(CL_MEM_READ_WRITE, 1024 * sizeof(cl_uint));
        const cl_uint zero = 0;
        ClEvent filled;
        VFX_CL(clEnqueueFillBuffer(io.queue, counts.get(), &zero, sizeof(zero), 0,
                                   1024 * sizeof(cl_uint), 0, nullptr, filled.out()));
        io.events.push_back(filled);
        if (copy) {
            set_frame_args(l.kernel.get(), io);
            set_arg(l.kernel.get(), 6, counts.get());
        } else {
            set_args(l.kernel.get(), io.src, static_cast<cl_int>(io.g.pitch),
                     static_cast<cl_int>(io.g.width), static_cast<cl_int>(io.g.height),
                     counts.get());
        }
        io.events.push_back(
            enqueue_groups(io.queue, l.kernel.get(),
                           histogram_groups(io.cl.info().compute_units, io.g.height), l.local));
        io.keep.push_back(counts);
        if (io.histogram_out) *io.histogram_out = counts;
    }

private:
    std::map<std::string, Launch> kernels_;
};

}  // namespace

std::vector<FilterInfo> composite_filters() {
    std::vector<FilterInfo> out;
    {
        FilterInfo f;
        f.name = "blend";
        f.help = "the current frame over the chain's input frame (dry/wet mix)";
        const ParamSpec mode =
            enum_param("mode", "normal", {"normal", "add", "multiply", "screen"},
                       "how current (top) and input (base) combine before the opacity mix");
        f.params = {mode,
                    float_param("opacity", 1, 0, 1, "out = input + opacity * (blended - input)")};
        f.pointwise = true;  // in the current frame and the chain's input, same pixel
        f.uses_chain_input = true;
        f.factory = [](ClContext&, const FilterInstance& inst) -> std::unique_ptr<GpuFilter> {
            return std::make_unique<BlendFilter>(inst);
        };
        out.push_back(std::move(f));
    }
    {
        FilterInfo f;
        f.name = "histogram";
        f.help = "R, G, B and luma histograms (256 bins) of the frame; the frame passes unchanged";
        // The frame passes unchanged, but it is a reduction (local + global atomics): not
        // marked point-wise, so that a future fusion does not fold it into a pixel loop.
        f.pointwise = false;
        f.takes_mosaic = true;
        f.observes = true;  // counts only: the frame goes on without a copy
        f.factory = [](ClContext&, const FilterInstance&) -> std::unique_ptr<GpuFilter> {
            return std::make_unique<HistogramFilter>();
        };
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace vfx
