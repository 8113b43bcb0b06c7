// The blur family: gaussian and unsharp (kernels/gaussian.cl, kernels/unsharp.cl).
#include <spdlog/spdlog.h>

#include <array>
#include <cmath>
#include <memory>

#include "compute/builtin_filters.hpp"
#include "compute/chain.hpp"
#include "compute/cl_args.hpp"
#include "compute/filter.hpp"
#include "compute/stencil_variants.hpp"
#include "core/error.hpp"

namespace vfx {

std::vector<double> gaussian_taps(double sigma) {
    const int r = static_cast<int>(std::ceil(3.0 * sigma));
    std::vector<double> taps(static_cast<size_t>(2 * r + 1));
    double sum = 0;
    for (int k = -r; k <= r; ++k) {
        const double w = std::exp(-static_cast<double>(k * k) / (2.0 * sigma * sigma));
        taps[static_cast<size_t>(k + r)] = w;
        sum += w;
    }
    for (double& w : taps)
        w /= sum;
    return taps;
}

std::vector<int> gaussian_taps_q12(double sigma) {
    const std::vector<double> taps = gaussian_taps(sigma);
    const size_t r = taps.size() / 2;
    std::vector<int> n(r + 1);
    int side = 0;
    for (size_t d = 1; d <= r; ++d) {
        n[d] = static_cast<int>(std::lround(4096.0 * taps[r + d]));
        side += n[d];
    }
    n[0] = 4096 - 2 * side;
    return n;
}

namespace stencil {

std::vector<KernelVariant> gaussian_variants() {
    const auto rgba8_only = [](const std::string& o) { return build_option(o, "WORK16") == 0; };
    const auto rgba8_tc = [](const std::string& o) {
        return build_option(o, "WORK16") == 0 && build_option(o, "GS_TC") == 1;
    };
    const auto rgba8_no_tc = [](const std::string& o) {
        return build_option(o, "WORK16") == 0 && build_option(o, "GS_TC") != 1;
    };
    // Candidates that lost on every device measured (H100 and PoCL, both radii, 1080p and
    // 4K, 1.3x the best or worse: benchmarks/2026-11-25-h100/tuned.txt) are left out, so a
    // first start compiles fewer programs: most shapes of the register-only and LM=1 paths,
    // every streaming candidate with float4 quads or one-quad horizontal tasks.
    return {{"-DPY=4", {32, 4}, {4, 4}},
            {"-DPY=8", {32, 4}, {4, 8}},
            // Local memory (gaussian.cl's LM path): the horizontal pass once per tile row.
            {"-DLM=1 -DLX=8 -DLY=8 -DPY=4", {8, 8}, {4, 4}},
            // Streaming local memory (gaussian.cl's LM=2 path): a strip of NCH chunks of
            // LY PY rows, horizontal results in a ring of R, G, B float planes, vertical pass
            // as a register sliding window; per_item y = PY NCH. Quads as words (common.h's
            // QW=2: one 16-byte access per quad), the horizontal pass in tasks of QX quads
            // (each quad's pixels taken out once). Measured and dropped (H100, 4K): QW=1 twins
            // (5-8 % slower than QW=2), a split horizontal/vertical work layout with one pixel
            // column per work-item (LM=3, 0.080-0.103 ms against 0.076), prefetching the next
            // chunk's quads into registers (no change); QX=4 with PY=2 and 32x8. With C3 (below):
            // that prefetch again (3-10 % slower), outputs taking their input words from the
            // ring (1-3 % slower), the vertical pass over 2 or 1 pixel columns per work-item
            // (48 or 30 __local bytes read per pixel, not 84: 2-14 % slower), the ring's quad
            // columns swizzled so that neither the horizontal tasks' stores (8.2-way bank
            // conflicts in Nsight Compute) nor the vertical reads conflict (as fast: 0.0614
            // against 0.0619 ms at radius 6). Its instructions bound it (Nsight Compute through
            // peers/ptx_profile.cu, radius 6: 145 per pixel, 78 of them the taps' own
            // multiply-adds, issue slots 62 % busy, L1/__local 80 % busy; warps mostly wait for
            // the issue slot another took, then for global loads).
            {"-DLM=2 -DLX=16 -DLY=8 -DPY=4 -DNCH=4 -DQW=2 -DQX=2", {16, 8}, {4, 16}},
            {"-DLM=2 -DLX=16 -DLY=8 -DPY=4 -DNCH=4 -DQW=2 -DQX=4", {16, 8}, {4, 16}},
            // Three channels (gaussian.cl's C3): R, G, B only in every step, interior tasks
            // load their quads with no edge test, no ring wrap test per row, output words put
            // together from R, G, B and the input's alpha bits; the same frames with about a
            // fifth fewer instructions per pixel (PTX estimate, Gaussian r6 157 -> 126, unsharp
            // r3 122 -> 104 at QX=4), so QX=4 may now pay. The best shapes above, a taller strip
            // (less apron per output row) and 16x16.
            {"-DLM=2 -DLX=16 -DLY=8 -DPY=4 -DNCH=4 -DQW=2 -DQX=2 -DC3=1", {16, 8}, {4, 16}},
            {"-DLM=2 -DLX=16 -DLY=8 -DPY=4 -DNCH=4 -DQW=2 -DQX=4 -DC3=1", {16, 8}, {4, 16}},
            {"-DLM=2 -DLX=16 -DLY=8 -DPY=2 -DNCH=8 -DQW=2 -DQX=2 -DC3=1", {16, 8}, {4, 16}},
            {"-DLM=2 -DLX=16 -DLY=16 -DPY=2 -DNCH=4 -DQW=2 -DQX=2 -DC3=1", {16, 16}, {4, 8}},
            {"-DLM=2 -DLX=16 -DLY=8 -DPY=4 -DNCH=8 -DQW=2 -DQX=4 -DC3=1", {16, 8}, {4, 32}},
            // ... with byte permutes (gaussian.cl's PRMT), RGBA8 only.
            {"-DLM=2 -DLX=16 -DLY=8 -DPY=2 -DNCH=8 -DQW=2 -DQX=2 -DC3=1 -DPRMT=1",
             {16, 8},
             {4, 16},
             rgba8_only},
            {"-DLM=2 -DLX=16 -DLY=16 -DPY=2 -DNCH=4 -DQW=2 -DQX=2 -DC3=1 -DPRMT=1",
             {16, 16},
             {4, 8},
             rgba8_only},
            {"-DLM=2 -DLX=16 -DLY=8 -DPY=4 -DNCH=4 -DQW=2 -DQX=2 -DC3=1 -DPRMT=1",
             {16, 8},
             {4, 16},
             rgba8_only},
            // The first of these with 4 chunks instead of 8: strips of 64 rows, twice as many
            // groups (the grid's waves were not full: SMs idle 12 % of unsharp's cycles). H100
            // 4K: unsharp sigma 1 0.0485 -> 0.0466 ms, Gaussian sigma 2 0.0605 -> 0.0595, chosen
            // for both in both rounds; 16x16 with 2, 3 or 5 chunks, 16x8 PY 4 with 2, 16x8 PY 2
            // with 2, 3 or 6, 32x4 and 16x4 measured and left out (as fast or slower:
            // benchmarks/2026-11-25-h100-s6/experiments/strips-*, strips2-*).
            {"-DLM=2 -DLX=16 -DLY=8 -DPY=2 -DNCH=4 -DQW=2 -DQX=2 -DC3=1 -DPRMT=1",
             {16, 8},
             {4, 8},
             rgba8_only},
            // ... with the permutes' constant in a register (gaussian.cl's RM): Gaussian sigma 2
            // at 4K 0.0539 -> 0.0519 ms in the tuner, unsharp unchanged. Measured with it and
            // dropped: the outputs' input quads loaded before the barrier, register budgets of
            // 56 and 48 (-cl-nv-maxrregcount; all within 1 %), each work-item's next quads
            // copied to __local by cp.async during the vertical pass (85-109 registers: 20-40 %
            // slower).
            {"-DLM=2 -DLX=16 -DLY=8 -DPY=2 -DNCH=4 -DQW=2 -DQX=2 -DC3=1 -DPRMT=1 -DRM=1",
             {16, 8},
             {4, 8},
             rgba8_only},
            // ... with the ring's quad columns in task order (gaussian.cl's SWZ): the horizontal
            // tasks' stores free of bank conflicts. Unsharp sigma 1 at 4K 0.0424 -> 0.0416-0.0419
            // ms in the tuner, the Gaussian unchanged (benchmarks/2026-11-25-h100-s8/experiments).
            {"-DLM=2 -DLX=16 -DLY=8 -DPY=2 -DNCH=4 -DQW=2 -DQX=2 -DC3=1 -DPRMT=1 -DRM=1 -DSWZ=1",
             {16, 8},
             {4, 8},
             rgba8_only},
            // ... in strips half as wide (8 quad columns) and twice as tall for the same number
            // of groups: half the apron rows per output row. Gaussian sigma 2 at 4K 0.0520 ->
            // 0.0506-0.0512 ms in the tuner, unsharp 0.0418 -> 0.0409-0.0413; 16 wide by 4 tall,
            // 8 by 32, and strips of 5, 6 (and for unsharp 8) chunks were slower
            // (benchmarks/2026-11-25-h100-s8/experiments/shapes*-tuned.txt).
            {"-DLM=2 -DLX=8 -DLY=16 -DPY=2 -DNCH=4 -DQW=2 -DQX=2 -DC3=1 -DPRMT=1 -DRM=1 -DSWZ=1",
             {8, 16},
             {4, 8},
             rgba8_only},
            {"-DLM=2 -DLX=8 -DLY=8 -DPY=2 -DNCH=8 -DQW=2 -DQX=2 -DC3=1 -DPRMT=1 -DRM=1 -DSWZ=1",
             {8, 8},
             {4, 16},
             rgba8_only},
            {"-DLM=2 -DLX=8 -DLY=16 -DPY=2 -DNCH=3 -DQW=2 -DQX=2 -DC3=1 -DPRMT=1 -DRM=1 -DSWZ=1",
             {8, 16},
             {4, 6},
             rgba8_only},
            // Both passes on the tensor cores (gaussian.cl's MMA), RGBA8: work-group 32 x MW
            // (one warp per 16 output columns), strips of NS steps of 16 rows; per_item is
            // (16 MW / 32, 16 NS / MW). The first runs everywhere (without the instruction,
            // each product goes through __local: slow, but the tests check it on every
            // device, and its 2-step strips walk the ring through all its slots on small
            // frames); the others only where the hardware has it (GS_TC=1). H100, tuner, 4K:
            // Gaussian 0.0342-0.0345 ms (MW 4, NS 9), unsharp 0.0339-0.0346 (MW 4, NS 7);
            // cp.async or bulk copies, persistent groups sharing the frame out evenly and every
            // other strip walked upwards were slower or no faster
            // (benchmarks/2026-11-26-h100/experiments, benchmarks/2026-11-26-h100-s2).
            // The strips' length decides how the grid fills the GPU's waves: an SM holds 4
            // groups of the Gaussian (117 registers) and 5 of the unsharp (96), so on 132 SMs a
            // 4K grid of 60 strip columns fills whole waves with 8 (NS 17: 480 groups, 0.91
            // waves; NS 8: 1020, 1.93) and 11 strips (NS 13: 660 groups, one wave), where NS 9
            // left the Gaussian 1.70 waves and NS 7 the unsharp 1.82 (and the NS 11 and 15
            // measured slower before, 1.48 and 1.02). H100, 4K, tuner: Gaussian
            // 0.0340 -> 0.0324-0.0326 ms (NS 17), unsharp 0.0339 -> 0.0318-0.0319 (NS 13)
            // (benchmarks/2026-11-26-h100-s4/experiments/2-strip-waves). Other devices and
            // sizes pick their own.
            {"-DMMA=1 -DMW=2 -DNS=2", {32, 2}, {1, 16}, rgba8_only},
            {"-DMMA=1 -DMW=4 -DNS=9", {32, 4}, {2, 36}, rgba8_tc},
            {"-DMMA=1 -DMW=4 -DNS=5", {32, 4}, {2, 20}, rgba8_tc},
            {"-DMMA=1 -DMW=4 -DNS=7", {32, 4}, {2, 28}, rgba8_tc},
            {"-DMMA=1 -DMW=2 -DNS=5", {32, 2}, {1, 40}, rgba8_tc},
            {"-DMMA=1 -DMW=2 -DNS=9", {32, 2}, {1, 72}, rgba8_tc},
            {"-DMMA=1 -DMW=8 -DNS=9", {32, 8}, {4, 18}, rgba8_tc},
            {"-DMMA=1 -DMW=4 -DNS=8", {32, 4}, {2, 32}, rgba8_tc},
            {"-DMMA=1 -DMW=4 -DNS=13", {32, 4}, {2, 52}, rgba8_tc},
            {"-DMMA=1 -DMW=4 -DNS=17", {32, 4}, {2, 68}, rgba8_tc},
            // LV=1 (gaussian.cl): the products in levels, the outputs rounded and packed two at
            // a time (one F2IP for two levels on NVIDIA): the step's outputs 20 instructions
            // fewer per work-item for the Gaussian, 44 for the unsharp (by hand; NVIDIA's PTX
            // of the unsharp through ptxas for sm_90: 1431 -> 1374 in all). H200 4K, the bench in
            // three alternating rounds: the unsharp 0.0294-0.0298 ms (66-67 %) with NS 8 or 17
            // against 0.0314-0.0316 for NS 13 without (its program takes 128 registers where it
            // took 95: 4 groups per SM, so NS 13, one wave at 5, lost 0.036 ms); the Gaussian
            // level; the H100's tuner keeps NS 13 without LV for the unsharp (4 % faster there)
            // (benchmarks/2026-11-28-s22).
            {"-DMMA=1 -DLV=1 -DMW=2 -DNS=2", {32, 2}, {1, 16}, rgba8_only},
            {"-DMMA=1 -DLV=1 -DMW=4 -DNS=8", {32, 4}, {2, 32}, rgba8_tc},
            {"-DMMA=1 -DLV=1 -DMW=4 -DNS=17", {32, 4}, {2, 68}, rgba8_tc},
            // LH=2|3 (gaussian.cl's gm_ld16): the strips' loads with an L2 fetch size of 256
            // bytes (LH=3: through the read-only path too), so that a miss brings the
            // neighbouring groups' apron columns with it. H200 4K, the bench in three alternating
            // rounds: the Gaussian 0.0287-0.0290 ms against 0.0291-0.0293, the unsharp (LH=3)
            // 0.0295-0.0300 against 0.0299-0.0303 (benchmarks/2026-11-28-s23).
            {"-DMMA=1 -DLV=1 -DMW=4 -DNS=17 -DLH=2", {32, 4}, {2, 68}, rgba8_tc},
            {"-DMMA=1 -DLV=1 -DMW=4 -DNS=17 -DLH=3", {32, 4}, {2, 68}, rgba8_tc},
            // PG=4 (gaussian.cl): one wave of strips of unequal length, the same work on every
            // SM, the grid's columns the strips' (group_px.x: GM_W). H200 4K, the bench in three
            // alternating rounds: the Gaussian 0.0280-0.0283 ms (70 % of the copy) against
            // 0.0284-0.0287 for NS 17 with LH=2, the unsharp 0.0284-0.0286 (69 %) against
            // 0.0296-0.0300 (benchmarks/2026-11-28-s24).
            {"-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DLH=2", {32, 4}, {1, 1}, rgba8_tc, {64, 0}},
            {"-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DLH=3", {32, 4}, {1, 1}, rgba8_tc, {64, 0}},
            // PG where the device has no tensor cores (two-warp groups, as the first MMA
            // candidate): slow there too, but the tests check the frame's cut into strips of
            // unequal length on every device (a 3 x 200 frame: 8 groups on 2 compute units cut
            // its one column into strips of 1 and 2 steps; 130 x 7: 5 columns, 3 of them cut in
            // two, whose first strip is empty).
            {"-DMMA=1 -DLV=1 -DMW=2 -DPG=4", {32, 2}, {1, 1}, rgba8_no_tc, {32, 0}}};
}

// __local bytes of an LM=2 candidate of gaussian_strip at radius r: three planes (R, G, B) of
// float4 (one per quad column) over a ring of LY PY + 2r rows. 0 for other candidates.
size_t gaussian_ring_bytes(const KernelVariant& v, int r) {
    if (v.options.find("-DLM=2") == std::string::npos) return 0;
    const size_t py =
        v.per_item[1] /
        static_cast<size_t>(std::stoi(v.options.substr(v.options.find("-DNCH=") + 6)));
    const size_t ring = v.local[1] * py + 2 * static_cast<size_t>(r);
    return 3 * ring * v.local[0] * 4 * sizeof(cl_float);
}

}  // namespace stencil

namespace {

// The largest radius the one-launch kernel (gaussian.cl's gaussian_strip) takes; larger ones
// use the two-pass path.
constexpr int kStripMaxRadius = 8;
static_assert(kStripMaxRadius <= 8,
              "gaussian.cl's gs_tap reads taps 0 .. 8 of a float16, and its MMA windows reach 8 "
              "pixels beyond 16");

std::string work_options(WorkFormat f) {
    return f == WorkFormat::rgba16 ? "-DWORK16=1" : "-DWORK16=0";
}
size_t work_index(WorkFormat f) {
    return f == WorkFormat::rgba16 ? 1 : 0;
}

// A separable Gaussian: the horizontal pass (gaussian.cl's gaussian_h, working format -> float4
// scratch) and the launch of a vertical pass that reads the scratch through sep_pass_v
// (argument layout shared by gaussian_v and unsharp_v: tmp, width, height, wt, r, tile, src,
// src_pitch, dst, dst_pitch, then the kernel's own extras).
class SeparableGaussian {
public:
    SeparableGaussian(ClContext& cl, double sigma) {
        const std::vector<double> taps = gaussian_taps(sigma);
        radius_ = static_cast<int>(taps.size() / 2);
        std::vector<cl_float> w(taps.size());
        for (size_t i = 0; i < taps.size(); ++i)
            w[i] = static_cast<cl_float>(taps[i]);
        weights_ = cl.buffer(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, w.size() * sizeof(cl_float),
                             w.data());
    }

