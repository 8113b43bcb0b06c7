// The camera ISP family: demosaic, mosaic, blacklevel, wb, ccm, gamma (kernels/<name>.cl).
// A chain carries either colour (rgba8/rgba16) or a Bayer mosaic (mono8/mono16); each filter
// says which it takes and what it gives (FilterInfo::takes_*, output).
#include "compute/isp_common.hpp"
#include "compute/pointwise.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

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
    // The float path (pixels as floats; PX 8: one aligned 8-sample load + 2-sample aprons per
    // row). Candidates that lost on every device measured (H100 and PoCL, 1080p and 4K, 1.3x
    // the best or worse: benchmarks/2026-11-25-h100/tuned.txt) are left out, so a first start
    // compiles fewer programs: PX 16, PX 8 with PY 4 or 8, PY 8, and most shapes of the float
    // path, which the integer path below beats everywhere.
    return {{"-DPY=2", {32, 8}, {4, 2}},
            {"-DPY=4", {32, 4}, {4, 4}},
            // Quads as words (demosaic.cl: one 16 / 32-byte store per quad).
            {"-DPY=4 -DQW=2", {32, 4}, {4, 4}},
            {"-DPY=2 -DQW=1", {16, 16}, {4, 2}},
            {"-DPX=8 -DPY=2 -DQW=2", {32, 4}, {8, 2}},
            // The integer path (demosaic.cl's DI): exact integer sums, mono8 two same-site
            // pixels per operation (16-bit lanes), no float, no conversion, pixel words. DI=2:
            // the mono8 MHC saturation as packed 16x2 min/max (sm_90 has them); for bilinear
            // and mono16 it is the DI=1 code.
            // Measured (H100, 4K): PY=2 ahead of PY=4, PY=8 and PX=8 PY=4 two to three times
            // slower (left out).
            {"-DPY=4 -DDI=1", {32, 4}, {4, 4}},
            {"-DPY=4 -DDI=1", {64, 2}, {4, 4}},
            {"-DPY=2 -DDI=1", {32, 4}, {4, 2}},
            {"-DPY=2 -DDI=1", {16, 16}, {4, 2}},
            {"-DPY=2 -DDI=1", {32, 8}, {4, 2}},
            {"-DPY=2 -DDI=1", {8, 32}, {4, 2}},
            {"-DPY=2 -DDI=1", {16, 8}, {4, 2}},
            {"-DPX=8 -DPY=2 -DDI=1", {32, 4}, {8, 2}},
            {"-DPY=4 -DDI=2", {32, 4}, {4, 4}},
            {"-DPY=4 -DDI=2", {64, 2}, {4, 4}},
            {"-DPY=2 -DDI=2", {16, 16}, {4, 2}},
            // DI=3: the mono8 MHC rounding and saturation on the float pipe.
            {"-DPY=2 -DDI=3", {16, 8}, {4, 2}},
            {"-DPY=2 -DDI=3", {16, 16}, {4, 2}},
            {"-DPY=4 -DDI=3", {32, 4}, {4, 4}},
            // ... with byte permutes (demosaic.cl's PRMT: one PRMT on NVIDIA where shifts and
            // masks took two), and the input rows of the group 1024 places ahead in launch order
            // prefetched into L2 (demosaic.cl's LP; LX: the group's width; nothing off NVIDIA).
            // The prefetch is part of every PRMT candidate, not a candidate of its own: it pays
            // where a frame comes from DRAM, as in the bench (H100 4K, scripts/prefetch-ab.sh,
            // benchmarks/2026-11-27-h100-s11: MHC 0.0233-0.0236 -> 0.0214-0.0215 ms, bilinear
            // 0.0199-0.0201 -> 0.0188-0.0192; LP 2048 and 16x16 between), and costs nothing
            // measurable where the frame is in L2, as it was in the tuner's bursts before they
            // evicted the caches (compute/tuner.cpp), which kept the form without it in one of
            // two tuning runs. Now that the tuner's runs read from DRAM, the distance is a
            // candidate too (2048: more bytes in flight, for memory faster than the H100's), and
            // so is the form without it (for devices where it does not pay). Off NVIDIA the three
            // are one kernel (the prefetch is nothing there): two more builds on a first start,
            // and a pick among equals.
            {"-DPY=2 -DDI=3 -DPRMT=1 -DLX=16 -DLP=1024", {16, 8}, {4, 2}},
            {"-DPY=2 -DDI=3 -DPRMT=1 -DLX=16 -DLP=1024", {16, 16}, {4, 2}},
            {"-DPY=4 -DDI=3 -DPRMT=1 -DLX=32 -DLP=1024", {32, 4}, {4, 4}},
            {"-DPY=2 -DDI=3 -DPRMT=1 -DLX=16 -DLP=2048", {16, 8}, {4, 2}},
            {"-DPY=2 -DDI=3 -DPRMT=1", {16, 8}, {4, 2}},
            // DI=5: DI=3's rounding with one integer-pipe operation where DI=3 takes about 8
            // (the integer pipe: MHC's busiest on the H200, benchmarks/2026-11-27-s15); H100 4K
            // MHC 0.0213-0.0215 -> 0.0206-0.0210 ms. For bilinear and mono16 the DI=3 program.
            {"-DPY=2 -DDI=5 -DPRMT=1 -DLX=16 -DLP=1024", {16, 8}, {4, 2}},
            {"-DPY=2 -DDI=5 -DPRMT=1 -DLX=16 -DLP=2048", {16, 8}, {4, 2}},
            // LP 512: the H200's tuner picks it; its bench, three alternating rounds in each of
            // two calls: MHC 0.0190-0.0193 ms (LP 1024) -> 0.0188-0.0189 (64-65 -> 65-66 % of
            // the copy); LP 256 0.0193-0.0194, dropped (benchmarks/2026-11-28-s21).
            {"-DPY=2 -DDI=5 -DPRMT=1 -DLX=16 -DLP=512", {16, 8}, {4, 2}},
            // RP=R (demosaic.cl): the same prefetch by rows, each work-item its own rows R rows
            // down: no group-index arithmetic (LP's division by the groups per row costs every
            // work-item more than its prefetch). H200 4K, the bench with each forced in three
            // alternating rounds: MHC 0.0183-0.0187 ms (66-67 % of the copy) against
            // 0.0188-0.0190 for LP 512; H100: RP 256 0.0205-0.0207 against 0.0208-0.0209 for
            // LP 1024 (benchmarks/2026-11-28-s21).
            {"-DPY=2 -DDI=5 -DPRMT=1 -DRP=128", {16, 8}, {4, 2}},
            {"-DPY=2 -DDI=5 -DPRMT=1 -DRP=192", {16, 8}, {4, 2}},
            {"-DPY=2 -DDI=5 -DPRMT=1 -DRP=256", {16, 8}, {4, 2}},
            {"-DPY=2 -DDI=5 -DPRMT=1 -DLX=16 -DLP=1024", {16, 16}, {4, 2}},
            // FP=1 (demosaic.cl): MHC's levels converted and packed two at a time (one F2IP for
            // two on NVIDIA) and each pixel word one byte permute of them: 20 instructions fewer
            // per work-item of 8 pixels. H200 4K, the bench in three alternating rounds: MHC
            // 0.0183-0.0186 ms (67 %) against 0.0186 (66 %); H100 level; 32 x 8 groups and 8-pixel
            // rows slower (benchmarks/2026-11-28-s22). For bilinear and mono16 the DI=5 program.
            {"-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=128", {16, 8}, {4, 2}},
            {"-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=192", {16, 8}, {4, 2}},
            {"-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=256", {16, 8}, {4, 2}},
            {"-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DLX=16 -DLP=1024", {16, 8}, {4, 2}},
            {"-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=128", {32, 4}, {4, 2}},
            // PY 4: each input row split into pairs for 4 output rows rather than 2 (PY + 4
            // rows for PY), fewer integer operations again; tied with PY 2 in DI=3 on the H200.
            {"-DPY=4 -DDI=5 -DPRMT=1 -DLX=32 -DLP=1024", {32, 4}, {4, 4}},
            // NC=1 (demosaic.cl): the words through the read-only path (NVIDIA). H200 4K, the
            // bench in three alternating rounds in two calls: MHC 0.0178-0.0180 ms against
            // 0.0181-0.0183 for RP 192 without it (benchmarks/2026-11-28-s24). Bilinear takes the
            // same loads, mono16 the plain ones; off NVIDIA these are the FP RP 192 and 256
            // programs (two more builds on a first start, a pick among equals).
            {"-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=192 -DNC=1", {16, 8}, {4, 2}},
            {"-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=256 -DNC=1", {16, 8}, {4, 2}}};
}

