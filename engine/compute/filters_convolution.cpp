// The convolution family: box, sharpen, sobel (kernels/box.cl, box.cl -DSHARPEN=1, sobel.cl). Every
// stencil clamps to the edge; R, G, B are filtered, alpha copied.
#include <fmt/format.h>

#include <array>
#include <string>

#include "compute/builtin_filters.hpp"
#include "compute/chain.hpp"
#include "compute/cl_args.hpp"
#include "compute/filter.hpp"
#include "compute/stencil_variants.hpp"
#include "core/error.hpp"

namespace vfx {

namespace stencil {

size_t tile_local_bytes(const KernelVariant& v, const std::string& options, int apron_quads,
                        int radius, size_t h_bytes) {
    if (v.options.find("-DLM=1") == std::string::npos) return 0;
    // quad_t or, with -DQW, quadw_t: the same size (uchar16 / uint4, ushort16 / uint8).
    const size_t quad = options.find("-DWORK16=1") != std::string::npos ? 32 : 16;
    const size_t rows = v.local[1] * v.per_item[1] + 2 * static_cast<size_t>(radius);
    const size_t staged = (v.local[0] + 2 * static_cast<size_t>(apron_quads)) * quad;
    return rows * (staged + 4 * v.local[0] * h_bytes);
}

namespace {
// box.cl's SW path: 16-bit lanes hold a window sum of 8-bit samples up to radius 7.
bool box_sw_applies(const std::string& options) {
    return build_option(options, "WORK16") == 0 &&
           build_option(options, "RADIUS").value_or(99) <= 7;
}

// A candidate of box.cl's SW path: LX x LY work-items of 4 x PY pixels each.
KernelVariant box_sw(const std::string& extra, size_t lx, size_t ly, uint32_t py) {
    return {fmt::format("-DSW=1{}{} -DQW=1 -DLX={} -DLY={} -DPY={}", extra.empty() ? "" : " ",
                        extra, lx, ly, py),
            {lx, ly},
            {4, py},
            box_sw_applies};
}
// Quads one group of box.cl's shuffled walk makes across: its SH_Q, 32 quad columns a warp less
// SH_A = 2 on each side that only feed their neighbours' windows.
constexpr uint32_t kShOutputQuads = 32 - 2 * 2;

// A candidate of box.cl's shuffled walk (SH, the plain mean): warps of 32 quad columns, LY of
// them per group, each walking NS rows; a group makes kShOutputQuads quads across.
KernelVariant box_sh(size_t ly, uint32_t ns) {
    KernelVariant v{
        fmt::format("-DSW=1 -DSH=1 -DFM=1 -DPRMT=1 -DQW=1 -DLX=32 -DLY={} -DNS={}", ly, ns),
        {32, ly},
        {4, ns},
        box_sw_applies};
    v.group_px = {4 * kShOutputQuads, 0};
    return v;
}
// A candidate of box.cl's streaming strips (ST, the plain mean): LX x LY work-items, chunks of
// LY PY rows, NCH chunks per strip.
KernelVariant box_st(size_t lx, size_t ly, uint32_t py, uint32_t nch, const char* extra = "") {
    return {fmt::format("-DSW=1 -DST=1{} -DFM=1 -DPRMT=1 -DRG=1 -DCR=2 -DZZ=1 -DQW=1 -DLX={} "
                        "-DLY={} -DPY={} -DNCH={}",
                        extra, lx, ly, py, nch),
            {lx, ly},
            {4, py * nch},
            box_sw_applies};
}
}  // namespace

std::vector<KernelVariant> box_variants() {
    // Candidates that lost on every device measured (H100 and PoCL, both radii, 1080p and
    // 4K, 1.3x the best or worse: benchmarks/2026-11-25-h100/tuned.txt) are left out, so a
    // first start compiles fewer programs: most shapes with pixels as vectors, and the QW=1
    // twins of the word candidates. RGBA16 (and radius > 7) takes the first six.
    return {{"-DPY=16", {32, 4}, {4, 16}},
            // Local memory (the kernel's LM path): horizontal sums once per tile row.
            {"-DLM=1 -DLX=8 -DLY=16 -DPY=2", {8, 16}, {4, 2}},
            // Quads as words (common.h's QW): one 16 / 32-byte access per quad.
            {"-DPY=4 -DQW=2", {32, 8}, {4, 4}},
            {"-DPY=8 -DQW=2", {64, 4}, {4, 8}},
            {"-DLM=1 -DLX=8 -DLY=16 -DPY=2 -DQW=2", {8, 16}, {4, 2}},
            {"-DLM=1 -DLX=16 -DLY=8 -DPY=2 -DQW=2", {16, 8}, {4, 2}},
            // Two channels per register, the window's rows in a __local ring (box.cl's SW
            // path): RGBA8 and radius <= 7 only. Measured (H100, 4K), the ring in registers
            // (a fully unrolled walk) and deeper prefetch lost to these everywhere, and so did
            // no ring at all (the leaving row loaded and summed again, for more work-items per
            // SM than the 45 KB ring of radius 5 allows): 1.35x at radius 5. Measured again with
            // RG/CR: two and three rows' loads in flight (no gain; 3 slower). Before ZZ (below)
            // the walk bounded radius 5, not its arithmetic: stripped to one quad loaded and
            // stored per row, it still took 0.0388 ms at PY=32 (copy: 0.0265), the full kernel
            // 0.0407. The FM shapes with PY = 32 and no ZZ, 128x1 and 32x2 lost by 1.3x or more
            // once ZZ was in (benchmarks/2026-11-25-h100-s4) and are left out; the plain 64x1
            // and 32x4 at PY = 32 stay (PoCL's tuning, and the shapes that fit radius 7).
            box_sw("", 64, 2, 16),
            box_sw("", 32, 4, 8),
            box_sw("", 64, 1, 32),
            box_sw("", 32, 4, 32),
            // The mean on the float pipe (box.cl's FM; sharpen ignores it) ...
            box_sw("-DFM=1", 64, 2, 16),
            // ... and with byte permutes (one PRMT on NVIDIA for a shift and a mask or two).
            box_sw("-DFM=1 -DPRMT=1", 64, 2, 16),
            // Byte permutes for the G/A lanes only (sharpen's best shapes; sharpen has no FM).
            box_sw("-DPRMT=1", 64, 2, 16),
            box_sw("-DPRMT=1", 32, 4, 8),
            // The block's input words waiting in the ring (box.cl's CR; CR=2: alpha alone, for
            // the plain mean), G's sums alone in 16-bit slots (RG), neighbouring blocks walking
            // in opposite directions (ZZ): H100 4K, bench tables of benchmarks/2026-11-25-h100-s3
            // and -s4, sharpen 0.0364 -> 0.0325 ms, radius 5 0.0431 -> 0.0396, radius 1 0.0325
            // -> 0.0298. Measured and dropped: 2 pixel columns per work-item (twice the
            // work-items, 1.4x slower at radius 5), the walk unrolled by 2 or 3 (slower),
            // PY = 24, 27, 30, 36 or 40 and 32x1, 32x2, 32x3 groups (slower than 32x4 at
            // PY = 32), interior rows' words addressed from one row pointer without clamps
            // (fewer instructions, 10-25 % slower); neighbouring blocks of a group summing the
            // rows around their seam once (each half, the other half taken from the partner's
            // ring after a barrier: 18 % fewer rows summed at radius 5, LY = 4) 14 % slower at
            // radius 5, 3-5 % at radius 1 and in sharpen (the group's warps wait for each other);
            // the block's quad 2, 4 or 8 rows ahead prefetched into L2 (PTX prefetch.global.L2),
            // as fast or slower (Nsight Compute had global loads as the first stall reason).
            box_sw("-DFM=1 -DPRMT=1 -DRG=1 -DCR=2 -DZZ=1", 32, 4, 32),
            box_sw("-DFM=1 -DPRMT=1 -DRG=1 -DCR=2 -DZZ=1", 64, 1, 32),
            box_sw("-DFM=1 -DPRMT=1 -DRG=1 -DCR=2 -DZZ=1", 64, 2, 16),
            box_sw("-DPRMT=1 -DRG=1 -DCR=1 -DZZ=1", 64, 2, 16),
            box_sw("-DPRMT=1 -DCR=1 -DZZ=1", 64, 2, 16),
            box_sw("-DPRMT=1 -DCR=1 -DZZ=1", 32, 4, 8),
            // The walk's loop peeled (PL; no per-step tests): radius 1 0.0297-0.0319 -> 0.0273
            // ms in the tuner's measurement, radius 5 and sharpen within noise.
            box_sw("-DPRMT=1 -DCR=1 -DZZ=1 -DPL=1", 64, 2, 16),
            box_sw("-DPRMT=1 -DCR=1 -DZZ=1 -DPL=1", 32, 4, 8),
            box_sw("-DFM=1 -DPRMT=1 -DRG=1 -DCR=2 -DZZ=1 -DPL=1", 32, 4, 32),
            // Streaming strips (box.cl's ST): the horizontal sums of a strip's rows in a ring
            // shared by the group, its rows' loads spread over all its work-items. Radius 5,
            // H100 4K (`vfx bench`, benchmarks/2026-11-25-h100-s7): 32x8 PY 4 NCH 4 0.0361 ms,
            // NCH 2 0.0365, 64x4 0.0371, against the SW walk's 0.0387; without the alpha word
            // in the ring (the input quad loaded again) or without the alternating walk 4-8 %
            // slower in the tuner, NCH 3 and 8, PY 8 and 16x16 shapes 10-35 % slower; the next
            // chunk's words loaded while the group makes this chunk's outputs: radius 5
            // 0.0359-0.0395 ms against 0.0344-0.0348 in the tuner (more registers, fewer groups
            // per SM), radius 1 0.0277-0.0281 against 0.0281-0.0283 for the SW walk, the bench
            // unchanged (benchmarks/2026-11-26-h100-s9/experiments/1-sharpen-sb-box-nx).
            box_st(32, 8, 4, 4),
            box_st(32, 8, 4, 2),
            box_st(64, 4, 4, 4),
            // ... with each work-item's tasks of a chunk loaded before any is summed (box.cl's
            // UT): radius 5, H100 4K, tuner, two rounds each of two runs: 32x8 PY 2 NCH 8
            // 0.0344-0.0347 ms against 0.0350-0.0356 for the best above (and 0.0378 for the
            // same shape without UT; UT with PY 4: 96 registers, 0.0376-0.0393; NCH 12 or 16,
            // PY 3, 32x4 and 32x16: 0.040-0.044; benchmarks/2026-11-26-h100-s5/experiments).
            box_st(32, 8, 2, 8, " -DUT=1"),
            box_st(32, 8, 2, 4, " -DUT=1"),
            box_st(64, 4, 2, 8, " -DUT=1"),
            // Vertical sums first, their horizontal windows from the neighbouring work-items by
            // warp shuffles (box.cl's SH): no shared ring of sums, no barriers on NVIDIA, one
            // global load per quad and row. Radius 5, H100 4K, bench p50 in three alternating
            // rounds: 32x4 NS 18 0.0324-0.0325 ms (81 % of the copy) against 0.0353-0.0355 for
            // the best streaming strips above; 32x8 0.0330-0.0333 (at radius 5 its ring and
            // exchange, as box_ring_bytes counts them, pass 48 KB: offered where they fit); NS 16,
            // 20, 24 and 32 slower in the tuner (the grid fills one wave at NS 18); the window's
            // rows loaded again from global memory instead of kept in the work-item's ring
            // 0.0362-0.0366 (benchmarks/2026-11-27-h100-s12/experiments/2-box-shuffled-walk).
            box_sh(4, 18),
            box_sh(8, 18),
            box_sh(2, 18),
            box_sh(4, 20)};
}

size_t box_ring_bytes(const KernelVariant& v, int radius) {
    if (build_option(v.options, "SW") != 1) return 0;
    // SH: each work-item's ring of the window's rows and (off NVIDIA; counted everywhere, since
    // the device is not known here) its 8 words of exchange.
    if (build_option(v.options, "SH") == 1)
        return ((2 * static_cast<size_t>(radius) + 1) * sizeof(cl_uint4) + 8 * sizeof(cl_uint)) *
               v.local[0] * v.local[1];
    if (build_option(v.options, "ST") == 1) {
        // The group's ring: LY PY + 2R rows of LX quads' rb sums (uint4), G sums (16-bit lanes
        // of a uint2) and alpha bytes (uint).
        const size_t rows =
            v.local[1] * static_cast<size_t>(build_option(v.options, "PY").value()) +
            2 * static_cast<size_t>(radius);
        return rows * v.local[0] * (sizeof(cl_uint4) + sizeof(cl_ushort4) + sizeof(cl_uint));
    }
    // Per work-item and window row: rb (uint4), ga (uint4; RG: ushort4) and, with CR, the
    // block's input quad (uint4; CR=2: its alpha bytes, one uint).
    const size_t slot =
        sizeof(cl_uint4) +
        (build_option(v.options, "RG") == 1 ? sizeof(cl_ushort4) : sizeof(cl_uint4)) +
        (build_option(v.options, "CR") == 1   ? sizeof(cl_uint4)
         : build_option(v.options, "CR") == 2 ? sizeof(cl_uint)
                                              : 0);
    return (2 * static_cast<size_t>(radius) + 1) * slot * v.local[0] * v.local[1];
}

// sharpen through box.cl (-DSHARPEN=1): its exact integer window sums, quads as words.
std::vector<KernelVariant> sharpen_box_variants() {
    std::vector<KernelVariant> out;
    for (const KernelVariant& v : box_variants())
        if (v.options.find("-DQW=") != std::string::npos &&
            v.options.find("-DFM=") == std::string::npos)  // FM: the plain mean only
            out.push_back(v);
    // sharpen's values to and from float by bit tricks, saturated by its last multiply-add
    // (box.cl's SB), in its best shapes: H100 4K, tuner, two rounds: 0.0283-0.0285 ms against
    // 0.0295-0.0297 for the best without SB; without PL 0.0289-0.0299
    // (benchmarks/2026-11-26-h100-s9).
    out.push_back(box_sw("-DPRMT=1 -DCR=1 -DZZ=1 -DPL=1 -DSB=1", 32, 4, 8));
    out.push_back(box_sw("-DPRMT=1 -DCR=1 -DZZ=1 -DPL=1 -DSB=1", 64, 2, 16));
    return out;
}

std::vector<KernelVariant> sobel_variants() {
    return {{"-DPY=4", {32, 4}, {4, 4}},
            {"-DPY=2", {64, 4}, {4, 2}},
            {"-DPY=8", {32, 4}, {4, 8}},
            {"-DPY=4", {64, 2}, {4, 4}},
            {"-DPY=4", {16, 16}, {4, 4}},
            // The best two (H100, 4K) with quads as words (common.h's QW) ...
            {"-DPY=2 -DQW=1", {64, 4}, {4, 2}},
            {"-DPY=4 -DQW=1", {32, 4}, {4, 4}},
            // (Their QW=2 forms are the same programs since sobel's channels go in and out by
            // byte permutes, and are left out.) ... and a longer block (H100 4K: 0.0333-0.0336
            // ms against 0.0353 for the best above; 118 registers then). Since the magnitudes'
            // square roots lost their range check and the channels go in and out by byte
            // permutes (fourteenth 2026-11-27 session) it is the H100's pick at 4K: 0.0291-0.0295
            // ms in the tuner, 113 registers, against 0.0318-0.0320 for the walks below.
            {"-DPY=8 -DQW=1", {32, 4}, {4, 8}},
            {"-DPY=8 -DQW=1", {64, 2}, {4, 8}},
            // Rows walked (sobel.cl's WK), the H100's pick from the ninth 2026-11-26 session to
            // the thirteenth, kept for devices with fewer registers: H100 4K, tuner, two rounds
            // then: PY 16 64x2 0.0293-0.0296 ms, 32x4 0.0298-0.0299, PY 8 0.0308-0.0313, against
            // 0.0333-0.0336 for the longer block above as it was then (118 registers) and 0.0353
            // for the one before it; PY 12 and 32, QW=2, two rows ahead and 8-pixel rows lost
            // (benchmarks/2026-11-26-h100-s9/experiments/2-sobel-walk, 4-sobel-rows-ahead-stop).
            {"-DPY=16 -DQW=1 -DWK=1", {64, 2}, {4, 16}},
            {"-DPY=16 -DQW=1 -DWK=1", {32, 4}, {4, 16}},
            {"-DPY=8 -DQW=1 -DWK=1", {32, 4}, {4, 8}}};
}

}  // namespace stencil

namespace {

std::string work_options(WorkFormat f) {
    return f == WorkFormat::rgba16 ? "-DWORK16=1" : "-DWORK16=0";
}

// Box mean in one launch (kernels/box.cl's box_strip, built per radius), tuned.
class BoxFilter final : public GpuFilter {
public:
    explicit BoxFilter(const FilterInstance& f)
        : radius_(static_cast<int>(f.get_int("radius"))),
          kernel_("box.cl", "box_strip", stencil::box_variants(),
                  [r = radius_](const KernelVariant& v, const std::string& options) {
                      // BL_H quads each side; one uint4 per tile pixel.
                      return stencil::tile_local_bytes(v, options, (r + 3) / 4, r,
                                                       sizeof(cl_uint4)) +
                             stencil::box_ring_bytes(v, r);
                  }) {}