    // Enqueues the horizontal pass io.src -> scratch.
    void enqueue_h(FilterIo& io) {
        const size_t wi = work_index(io.g.format);
        if (!h_[wi]) {
            h_[wi] = io.cl.kernel("gaussian.cl", "gaussian_h", work_options(io.g.format));
            h_local_[wi] = pick_local(io.cl, h_[wi].get(), 64, 4, true);
        }
        const size_t need = size_t{io.g.width} * io.g.height * sizeof(cl_float4);
        if (scratch_bytes_ != need) {
            scratch_ = io.cl.buffer(CL_MEM_READ_WRITE, need);
            scratch_bytes_ = need;
        }
        const auto local = h_local_[wi];
        cl_kernel k = h_[wi].get();
        set_args(k, io.src, static_cast<cl_int>(io.g.pitch), static_cast<cl_int>(io.g.width),
                 static_cast<cl_int>(io.g.height), weights_.get(), static_cast<cl_int>(radius_),
                 LocalMem{tile_bytes(local, true)}, scratch_.get());
        io.events.push_back(enqueue_2d(io.queue, k, io.g.width, io.g.height, local));
        io.keep.push_back(weights_);
        io.keep.push_back(scratch_);
    }

    // Sets the shared vertical-pass arguments 0..9 of `k` (its extras are set by the caller)
    // and enqueues it, scratch -> io.dst.
    void enqueue_v(FilterIo& io, cl_kernel k, std::array<size_t, 2> local) {
        set_args(k, scratch_.get(), static_cast<cl_int>(io.g.width),
                 static_cast<cl_int>(io.g.height), weights_.get(), static_cast<cl_int>(radius_),
                 LocalMem{tile_bytes(local, false)}, io.src, static_cast<cl_int>(io.g.pitch),
                 io.dst, static_cast<cl_int>(io.g.pitch));
        io.events.push_back(enqueue_2d(io.queue, k, io.g.width, io.g.height, local));
    }

