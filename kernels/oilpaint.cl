// oilpaint=radius=R:levels=L: per pixel, the (2R+1)^2 clamp-to-edge window is binned by luma
// into L levels; the fullest bin wins (ties: the lower bin); the output is the mean R, G, B of
// that bin's pixels. Alpha passed through.
// Binning, exact in integers (the same on every device and in the test's reference):
//   Yi  = 2126 R + 7152 G + 722 B            (R, G, B the working values, 0..PIX_MAX)
//   bin = min(L - 1, floor(Yi * L / (10000 * PIX_MAX)))
// i.e. bin = min(L - 1, floor(Y * L)) with Y the BT.709 luma on 0..1, evaluated exactly.
// Mean: sum / count rounded to nearest, ties to even, in integers (exact).
//
// Built with -DRADIUS=R -DLEVELS=L (the filter's parameters) and, per tuned variant, -DLW=,
// -DLH= (the work-group shape) and -DPY= (rows per work-item).
// A work-group makes LW x (LH * PY) pixels: it loads that block plus a clamp-to-edge apron of
// R into local memory (pixels, and each pixel's luma bin computed once, as a uchar). Each
// work-item then slides a window down its column of PY pixels: the bin counts live in
// registers, packed several to a uint (8-bit fields when (2R+1)^2 <= 255, else 16-bit), and
// are updated branch-free per entering/leaving pixel by a compile-time-unrolled loop over
// the packed words (a compare and a select each: no dynamic indexing into private arrays,
// which would go to per-thread stack memory whose accesses a warp cannot coalesce when
// neighbouring pixels fall into different bins). A count never leaves 0..(2R+1)^2, so packed
// add-and-subtract stays exact. The fullest bin is then found from the registers, and the
// mean of that bin's pixels comes from one pass over the window in local memory with
// select-masked sums.
// Arguments: src, src_pitch, dst, dst_pitch, width, height.

#ifndef RADIUS
#define RADIUS 4
#endif
#ifndef LEVELS
#define LEVELS 16
#endif
#ifndef LW
#define LW 32
#endif
#ifndef LH
#define LH 4
#endif
#ifndef PY
#define PY 8
#endif
#if LEVELS < 2 || LEVELS > 64 || RADIUS < 1 || RADIUS > 8
#error "oilpaint: LEVELS must be 2..64, RADIUS 1..8"
#endif

#define OIL_D (2 * RADIUS + 1)
#define OIL_TW (LW + 2 * RADIUS)
#define OIL_TH (LH * PY + 2 * RADIUS)
#if OIL_D * OIL_D <= 255
#define OIL_SHIFT 2  // 4 bins of 8 bits per word
#define OIL_BITS 8
#define OIL_MASK 0xffu
#else
#define OIL_SHIFT 1  // 2 bins of 16 bits per word
#define OIL_BITS 16
#define OIL_MASK 0xffffu
#endif
#define OIL_PER (1 << OIL_SHIFT)
#define OIL_WORDS ((LEVELS + OIL_PER - 1) / OIL_PER)

#if WORK16
#define OIL_PIX_MAX 65535UL
#define oil_convert_pix convert_ushort4
#else
#define OIL_PIX_MAX 255UL
#define oil_convert_pix convert_uchar4
#endif

inline uchar oil_bin(pix_t p) {
    const ulong yi = 2126UL * (ulong)p.x + 7152UL * (ulong)p.y + 722UL * (ulong)p.z;
    const ulong b = yi * (ulong)LEVELS / (10000UL * OIL_PIX_MAX);
    return (uchar)min(b, (ulong)(LEVELS - 1));
}

// The packed-count increment of bin b within its word.
inline uint oil_inc(uint b) {
    return 1u << ((b & (OIL_PER - 1)) * OIL_BITS);
}

