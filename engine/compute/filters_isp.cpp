// The camera ISP family: demosaic, mosaic, blacklevel, wb, ccm, gamma (kernels/<name>.cl).
// A chain carries either colour (rgba8/rgba16) or a Bayer mosaic (mono8/mono16); each filter
// says which it takes and what it gives (FilterInfo::takes_*, output).
#include "compute/isp_common.hpp"

#include <cmath>

#include "compute/stencil_variants.hpp"

#include "core/error.hpp"

namespace vfx {

namespace isp {

int cfa_code(const std::string& pattern) {
    int code = 0;
    for (size_t i = 0; i < 4; ++i) {
        const char ch = pattern.at(i);
        const int c = ch == 'r' ? 0 : ch == 'g' ? 1 : 2;
        code |= c << (2 * i);
    }
    return code;
}

ParamSpec pattern_param() {
    const ParamSpec p = enum_param("pattern", "rggb", {"rggb", "bggr", "grbg", "gbrg"},
                                   "Bayer pattern: colours of the top-left 2x2 sites, row by row");
    return p;
}

const Launch& KernelCache::get(ClContext& cl, const char* file, const char* name,
                               const std::string& options) {
    auto it = kernels_.find(options);
    if (it == kernels_.end()) {
        Launch l;
        l.kernel = cl.kernel(file, name, options);
        l.local = fit_local_2d(l.kernel.get(), cl.device(), 32, 8);
        it = kernels_.emplace(options, std::move(l)).first;
    }
    return it->second;
}

std::string format_options(WorkFormat f) {
    return fmt::format("-DWORK16={} -DMONO={}", is_deep(f) ? 1 : 0, is_mono(f) ? 1 : 0);
}

void set_frame_args(cl_kernel k, const FilterIo& io) {
    set_args(k, io.src, static_cast<cl_int>(io.g.pitch), io.dst,
             static_cast<cl_int>(io.dst_geometry().pitch), static_cast<cl_int>(io.g.width),
             static_cast<cl_int>(io.g.height));
}

void launch(FilterIo& io, const Launch& l) {
    io.events.push_back(enqueue_2d(io.queue, l.kernel.get(), io.g.width, io.g.height, l.local));
}

}  // namespace isp

namespace stencil {

std::vector<KernelVariant> demosaic_variants() {
    return {{"-DPY=2", {32, 8}, {4, 2}},  {"-DPY=4", {32, 4}, {4, 4}}, {"-DPY=2", {64, 4}, {4, 2}},
            {"-DPY=2", {16, 16}, {4, 2}}, {"-DPY=4", {64, 2}, {4, 4}}, {"-DPY=8", {32, 4}, {4, 8}}};
}

std::vector<KernelVariant> mosaic_variants() {
    return {{"-DPY=1", {64, 4}, {4, 1}},
            {"-DPY=2", {32, 8}, {4, 2}},
            {"-DPY=1", {128, 2}, {4, 1}},
            {"-DPY=4", {32, 4}, {4, 4}}};
}

}  // namespace stencil

namespace {

// Sets a tuned ISP kernel's arguments 0..5 (see set_frame_args) and `extra` after them.
void tuned_launch(FilterIo& io, TunedKernel& k, const std::string& options) {
    io.events.push_back(
        k.enqueue(io.cl, io.queue, options, io.g.width, io.g.height,
                  [&](cl_kernel kern, std::array<size_t, 2>) { isp::set_frame_args(kern, io); }));
}

using namespace isp;

// The pattern and method are build options: every site of a work-item's block is then known
// at compile time (see demosaic.cl).
class DemosaicFilter final : public GpuFilter {
public:
    explicit DemosaicFilter(const FilterInstance& f)
        : options_(fmt::format("-DCFA={} -DMETHOD={}", cfa_code(f.get_enum("pattern")),
                               f.get_enum("method") == "mhc" ? 0 : 1)),
          kernel_("demosaic.cl", "demosaic", stencil::demosaic_variants()) {}
    void enqueue(FilterIo& io) override {
        tuned_launch(io, kernel_, format_options(io.g.format) + " " + options_);
    }

private:
    std::string options_;
    TunedKernel kernel_;
};

class MosaicFilter final : public GpuFilter {
public:
    explicit MosaicFilter(const FilterInstance& f)
        : options_(fmt::format("-DCFA={}", cfa_code(f.get_enum("pattern")))),
          kernel_("mosaic.cl", "mosaic", stencil::mosaic_variants()) {}
    void enqueue(FilterIo& io) override {
        tuned_launch(io, kernel_, format_options(io.g.format) + " " + options_);
    }

private:
    std::string options_;
    TunedKernel kernel_;
};

class BlackLevelFilter final : public GpuFilter {
public:
    explicit BlackLevelFilter(const FilterInstance& f)
        : black_(f.get_float("black")), white_(f.get_float("white")) {
        if (white_ > 0 && white_ <= black_)
            fail("blacklevel: white={} must be greater than black={}", white_, black_);
    }
    void enqueue(FilterIo& io) override {
        const double full = std::ldexp(1.0, io.bits()) - 1;
        const double white = white_ > 0 ? white_ : full;
        if (white <= black_)
            fail("blacklevel: black={} is not below the {}-bit source's white level {}", black_,
                 io.bits(), white);
        const double pix_max = is_deep(io.g.format) ? 65535.0 : 255.0;
        const double b = black_ / full * pix_max, w = white / full * pix_max;
        const Launch& l =
            cache_.get(io.cl, "blacklevel.cl", "blacklevel", format_options(io.g.format));
        set_frame_args(l.kernel.get(), io);
        set_arg(l.kernel.get(), 6, static_cast<cl_float>(b));
        set_arg(l.kernel.get(), 7, static_cast<cl_float>(pix_max / (w - b)));
        launch(io, l);
    }

private:
    double black_, white_;
    KernelCache cache_;
};

class WbFilter final : public GpuFilter {
public:
    explicit WbFilter(const FilterInstance& f)
        : r_(static_cast<cl_float>(f.get_float("r"))),
          g_(static_cast<cl_float>(f.get_float("g"))),
          b_(static_cast<cl_float>(f.get_float("b"))),
          cfa_(cfa_code(f.get_enum("pattern"))) {}
    void enqueue(FilterIo& io) override {
        const Launch& l = cache_.get(io.cl, "wb.cl", "wb", format_options(io.g.format));
        set_frame_args(l.kernel.get(), io);
        set_arg(l.kernel.get(), 6, r_);
        set_arg(l.kernel.get(), 7, g_);
        set_arg(l.kernel.get(), 8, b_);
        set_arg(l.kernel.get(), 9, cfa_);
        launch(io, l);
    }

private:
    cl_float r_, g_, b_;
    cl_int cfa_;
    KernelCache cache_;
};

class CcmFilter final : public GpuFilter {
public:
    explicit CcmFilter(const FilterInstance& f) {
        const std::vector<double>& m = f.get_float_list("matrix");
        if (m.size() != 9)
            fail("ccm: matrix needs 9 values (a|b|c|d|e|f|g|h|i, row-major), got {}", m.size());
        for (size_t r = 0; r < 3; ++r)
            rows_[r] = {{static_cast<cl_float>(m[3 * r]), static_cast<cl_float>(m[3 * r + 1]),
                         static_cast<cl_float>(m[3 * r + 2]), 0.0f}};
    }
    void enqueue(FilterIo& io) override {
        const Launch& l = cache_.get(io.cl, "ccm.cl", "ccm", format_options(io.g.format));
        set_frame_args(l.kernel.get(), io);
        for (cl_uint r = 0; r < 3; ++r)
            set_arg(l.kernel.get(), 6 + r, rows_[r]);
        launch(io, l);
    }

private:
    std::array<cl_float4, 3> rows_{};
    KernelCache cache_;
};

class GammaFilter final : public GpuFilter {
public:
    explicit GammaFilter(const FilterInstance& f)
        : curve_(f.get_enum("curve") == "srgb" ? 1 : 0),
          inv_(static_cast<cl_float>(curve_ == 1 ? 1.0 / 2.4 : 1.0 / f.get_float("value"))) {}
    void enqueue(FilterIo& io) override {
        const Launch& l = cache_.get(io.cl, "gamma.cl", "gamma_curve", format_options(io.g.format));
        set_frame_args(l.kernel.get(), io);
        set_arg(l.kernel.get(), 6, curve_);
        set_arg(l.kernel.get(), 7, inv_);
        launch(io, l);
    }

private:
    cl_int curve_;
    cl_float inv_;
    KernelCache cache_;
};

template <typename F>
FilterFactory factory_of() {
    return [](ClContext&, const FilterInstance& inst) -> std::unique_ptr<GpuFilter> {
        return std::make_unique<F>(inst);
    };
}

}  // namespace

std::vector<FilterInfo> isp_filters() {
    std::vector<FilterInfo> out;
    {
        FilterInfo f;
        f.name = "demosaic";
        f.help = "Bayer mosaic -> colour (Malvar-He-Cutler or bilinear; borders reflect-101)";
        const ParamSpec method =
            enum_param("method", "mhc", {"mhc", "bilinear"},
                       "mhc: Malvar-He-Cutler 5x5 linear; bilinear: average of nearest samples");
        f.params = {method, pattern_param()};
        f.takes_colour = false;
        f.takes_mosaic = true;
        f.output = OutputKind::colour;
        f.factory = factory_of<DemosaicFilter>();
        out.push_back(std::move(f));
    }
    {
        FilterInfo f;
        f.name = "mosaic";
        f.help = "colour -> one-channel Bayer mosaic (sensor simulation)";
        f.params = {pattern_param()};
        f.pointwise = true;
        f.output = OutputKind::mosaic;
        f.factory = factory_of<MosaicFilter>();
        out.push_back(std::move(f));
    }
    {
        FilterInfo f;
        f.name = "blacklevel";
        f.help = "out = (in - black) / (white - black), clamped to [0, 1]; mosaic or colour";
        f.params = {float_param("black", 0, 0, 65535, "black level, code value of the source"),
                    float_param("white", 0, 0, 65535,
                                "white level, code value of the source (0: 2^bits - 1)")};
        f.pointwise = true;
        f.takes_mosaic = true;
        f.factory = factory_of<BlackLevelFilter>();
        out.push_back(std::move(f));
    }
    {
        FilterInfo f;
        f.name = "wb";
        f.help = "white balance: gains per Bayer site on a mosaic, per channel on colour";
        f.params = {float_param("r", 1, 0, 16, "red gain"),
                    float_param("g", 1, 0, 16, "green gain"),
                    float_param("b", 1, 0, 16, "blue gain"), pattern_param()};
        f.params.back().help = "Bayer pattern of a mosaic (colour frames ignore it)";
        f.pointwise = true;
        f.takes_mosaic = true;
        f.factory = factory_of<WbFilter>();
        out.push_back(std::move(f));
    }
    {
        FilterInfo f;
        f.name = "ccm";
        f.help = "3x3 colour matrix on R, G, B";
        ParamSpec m;
        m.name = "matrix";
        m.type = ParamType::float_list;
        m.default_value = std::vector<double>{1, 0, 0, 0, 1, 0, 0, 0, 1};
        m.min = -16;
        m.max = 16;
        m.help = "9 values a|b|c|d|e|f|g|h|i, row-major: R' = a R + b G + c B ...";
        f.params = {m};
        f.pointwise = true;
        f.factory = factory_of<CcmFilter>();
        out.push_back(std::move(f));
    }
    {
        FilterInfo f;
        f.name = "gamma";
        f.help = "transfer curve: power (in^(1/value)) or the sRGB encoding; mosaic or colour";
        const ParamSpec curve =
            enum_param("curve", "power", {"power", "srgb"},
                       "power: out = in^(1/value); srgb: the sRGB encoding curve (value unused)");
        f.params = {curve, float_param("value", 2.2, 0.1, 10, "gamma of the power curve")};
        f.pointwise = true;
        f.takes_mosaic = true;
        f.factory = factory_of<GammaFilter>();
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace vfx