    // The vertical pass's local size for `k`.
    std::array<size_t, 2> vertical_local(ClContext& cl, cl_kernel k) const {
        return pick_local(cl, k, 8, 32, false);
    }

private:
    size_t tile_bytes(std::array<size_t, 2> local, bool horizontal) const {
        const size_t apron = 2 * static_cast<size_t>(radius_);
        return (horizontal ? (local[0] + apron) * local[1] : local[0] * (local[1] + apron)) *
               sizeof(cl_float4);
    }

    // The largest local size <= (want_x, want_y) whose tile fits the device's local memory
    // (halving y, then x).
    std::array<size_t, 2> pick_local(ClContext& cl, cl_kernel k, size_t want_x, size_t want_y,
                                     bool horizontal) const {
        std::array<size_t, 2> local = fit_local_2d(k, cl.device(), want_x, want_y);
        const size_t avail = cl.info().local_mem_bytes > kernel_static_local(k, cl.device())
                                 ? cl.info().local_mem_bytes - kernel_static_local(k, cl.device())
                                 : 0;
        while (tile_bytes(local, horizontal) > avail) {
            if (local[1] > 1)
                local[1] /= 2;
            else if (local[0] > 1)
                local[0] /= 2;
            else
                throw GpuError(fmt::format("gaussian: radius {} needs more local memory than the "
                                           "device has ({} bytes)",
                                           radius_, avail),
                               CL_OUT_OF_RESOURCES);
        }
        return local;
    }

