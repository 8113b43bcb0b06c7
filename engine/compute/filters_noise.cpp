// The noise family: median and bilateral (kernels/median.cl, kernels/bilateral.cl).
#include <algorithm>
#include <cmath>
#include <limits>

#include "compute/builtin_filters.hpp"
#include "compute/chain.hpp"
#include "compute/stencil_variants.hpp"
#include "compute/tiled_stencil.hpp"

namespace vfx {

namespace stencil {

std::vector<KernelVariant> median_variants() {
    return {{"-DPY=2", {32, 4}, {4, 2}},
            {"-DPY=4", {32, 4}, {4, 4}},
            {"-DPY=1", {64, 4}, {4, 1}},
            {"-DPY=2", {64, 2}, {4, 2}},
            {"-DPY=2", {16, 16}, {4, 2}},
            {"-DPY=8", {32, 2}, {4, 8}},
            // Quads as words (median.cl: QW=1 uint4 channels, QW=2 16-bit lanes).
            {"-DPY=2 -DQW=1", {32, 4}, {4, 2}},
            {"-DPY=2 -DQW=2", {32, 4}, {4, 2}},
            {"-DPY=2 -DQW=1", {64, 2}, {4, 2}},
            {"-DPY=2 -DQW=2", {64, 2}, {4, 2}},
            {"-DPY=2 -DQW=1", {16, 16}, {4, 2}},
            {"-DPY=2 -DQW=2", {16, 16}, {4, 2}}};
}

std::vector<KernelVariant> bilateral_variants() {
    return {{"-DPY=1", {32, 4}, {4, 1}}, {"-DPY=2", {32, 4}, {4, 2}}, {"-DPY=1", {64, 2}, {4, 1}},
            {"-DPY=1", {16, 8}, {4, 1}}, {"-DPY=2", {64, 2}, {4, 2}}, {"-DPY=4", {32, 2}, {4, 4}}};
}

}  // namespace stencil

namespace {

// One launch of median.cl (built per radius), tuned.
class MedianFilter final : public GpuFilter {
public:
    MedianFilter(ClContext&, const FilterInstance& f)
        : radius_(static_cast<int>(f.get_int("radius"))),
          kernel_("median.cl", "median", stencil::median_variants()) {}

    void enqueue(FilterIo& io) override {
        const auto pitch = static_cast<cl_int>(io.g.pitch);
        io.events.push_back(kernel_.enqueue(
            io.cl, io.queue,
            fmt::format("-DWORK16={} -DRADIUS={}", io.g.format == WorkFormat::rgba16 ? 1 : 0,
                        radius_),
            io.g.width, io.g.height, [&](cl_kernel k, std::array<size_t, 2>) {
                set_args(k, io.src, pitch, io.dst, pitch, static_cast<cl_int>(io.g.width),
                         static_cast<cl_int>(io.g.height));
            }));
    }

private:
    int radius_;
    TunedKernel kernel_;
};

// bilateral.cl's BL_STEPS: the luma steps over the range (8 bits: 16 per level) that index its
// range table.
constexpr int kBilateralSteps = 4080;

// The luma coefficients of bilateral.cl's L for a format whose largest value is `max`:
// (0.2126, 0.7152, 0.0722) x BL_STEPS / max, each rounded to float once.
cl_float4 bilateral_luma_coefficients(double max) {
    const double k = kBilateralSteps / max;
    return {{static_cast<cl_float>(0.2126 * k), static_cast<cl_float>(0.7152 * k),
             static_cast<cl_float>(0.0722 * k), 0.0f}};
}

// Radius of the bilateral window: ceil(2 sigma_s).
int bilateral_radius(double sigma_s) {
    return static_cast<int>(std::ceil(2.0 * sigma_s));
}

// One launch of bilateral.cl built per radius, tuned. Its weights come from two tables made
// here in double precision and rounded to float once (see bilateral.cl): every device then
// computes the same frame.
class BilateralFilter final : public GpuFilter {
public:
    BilateralFilter(ClContext& cl, const FilterInstance& f)
        : radius_(bilateral_radius(f.get_float("sigma_s"))),
          kernel_("bilateral.cl", "bilateral", stencil::bilateral_variants()) {
        const double s = f.get_float("sigma_s");
        const double sr = f.get_float("sigma_r");
        const int r = radius_;
        std::vector<cl_float> ws;
        ws.reserve(static_cast<size_t>(2 * r + 1) * static_cast<size_t>(2 * r + 1));
        for (int dy = -r; dy <= r; ++dy)
            for (int dx = -r; dx <= r; ++dx)
                ws.push_back(static_cast<cl_float>(
                    std::exp(-static_cast<double>(dx * dx + dy * dy) / (2.0 * s * s))));
        spatial_ = cl.buffer(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, ws.size() * sizeof(cl_float),
                             ws.data());
        // Wr(d), d = 0 .. BL_STEPS, padded with zeros to whole float4s (BL_RT); 0 where even the
        // largest product Ws Wr could fall under 2 FLT_MIN, so no weight is ever a subnormal
        // (a device may flush those to 0, and the frame would depend on it).
        const double ws_min = *std::min_element(ws.begin(), ws.end());
        std::vector<cl_float> rt((kBilateralSteps + 4) / 4 * 4, 0.0f);
        for (int d = 0; d <= kBilateralSteps; ++d) {
            const double u = static_cast<double>(d) / kBilateralSteps;
            const auto w = static_cast<cl_float>(std::exp(-u * u / (2.0 * sr * sr)));
            if (w * ws_min >= 2.0 * std::numeric_limits<float>::min())
                rt[static_cast<size_t>(d)] = w;
        }
        range_ = cl.buffer(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, rt.size() * sizeof(cl_float),
                           rt.data());
    }