__kernel __attribute__((reqd_work_group_size(LW, LH, 1))) void oilpaint(
    __global const uchar* src, int src_pitch, __global uchar* dst, int dst_pitch, int width,
    int height) {
    __local pix_t tile[OIL_TH * OIL_TW];
    __local uchar bins[OIL_TH * OIL_TW];
    const int lx = (int)get_local_id(0);
    const int ly = (int)get_local_id(1);
    const int x0 = (int)get_group_id(0) * LW - RADIUS;
    const int y0 = (int)get_group_id(1) * (LH * PY) - RADIUS;
    for (int i = ly * LW + lx; i < OIL_TH * OIL_TW; i += LW * LH) {
        const int ty = i / OIL_TW;
        const int tx = i - ty * OIL_TW;
        const pix_t p =
            load_pix(src, src_pitch, clamp_x(x0 + tx, width), clamp_y(y0 + ty, height));
        tile[i] = p;
        bins[i] = oil_bin(p);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int x = (int)get_global_id(0);
    const int yb = (int)get_global_id(1) * PY;
    if (x >= width || yb >= height) return;

    uint c[OIL_WORDS];
#pragma unroll
    for (int w = 0; w < OIL_WORDS; ++w) c[w] = 0u;
    // The first window: tile rows ly * PY .. ly * PY + 2R, columns lx .. lx + 2R.
    for (int dy = 0; dy < OIL_D; ++dy) {
        __local const uchar* row = bins + (ly * PY + dy) * OIL_TW + lx;
#pragma unroll
        for (int dx = 0; dx < OIL_D; ++dx) {
            const uint b = row[dx];
            const uint inc = oil_inc(b);
            const uint wb = b >> OIL_SHIFT;
#pragma unroll
            for (int w = 0; w < OIL_WORDS; ++w) c[w] += wb == (uint)w ? inc : 0u;
        }
    }

    for (int p = 0; p < PY; ++p) {
        const int y = yb + p;
        if (y >= height) break;
        if (p > 0) {  // slide down one row: tile row ly*PY + p - 1 leaves, ly*PY + p + 2R enters
            __local const uchar* out_row = bins + (ly * PY + p - 1) * OIL_TW + lx;
            __local const uchar* in_row = out_row + OIL_D * OIL_TW;
#pragma unroll
            for (int dx = 0; dx < OIL_D; ++dx) {
                const uint bi = in_row[dx];
                const uint bo = out_row[dx];
                const uint inc_i = oil_inc(bi);
                const uint inc_o = oil_inc(bo);
                const uint wi = bi >> OIL_SHIFT;
                const uint wo = bo >> OIL_SHIFT;
#pragma unroll
                for (int w = 0; w < OIL_WORDS; ++w)
                    c[w] += (wi == (uint)w ? inc_i : 0u) - (wo == (uint)w ? inc_o : 0u);
            }
        }
        // The fullest bin; strict > keeps the lower bin on ties.
        uint best = 0u;
        uint n = c[0] & OIL_MASK;
#pragma unroll
        for (int b = 1; b < LEVELS; ++b) {
            const uint cb = (c[b >> OIL_SHIFT] >> ((b & (OIL_PER - 1)) * OIL_BITS)) & OIL_MASK;
            const bool more = cb > n;
            n = more ? cb : n;
            best = more ? (uint)b : best;
        }
        // The mean colour of that bin's pixels.
        uint4 sum = (uint4)(0u);
        for (int dy = 0; dy < OIL_D; ++dy) {
            const int ti = (ly * PY + p + dy) * OIL_TW + lx;
#pragma unroll
            for (int dx = 0; dx < OIL_D; ++dx) {
                const uint4 v = convert_uint4(tile[ti + dx]);
                sum += (uint)bins[ti + dx] == best ? v : (uint4)(0u);
            }
        }
        const uint4 nn = (uint4)(n);  // n >= 1
        uint4 q = sum / nn;
        const uint4 rem2 = (sum - q * nn) * 2u;
        const int4 up = (rem2 > nn) | ((rem2 == nn) & ((q & 1u) == 1u));
        q += select((uint4)(0u), (uint4)(1u), up);
        pix_t o = oil_convert_pix(q);  // q <= PIX_MAX
        o.w = tile[(ly * PY + p + RADIUS) * OIL_TW + lx + RADIUS].w;
        store_pix(dst, dst_pitch, x, y, o);
    }
}