    int radius_ = 0;
    ClMem weights_;
    ClMem scratch_;
    size_t scratch_bytes_ = 0;
    ClKernel h_[2];
    std::array<size_t, 2> h_local_[2] = {};
};

// Radius <= kStripMaxRadius: the one-launch gaussian_strip (blur or unsharp mask), tuned. Its
// taps go by value (gaussian.cl's wh and wv: tap d at component d, unsharp's amount at
// component 15): on RGBA8 the fixed-point ones (gaussian_taps_q12, gaussian.cl's GS_FX), on
// RGBA16 the float ones.
class GaussianStrip {
public:
    GaussianStrip(double sigma, bool unsharp, double amount)
        : unsharp_(unsharp),
          radius_(static_cast<int>(gaussian_taps(sigma).size() / 2)),
          kernel_("gaussian.cl", "gaussian_strip", stencil::gaussian_variants(),
                  [r = radius_](const KernelVariant& v, const std::string& options) {
                      // GS_HALF quads each side; one float4 per tile pixel.
                      return stencil::tile_local_bytes(v, options, (r + 3) / 4, r,
                                                       sizeof(cl_float4)) +
                             stencil::gaussian_ring_bytes(v, r);
                  }) {
        const std::vector<double> taps = gaussian_taps(sigma);
        const std::vector<int> q12 = gaussian_taps_q12(sigma);
        for (int d = 0; d <= radius_; ++d) {
            taps_[0].s[d] = static_cast<cl_float>(q12[static_cast<size_t>(d)]) / 4096.0f;
            taps_[1].s[d] = static_cast<cl_float>(taps[static_cast<size_t>(radius_ + d)]);
        }
        amount_ = taps_;  // component 15 of taps_ stays 0
        for (cl_float16& t : amount_)
            t.s[15] = unsharp ? static_cast<cl_float>(amount) : 0.0f;
    }