    void enqueue(FilterIo& io) override {
        const auto pitch = static_cast<cl_int>(io.g.pitch);
        io.events.push_back(kernel_.enqueue(
            io.cl, io.queue, fmt::format("{} -DRADIUS={}", work_options(io.g.format), radius_),
            io.g.width, io.g.height, [&](cl_kernel k, std::array<size_t, 2>) {
                set_args(k, io.src, pitch, io.dst, pitch, static_cast<cl_int>(io.g.width),
                         static_cast<cl_int>(io.g.height));
            }));
    }

private:
    int radius_;
    TunedKernel kernel_;
};

// sharpen (box.cl) / sobel.cl: one launch over 4 x PY blocks, tuned; `options` are the filter's
// own build options (e.g. "-DRADIUS=1"), `amount` is set after the frame arguments when
// `has_amount`.
class BlockStencil final : public GpuFilter {
public:
    BlockStencil(const char* file, const char* kernel, std::string options,
                 std::vector<KernelVariant> variants, bool has_amount, cl_float amount,
                 TunedKernel::LocalBytes local_bytes = {})
        : options_(std::move(options)),
          has_amount_(has_amount),
          amount_(amount),
          kernel_(file, kernel, std::move(variants), std::move(local_bytes)) {}

    void enqueue(FilterIo& io) override {
        const auto pitch = static_cast<cl_int>(io.g.pitch);
        io.events.push_back(kernel_.enqueue(
            io.cl, io.queue, fmt::format("{} {}", work_options(io.g.format), options_), io.g.width,
            io.g.height, [&](cl_kernel k, std::array<size_t, 2>) {
                set_args(k, io.src, pitch, io.dst, pitch, static_cast<cl_int>(io.g.width),
                         static_cast<cl_int>(io.g.height));
                if (has_amount_) set_arg(k, 6, amount_);
            }));
    }

private:
    std::string options_;
    bool has_amount_;
    cl_float amount_;
    TunedKernel kernel_;
};

}  // namespace

std::vector<FilterInfo> convolution_filters() {
    std::vector<FilterInfo> out;
    {
        FilterInfo f;
        f.name = "box";
        f.help = "box blur: exact mean of the (2 radius + 1)^2 window, clamp to edge";
        f.params.push_back(
            int_param("radius", 2, 1, 64, "half width of the square window in pixels"));
        f.factory = [](ClContext&, const FilterInstance& inst) -> std::unique_ptr<GpuFilter> {
            return std::make_unique<BoxFilter>(inst);
        };
        out.push_back(std::move(f));
    }
    {
        FilterInfo f;
        f.name = "sharpen";
        f.help = "in + amount * (in - box_radius(in)), per channel, saturating";
        f.params.push_back(
            int_param("radius", 1, 1, 2, "radius of the box mean subtracted (1: 3x3, 2: 5x5)"));
        ParamSpec amount;
        amount.name = "amount";
        amount.type = ParamType::float_value;
        amount.default_value = 1.0;
        amount.min = 0;
        amount.max = 5;
        amount.help = "strength of the sharpening (0: none)";
        f.params.push_back(amount);
        f.factory = [](ClContext&, const FilterInstance& inst) -> std::unique_ptr<GpuFilter> {
            const int r = static_cast<int>(inst.get_int("radius"));
            // box.cl's exact integer window sums with sharpen's output (-DSHARPEN=1).
            return std::make_unique<BlockStencil>(
                "box.cl", "box_strip", fmt::format("-DRADIUS={} -DSHARPEN=1", r),
                stencil::sharpen_box_variants(), true,
                static_cast<cl_float>(inst.get_float("amount")),
                [r](const KernelVariant& v, const std::string& options) {
                    // BL_H quads each side; one uint4 per tile pixel.
                    return stencil::tile_local_bytes(v, options, (r + 3) / 4, r, sizeof(cl_uint4)) +
                           stencil::box_ring_bytes(v, r);
                });
        };
        out.push_back(std::move(f));
    }
    {
        FilterInfo f;
        f.name = "sobel";
        f.help = "edges: sqrt(gx^2 + gy^2) / 4 of BT.709 luma (3x3 Sobel), to R = G = B";
        f.factory = [](ClContext& cl, const FilterInstance&) -> std::unique_ptr<GpuFilter> {
            // A correctly rounded sqrt, so that every device computes the same frame (where
            // the device offers one; common.h's vfx_sqrt_cr).
            return std::make_unique<BlockStencil>("sobel.cl", "sobel_apply",
                                                  cl.info().sqrt_cr_options(),
                                                  stencil::sobel_variants(), false, 0.0f);
        };
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace vfx