std::vector<KernelVariant> mosaic_variants() {
    return {{"-DPY=1", {64, 4}, {4, 1}},
            {"-DPY=2", {32, 8}, {4, 2}},
            {"-DPY=1", {128, 2}, {4, 1}},
            {"-DPY=4", {32, 4}, {4, 4}},
            // Quads as words (mosaic.cl: one 16 / 32-byte load per quad; QW=2 would be the same).
            {"-DPY=1 -DQW=1", {64, 4}, {4, 1}},
            {"-DPY=2 -DQW=1", {32, 8}, {4, 2}}};
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

// The point-wise ISP stages (see compute/pointwise.hpp): one operation each, fused with their
// point-wise neighbours by the processor.
void check_blacklevel(const FilterInstance& f) {
    const double black = f.get_float("black"), white = f.get_float("white");
    if (white > 0 && white <= black)
        fail("blacklevel: white={} must be greater than black={}", white, black);
}

std::unique_ptr<GpuFilter> make_blacklevel(const FilterInstance& f) {
    check_blacklevel(f);
    const double black = f.get_float("black"), white_param = f.get_float("white");
    PointwiseOp op{"blacklevel.cl",
                   "blacklevel",
                   true,
                   {"float", "float"},
                   [=](cl_kernel k, cl_uint first, WorkFormat wf, int bits) {
                       const double full = std::ldexp(1.0, bits) - 1;
                       const double white = white_param > 0 ? white_param : full;
                       if (white <= black)
                           fail(
                               "blacklevel: black={} is not below the {}-bit source's white "
                               "level {}",
                               black, bits, white);
                       const double pix_max = is_deep(wf) ? 65535.0 : 255.0;
                       const double b = black / full * pix_max, w = white / full * pix_max;
                       set_arg(k, first, static_cast<cl_float>(b));
                       set_arg(k, first + 1, static_cast<cl_float>(pix_max / (w - b)));
                   }};
    return std::make_unique<PointwiseFilter>(std::vector<PointwiseOp>{std::move(op)});
}

std::unique_ptr<GpuFilter> make_wb(const FilterInstance& f) {
    const auto r = static_cast<cl_float>(f.get_float("r"));
    const auto g = static_cast<cl_float>(f.get_float("g"));
    const auto b = static_cast<cl_float>(f.get_float("b"));
    const cl_int cfa = cfa_code(f.get_enum("pattern"));
    PointwiseOp op{"wb.cl",
                   "wb",
                   true,
                   {"float", "float", "float", "int"},
                   [=](cl_kernel k, cl_uint first, WorkFormat, int) {
                       set_arg(k, first, r);
                       set_arg(k, first + 1, g);
                       set_arg(k, first + 2, b);
                       set_arg(k, first + 3, cfa);
                   }};
    return std::make_unique<PointwiseFilter>(std::vector<PointwiseOp>{std::move(op)});
}

void check_ccm(const FilterInstance& f) {
    const size_t n = f.get_float_list("matrix").size();
    if (n != 9) fail("ccm: matrix needs 9 values (a|b|c|d|e|f|g|h|i, row-major), got {}", n);
}

std::unique_ptr<GpuFilter> make_ccm(const FilterInstance& f) {
    check_ccm(f);
    const std::vector<double>& m = f.get_float_list("matrix");
    std::array<cl_float4, 3> rows{};
    for (size_t r = 0; r < 3; ++r)
        rows[r] = {{static_cast<cl_float>(m[3 * r]), static_cast<cl_float>(m[3 * r + 1]),
                    static_cast<cl_float>(m[3 * r + 2]), 0.0f}};
    PointwiseOp op{"ccm.cl",
                   "ccm",
                   false,
                   {"float4", "float4", "float4"},
                   [rows](cl_kernel k, cl_uint first, WorkFormat, int) {
                       for (cl_uint r = 0; r < 3; ++r)
                           set_arg(k, first + r, rows[r]);
                   }};
    return std::make_unique<PointwiseFilter>(std::vector<PointwiseOp>{std::move(op)});
}

// gamma: a transfer curve is a function of one stored value, so it runs as a table lookup:
// one table per working depth (256 and 65536 entries), computed here in double precision and
// read by the kernel (kernels/gamma.cl). Every stage's output is rounded to nearest even and
// saturated when stored (also between the steps of a fused run), so the table holds that
// stored value (of the curve's value as a float, what the kernel rounded before) in the
// working depth's own type: the 8-bit table is 256 bytes, two cache lines, so a warp's lookup
// of random values touches at most two lines instead of the eight of a float table. The same
// tables on every device give the same pixels everywhere, and a lookup keeps the stage
// memory-bound (powr per channel did not).
double gamma_curve(double x, bool srgb, double value) {
    x = std::clamp(x, 0.0, 1.0);
    if (srgb) return x <= 0.0031308 ? 12.92 * x : 1.055 * std::pow(x, 1 / 2.4) - 0.055;
    return std::pow(x, 1 / value);
}

template <typename T>
ClMem gamma_table(ClContext& cl, bool srgb, double value) {
    constexpr size_t entries = size_t{1} << (8 * sizeof(T));
    const double max = static_cast<double>(entries - 1);
    std::vector<T> t(entries);
    for (size_t i = 0; i < entries; ++i) {
        const auto f =
            static_cast<float>(gamma_curve(static_cast<double>(i) / max, srgb, value) * max);
        // Nearest, ties to even (the default rounding mode), saturated: convert_*_sat_rte.
        t[i] = static_cast<T>(std::clamp(std::nearbyint(f), 0.0f, static_cast<float>(max)));
    }
    return cl.buffer(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, t.size() * sizeof(T), t.data());
}

std::unique_ptr<GpuFilter> make_gamma(ClContext& cl, const FilterInstance& f) {
    const bool srgb = f.get_enum("curve") == "srgb";
    const double value = f.get_float("value");
    const ClMem t8 = gamma_table<uint8_t>(cl, srgb, value);
    const ClMem t16 = gamma_table<uint16_t>(cl, srgb, value);
    // The kernels hold their own reference through the argument until they complete (the
    // OpenCL release rule), so a table outlives this filter as long as a frame needs it.
    PointwiseOp op{"gamma.cl",
                   "gamma",
                   true,
                   {kTableArg},
                   [t8, t16](cl_kernel k, cl_uint first, WorkFormat wf, int) {
                       set_arg(k, first, is_deep(wf) ? t16.get() : t8.get());
                   }};
    op.stored = true;  // a table of stored values, indexed by them
    return std::make_unique<PointwiseFilter>(std::vector<PointwiseOp>{std::move(op)});
}

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
        f.factory = [](ClContext&, const FilterInstance& inst) { return make_blacklevel(inst); };
        f.check = check_blacklevel;
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
        f.factory = [](ClContext&, const FilterInstance& inst) { return make_wb(inst); };
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
        f.factory = [](ClContext&, const FilterInstance& inst) { return make_ccm(inst); };
        f.check = check_ccm;
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
        f.factory = [](ClContext& cl, const FilterInstance& inst) { return make_gamma(cl, inst); };
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace vfx