    static bool takes(double sigma) {
        return static_cast<int>(gaussian_taps(sigma).size() / 2) <= kStripMaxRadius;
    }

    void enqueue(FilterIo& io) {
        // GS_TC: the device runs PTX mma.sync m16n8k16 and m16n8k8 (gaussian.cl's MMA
        // candidates).
        const bool tc = io.cl.info().nv_compute_capability >= 80;
        const std::string opts =
            fmt::format("{} -DRADIUS={} -DUNSHARP={} -DGS_TC={}", work_options(io.g.format),
                        radius_, unsharp_ ? 1 : 0, tc ? 1 : 0);
        const auto pitch = static_cast<cl_int>(io.g.pitch);
        const size_t wi = work_index(io.g.format);
        io.events.push_back(kernel_.enqueue(
            io.cl, io.queue, opts, io.g.width, io.g.height,
            [&](cl_kernel k, std::array<size_t, 2>) {
                set_args(k, io.src, pitch, io.dst, pitch, static_cast<cl_int>(io.g.width),
                         static_cast<cl_int>(io.g.height), taps_[wi], amount_[wi]);
            }));
    }

private:
    bool unsharp_;
    int radius_ = 0;
    // By work_index: taps by distance; the same with unsharp's amount in component 15.
    std::array<cl_float16, 2> taps_{};
    std::array<cl_float16, 2> amount_{};
    TunedKernel kernel_;
};

class GaussianFilter final : public GpuFilter {
public:
    GaussianFilter(ClContext& cl, const FilterInstance& f) : blur_(cl, f.get_float("sigma")) {
        if (GaussianStrip::takes(f.get_float("sigma")))
            strip_ = std::make_unique<GaussianStrip>(f.get_float("sigma"), false, 0.0);
    }