    void enqueue(FilterIo& io) override {
        const bool deep = io.g.format == WorkFormat::rgba16;
        const cl_float4 lc = bilateral_luma_coefficients(deep ? 65535 : 255);
        const auto pitch = static_cast<cl_int>(io.g.pitch);
        std::string options = fmt::format("-DWORK16={} -DRADIUS={} -DBL_STEPS={}", deep ? 1 : 0,
                                          radius_, kBilateralSteps);
        if (const std::string cr = io.cl.info().correctly_rounded_option(); !cr.empty())
            options += " " + cr;
        io.events.push_back(kernel_.enqueue(
            io.cl, io.queue, options, io.g.width, io.g.height,
            [&](cl_kernel k, std::array<size_t, 2>) {
                set_args(k, io.src, pitch, io.dst, pitch, static_cast<cl_int>(io.g.width),
                         static_cast<cl_int>(io.g.height), spatial_.get(), range_.get(), lc);
            }));
        io.keep.push_back(spatial_);
        io.keep.push_back(range_);
    }

private:
    int radius_;
    TunedKernel kernel_;
    ClMem spatial_;
    ClMem range_;
};

}  // namespace

std::vector<FilterInfo> noise_filters() {
    std::vector<FilterInfo> out;
    {
        FilterInfo f;
        f.name = "median";
        f.help = "median of R, G, B per channel over a 3x3 or 5x5 window (clamp to edge)";
        f.params.push_back(int_param("radius", 1, 1, 2, "window radius: 1 (3x3) or 2 (5x5)"));
        f.factory = [](ClContext& cl, const FilterInstance& inst) -> std::unique_ptr<GpuFilter> {
            return std::make_unique<MedianFilter>(cl, inst);
        };
        out.push_back(std::move(f));
    }
    {
        FilterInfo f;
        f.name = "bilateral";
        f.help =
            "edge-preserving smoothing: weights exp(-d^2/2 sigma_s^2) exp(-dY^2/2 sigma_r^2), "
            "dY the BT.709 luma difference (0..1, in steps of 1/4080), clamp to edge";
        f.params.push_back(float_param("sigma_s", 2, 0.5, 8,
                                       "spatial standard deviation in pixels (radius ceil(2 "
                                       "sigma_s))"));
        f.params.push_back(float_param("sigma_r", 0.1, 0.01, 1,
                                       "range standard deviation of the luma difference (0..1)"));
        f.factory = [](ClContext& cl, const FilterInstance& inst) -> std::unique_ptr<GpuFilter> {
            return std::make_unique<BilateralFilter>(cl, inst);
        };
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace vfx