    void enqueue(FilterIo& io) override {
        if (strip_) return strip_->enqueue(io);
        const size_t wi = work_index(io.g.format);
        if (!v_[wi]) {
            v_[wi] = io.cl.kernel("gaussian.cl", "gaussian_v", work_options(io.g.format));
            v_local_[wi] = blur_.vertical_local(io.cl, v_[wi].get());
        }
        blur_.enqueue_h(io);
        blur_.enqueue_v(io, v_[wi].get(), v_local_[wi]);
    }

private:
    SeparableGaussian blur_;
    std::unique_ptr<GaussianStrip> strip_;
    ClKernel v_[2];
    std::array<size_t, 2> v_local_[2] = {};
};

class UnsharpFilter final : public GpuFilter {
public:
    UnsharpFilter(ClContext& cl, const FilterInstance& f)
        : blur_(cl, f.get_float("sigma")), amount_(static_cast<cl_float>(f.get_float("amount"))) {
        if (GaussianStrip::takes(f.get_float("sigma")))
            strip_ =
                std::make_unique<GaussianStrip>(f.get_float("sigma"), true, f.get_float("amount"));
    }

    void enqueue(FilterIo& io) override {
        if (strip_) return strip_->enqueue(io);
        const size_t wi = work_index(io.g.format);
        if (!v_[wi]) {
            v_[wi] = io.cl.kernel("unsharp.cl", "unsharp_v", work_options(io.g.format));
            v_local_[wi] = blur_.vertical_local(io.cl, v_[wi].get());
        }
        blur_.enqueue_h(io);
        set_arg(v_[wi].get(), 10, amount_);
        blur_.enqueue_v(io, v_[wi].get(), v_local_[wi]);
    }

private:
    SeparableGaussian blur_;
    cl_float amount_;
    std::unique_ptr<GaussianStrip> strip_;
    ClKernel v_[2];
    std::array<size_t, 2> v_local_[2] = {};
};

ParamSpec sigma_param(double def) {
    ParamSpec p;
    p.name = "sigma";
    p.type = ParamType::float_value;
    p.default_value = def;
    p.min = 0.1;
    p.max = 32;
    p.help = "standard deviation in pixels (radius ceil(3 sigma))";
    return p;
}

}  // namespace

std::vector<FilterInfo> blur_filters() {
    std::vector<FilterInfo> out;
    {
        FilterInfo f;
        f.name = "gaussian";
        f.help = "Gaussian blur of R, G, B (separable, clamp to edge)";
        f.params.push_back(sigma_param(1.5));
        f.factory = [](ClContext& cl, const FilterInstance& inst) -> std::unique_ptr<GpuFilter> {
            return std::make_unique<GaussianFilter>(cl, inst);
        };
        out.push_back(std::move(f));
    }
    {
        FilterInfo f;
        f.name = "unsharp";
        f.help = "unsharp mask: in + amount * (in - gaussian(in)), per channel, saturating";
        f.params.push_back(sigma_param(1.0));
        ParamSpec amount;
        amount.name = "amount";
        amount.type = ParamType::float_value;
        amount.default_value = 0.5;
        amount.min = 0;
        amount.max = 5;
        amount.help = "strength of the sharpening (0: none)";
        f.params.push_back(amount);
        f.factory = [](ClContext& cl, const FilterInstance& inst) -> std::unique_ptr<GpuFilter> {
            return std::make_unique<UnsharpFilter>(cl, inst);
        };
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace vfx
