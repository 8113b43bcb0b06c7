// gaussian=sigma=S: separable Gaussian blur, radius ceil(3S), taps exp(-x^2 / 2S^2) normalised
// (computed on the host), clamp to edge. R, G, B filtered; alpha passed through.
// Pass 1 (gaussian_h): working format -> float4 scratch (width elements per row).
// Pass 2 (gaussian_v): scratch -> working format, rounded to nearest even, saturated.

__kernel void gaussian_h(__global const uchar* src, int src_pitch, int width, int height,
                         __constant float* wt, int r, __local float4* tile,
                         __global float4* dst) {
    const float4 sum = sep_pass_h(src, src_pitch, width, height, wt, r, tile);
    const int x = (int)get_global_id(0);
    const int y = (int)get_global_id(1);
    if (in_frame(x, y, width, height)) dst[(size_t)y * (size_t)width + (size_t)x] = sum;
}

__kernel void gaussian_v(__global const float4* tmp, int width, int height, __constant float* wt,
                         int r, __local float4* tile, __global const uchar* src, int src_pitch,
                         __global uchar* dst, int dst_pitch) {
    const float4 sum = sep_pass_v(tmp, width, height, wt, r, tile);
    const int x = (int)get_global_id(0);
    const int y = (int)get_global_id(1);
    if (!in_frame(x, y, width, height)) return;
    pix_t out = float_to_pix(sum);
    out.w = load_pix(src, src_pitch, x, y).w;
    store_pix(dst, dst_pitch, x, y, out);
}

// ---- One-launch version for radius <= 8 (gaussian_strip) ----
// Build options: -DRADIUS=r (1..8) -DPY=rows per work-item -DUNSHARP=0|1. Each work-item makes
// a block of 4 x PY pixels at (4 gx, PY gy), walking down the PY + 2r input rows it needs: per
// row, the 4 + 2r pixels around the block come in as aligned quads (one vector load each), the
// horizontal pass gives 4 values (symmetric taps: the two pixels at distance k are added, then
// multiplied once), and each is accumulated into the (at most PY) outputs whose vertical
// window holds that row. No local memory, no barriers, no scratch frame: global traffic is 1
// pixel read (L1/L2 absorb the overlap of neighbouring blocks) + 1 written. Multiply-adds are
// explicit fma() (one correctly rounded operation, the same on every device).
// Arguments: src, src_pitch, dst, dst_pitch, width, height, wh, wv. The taps come by value, so
// NVIDIA's compiler reads them as operands from the constant bank (no loads, no registers): wh.sd
// is the horizontal tap at distance d (0 .. r; the taps are symmetric), wv.sd the vertical one
// (the same taps), wv.sf unsharp's amount a: out = fma(a, in - blur, in), unsharp.cl's
// in + a (in - blur) with one rounding.
//
// GS_FX (RGBA8): the blur in fixed point, so that every candidate, the tensor-core one (MMA)
// included, makes the same frame on every device. The host gives taps n_d / 4096 (n_d =
// round(4096 w_d) for d >= 1, n_0 = 4096 - 2 sum n_d: they sum to exactly 1). The horizontal
// sum H = sum n x / 4096 is then exact in float (x <= 255: multiples of 2^-12 below 2^8, in any
// order), and is rounded to quarters of a level (ties to even: H + 2^21 - 2^21); the vertical
// sum of n H / 4096 is exact again (multiples of 2^-14 below 2^8). The blur is that sum, rounded
// to the nearest level (ties to even). Within 1/8 level of the float blur with the quantised
// taps (tests: the exact integer form in tests/compute_test_util.hpp, and within 1 of the double
// reference). Quarters rather than eighths because the tensor-core candidates' conversion of
// the horizontal sums to half rounds them to quarters for nothing (see the MMA path): the
// explicit rounding to eighths cost the H200's 4K unsharp 2 % (BENCHMARKS.md, twenty-sixth
// session). RGBA16 keeps float taps and no rounding in between.

#ifdef RADIUS
#ifndef PY
#define PY 4
#endif
#ifndef UNSHARP
#define UNSHARP 0
#endif
#define GS_HALF ((RADIUS + 3) / 4)   // quads on each side of the block
#define GS_NQ (2 * GS_HALF + 1)      // quads per input row
#define GS_OFF (4 * GS_HALF - RADIUS)  // index of pixel xa - r in the row's pixels
#if WORK16
#define GS_FX 0
#else
#define GS_FX 1
#endif
#ifndef GS_TC
#define GS_TC 0  // the device has PTX mma.sync m16n8k16/k8 (host: NVIDIA, compute capability 8.0+)
#endif
#if defined(LV) && LV && !(defined(MMA) && MMA)
#error "gaussian: LV is an option of the tensor-core path (MMA)"
#endif
#if defined(C3) && C3 && !(defined(LM) && LM == 2)
#error "gaussian: C3 is an option of the streaming path (LM=2)"
#endif

// Tap at distance d (a constant wherever it is called: the loops that ask are unrolled).
inline float gs_tap(float16 w, int d) {
    return d == 0 ? w.s0 : d == 1 ? w.s1 : d == 2 ? w.s2 : d == 3 ? w.s3 : d == 4 ? w.s4
         : d == 5 ? w.s5 : d == 6 ? w.s6 : d == 7 ? w.s7 : w.s8;
}
// Vertical tap k (0 .. 2r, top to bottom) of the window.
#define GS_VT(k) gs_tap(wv, abs((k) - RADIUS))

// The 4 pixels of the quad at xa of row y (clamped) as floats, into p[0..3] (-DQW: as words).
inline void gs_load_quad(__global const uchar* src, int pitch, int xa, int y, int width,
                         float4* p) {
#if QW
    const quadw_t v = load_quadw(src, pitch, xa, y, width);
#pragma unroll
    for (int c = 0; c < 4; ++c) p[c] = pixw_to_float(QW_PIX(v, c));
#else
    const quad_t v = load_quad(src, pitch, xa, y, width);
#pragma unroll
    for (int c = 0; c < 4; ++c) p[c] = convert_float4(QUAD_PIX(v, c));
#endif
}

// The horizontal pass at pixel m of a row's pixels p (symmetric taps: the two pixels at
// distance k are added, then multiplied once); GS_FX: rounded to quarters of a level.
inline float4 gs_h_at(const float4* p, int m, float16 wh) {
    float4 s = p[m] * gs_tap(wh, 0);
#pragma unroll
    for (int k = 1; k <= RADIUS; ++k) s = fma((float4)(gs_tap(wh, k)), p[m - k] + p[m + k], s);
#if GS_FX
    s = (s + 2097152.0f) - 2097152.0f;
#endif
    return s;
}

// Writes the quad at xa of row y from its 4 filtered pixels acc (R, G, B; alpha and, for
// UNSHARP, the input from the source quad), rounded to nearest even and saturated. amt: UNSHARP's
// amount.
inline void gs_store(__global const uchar* src, int src_pitch, __global uchar* dst, int dst_pitch,
                     int xa, int y, int width, const float4* acc, float amt) {
#if QW
    const quadw_t in = load_quadw(src, src_pitch, xa, y, width);
    pixw_t o[4];
#pragma unroll
    for (int c = 0; c < 4; ++c) {
        const pixw_t pin = QW_PIX(in, c);
#if UNSHARP
        const float4 x = pixw_to_float(pin);
        o[c] = float_to_pixw(fma((float4)(amt), x - acc[c], x), pin);
#else
        o[c] = float_to_pixw(acc[c], pin);
#endif
    }
    store_quadw(dst, dst_pitch, xa, y, width, (quadw_t)(o[0], o[1], o[2], o[3]));
#else
    const quad_t in = load_quad(src, src_pitch, xa, y, width);
    pix_t o[4];
#pragma unroll
    for (int c = 0; c < 4; ++c) {
        const pix_t pin = QUAD_PIX(in, c);
#if UNSHARP
        const float4 x = pix_to_float(pin);
        o[c] = float_to_pix(fma((float4)(amt), x - acc[c], x));
#else
        o[c] = float_to_pix(acc[c]);
#endif
        o[c].w = pin.w;
    }
    store_quad(dst, dst_pitch, xa, y, width, (quad_t)(o[0], o[1], o[2], o[3]));
#endif
}

#if defined(MMA) && MMA
// ---- Tensor-core version (-DMMA=1 -DMW=warps -DNS=steps; RGBA8, work-group 32 x MW) ----
// Both passes as matrix products on NVIDIA's tensor cores (PTX mma.sync m16n8k16, and m16n8k8
// for K8: f16 inputs, f32 sums), exact: every product and partial sum of the fixed-point
// definition (see GS_FX), in the shifted and scaled form the products compute it (pixels as
// 4 + x / 256, below), is a float with at most 24 significant bits, so the hardware's sums,
// whatever their order and internal rounding, are the exact values the other candidates compute
// one multiply-add at a time. Per warp, 16 output columns; the group's MW warps side by side,
// 16 MW columns, walking down a strip of NS steps of 16 output rows.
//  - Horizontal: D[m][n] = sum_k A[m][k] B[k][n] with m the output column (16), k the input
//    column of a 32-wide window starting 8 left of the warp's first column (two k16 products;
//    K8, radius <= 4: 24 wide from 4 left, a k16 and a k8 product, see GM_OFF), n the row (8 per
//    product): A[m][k] = tap |k - GM_OFF - m| (0 beyond the radius: radius <= 8),
//    B[k][n] the pixel over 256, as the half 4 + value / 256 (exact; its bits are 0x44 above
//    the byte, one byte permute), D started at -3 (the taps sum to exactly 1): 1 + H / 256,
//    which the conversion to half rounds to 2^-10 (quarters of a level, ties to even: the
//    half's ulp in [1, 2)), then H / 256 (LV: H) exactly by one f16x2 add (multiply-add).
//  - Vertical: the same A (m now the output row, k the input row of a 32-row window starting 8
//    above; K8: 24 from 4 above), B[k][n] = H / 256 at row k, column n, D started at 0
//    (Gaussian) or at minus the input over 256 (unsharp: see gm_start). The horizontal result's
//    register layout (thread lane: column lane / 4 and lane / 4 + 8, rows 2 (lane % 4) and
//    2 (lane % 4) + 1) is exactly the vertical B operand's, so H goes from one product to the
//    next in registers, two halves per register (a 16-row H block per window half: H of input
//    chunk s and s + 1).
//  - Input: the group's tile (16 MW + 16 columns: 8 apron each side; K8: 4) comes into __local
//    in chunks of 16 rows (chunk j: rows sy - 8 + 16 j; K8: sy - 4 + 16 j), a ring of three
//    (below); output rows 16 s .. 16 s + 15 of the strip need H of chunks s and s + 1 (K8: the
//    first 8 rows of s + 1), and their own input pixels (alpha, unsharp's input) from rows 8 ..
//    15 of chunk s and 0 .. 7 of chunk s + 1 (K8: rows 4 .. 15 of s and 0 .. 3 of s + 1).
//  - Output: each work-item makes 2 x 2 pixel pairs, a column half and a channel at a time
//    (rows g and g + 8, columns 2t, 2t + 1 and 8 + 2t, 9 + 2t); 8-byte stores (a warp writes
//    8 rows x 32 bytes per store: whole sectors).
// H100, 4K: Gaussian (radius 6) 0.0337-0.0338 ms, unsharp (radius 3) 0.0324-0.0326 (2026-11-27;
// 0.034-0.035 both when this path came, against 0.051 and 0.042 for the best float candidates:
// BENCHMARKS.md has the rest). The kernel is bound by its instructions more than by
// memory: with no arithmetic (the output a copy of the ring's input) the same loads, ring and
// stores take 0.0277 ms, 95 % of a copy. So every instruction of the step counts: no per-lane
// tap selection (a table, gm_put_taps), no register copies around the products (operands that
// are whole register tuples), the unsharp's input level in the products' start value, the
// horizontal sums' rounding done by their conversion to half. With LV and PG (the H200's
// choices at 4K since 2026-11-28) the Gaussian's and unsharp's programs hold 127 and 128
// registers, 16 warps per SM (ptxas on the driver's PTX before the quarters, which left clang's
// PTX at the same count); on the H200 at 4K they take
// 0.0277-0.0281 ms, 70-71 % of a copy (BENCHMARKS.md, twenty-sixth session).
// Devices without the instruction (GS_TC=0: PoCL, older GPUs) run the same code with each
// product done by the warp's 32 work-items through __local (gm_mma below), slowly: the tests
// run it on every device (one candidate is offered everywhere; the tuner drops it).
#if WORK16
#error "gaussian: MMA is an RGBA8 path"
#endif
#ifndef MW
#define MW 8
#endif
#ifndef NS
#define NS 9
#endif
#if NS < 2
#error "gaussian: MMA strips take 2 steps or more (PoCL 3.1 corrupts memory with one)"
#endif
// -DK8=1 (radius <= 4, the default there): windows of 24 columns and rows starting 4 before the
// outputs, each pass one k16 and one k8 product (m16n8k8) where a wider radius takes two k16 ones
// over 32 starting 8 before: a quarter fewer window loads and byte permutes in the horizontal
// pass, and a narrower tile. H100, 4K, unsharp (radius 3): 0.0326-0.0327 ms against
// 0.0327-0.0329 (tuner, three rounds; filtering the second 8 rows of chunk s + 1, which the
// vertical pass does not need, after the step's outputs took ptxas to 128 registers and
// 0.0339-0.0340: benchmarks/2026-11-27-s16/experiments/2-k8-split).
#ifndef K8
#define K8 (RADIUS <= 4)
#endif
#if K8 && RADIUS > 4
#error "gaussian: K8 windows reach 4 pixels"
#endif
// -DLV=1: H and the vertical products in levels rather than in units of 256 levels (H from
// 1 + H / 256 by 256 x - 256 rather than x - 1; every value 256 times the other form's, exactly,
// so the frames are the same), so that the outputs are rounded, saturated and packed two at a
// time by vfx_level2_u8 (one F2IP on NVIDIA) where each level took its own rounding add
// (unsharp: its multiply-add without the saturation, and no min) and its own byte permute. With
// LV every "H / 256", "v / 256" and "x / 256" below is H, v and x, and m is 0x4B000000 (2^23)
// (H, a mean of bytes, is at most 255: in quarters exact as a half, whose ulp is 2^-3 in
// [128, 256)).
#if defined(LV) && LV
#define GM_LV 1
#else
#define GM_LV 0
#endif
#define GM_OFF (K8 ? 4 : 8)        // the windows start GM_OFF columns left of / rows above
#define GM_NV (K8 ? 3 : 4)         // window column pairs of 8 per lane
#define GM_W (16 * MW)             // output columns per group
#define GM_TW (GM_W + 2 * GM_OFF)  // tile columns
#define GM_TQ (GM_TW / 4)          // quads per tile row
// Words per tile row: a multiple of 8 and an odd multiple of 8 modulo 32 banks, so the 8-byte
// __local loads of a half warp (4 rows x 32 bytes) hit distinct banks: K8's tile (16 MW + 8)
// is one, the wider tile (16 MW + 16) is one with 8 more.
#define GM_P (K8 ? GM_TW : GM_TW + 8)
#if defined(__NV_CL_C_VERSION) && GS_TC
#define GM_HW 1
#else
#define GM_HW 0
#endif

#if GM_HW
typedef uint gm_h2;    // two halves (element k in the low half, k + 1 in the high one)
typedef uint4 gm_a_t;  // A operand registers a0a1, a2a3, a4a5, a6a7
typedef uint2 gm_b_t;  // B operand registers b0b1, b2b3
typedef uint2 gm_a8_t;  // m16n8k8: A operand registers a0a1, a2a3

inline gm_h2 gm_pack(float lo, float hi) {
    uint r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}

// H of two horizontal sums d = 1 + H / 256 (floats in [1, 2)): the conversion to half rounds
// them to 2^-10, quarters of a level (ties to even), then H / 256 = d - 1 (LV: H = 256 d - 256),
// exact, in one f16x2 operation.
inline gm_h2 gm_pack_h(float lo, float hi) {
    uint r = gm_pack(lo, hi);
#if GM_LV
    asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(r), "r"(0x5C005C00u), "r"(0xDC00DC00u));
#else
    asm("add.rn.f16x2 %0, %1, %2;" : "=r"(r) : "r"(r), "r"(0xBC00BC00u));
#endif
    return r;
}

// D = A B + C for the warp (16 x 16 by 16 x 8).
inline float4 gm_mma(gm_a_t a, gm_b_t b, float4 c, __local float* sc, int lane) {
    (void)sc;
    (void)lane;
    float4 d;
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%10,%11,%12,%13};"
        : "=f"(d.x), "=f"(d.y), "=f"(d.z), "=f"(d.w)
        : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b.x), "r"(b.y), "f"(c.x), "f"(c.y),
          "f"(c.z), "f"(c.w));
    return d;
}

// D = A B + C for the warp (16 x 8 by 8 x 8; B is one register, b0b1).
inline float4 gm_mma8(gm_a8_t a, gm_h2 b, float4 c, __local float* sc, int lane) {
    (void)sc;
    (void)lane;
    float4 d;
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
        "{%7,%8,%9,%10};"
        : "=f"(d.x), "=f"(d.y), "=f"(d.z), "=f"(d.w)
        : "r"(a.x), "r"(a.y), "r"(b), "f"(c.x), "f"(c.y), "f"(c.z), "f"(c.w));
    return d;
}

// Channels R, G, B of pixel words w0, w1 as halves 4 + value / 256: [byte, 0x44] per half, by
// byte permutes (k: 0x44444444).
inline void gm_b3(uint w0, uint w1, uint k, gm_h2* r, gm_h2* g, gm_h2* b) {
    const uint rg = vfx_prmt(w0, w1, 0x5410u);  // R0 G0 R1 G1
    const uint ba = vfx_prmt(w0, w1, 0x7632u);  // B0 A0 B1 A1
    *r = vfx_prmt(rg, k, 0x4240u);
    *g = vfx_prmt(rg, k, 0x4341u);
    *b = vfx_prmt(ba, k, 0x4240u);
}
#else
typedef float2 gm_h2;  // the halves' values
typedef float8 gm_a_t;
typedef float4 gm_b_t;
typedef float4 gm_a8_t;

inline gm_h2 gm_pack(float lo, float hi) { return (float2)(lo, hi); }  // exact here

// As the tensor-core form's gm_pack_h: 1 + H / 256 rounded to 2^-10 (ties to even: + 2^13 -
// 2^13 in [1, 2)), then H / 256 (LV: H), exact.
inline gm_h2 gm_pack_h(float lo, float hi) {
    const float2 d = ((float2)(lo, hi) + 8192.0f) - 8192.0f;
#if GM_LV
    return fma(d, (float2)(256.0f), (float2)(-256.0f));
#else
    return d - 1.0f;
#endif
}

// The product through __local: each work-item puts its A and B elements in the warp's
// 16 x 16 + 16 x 8 scratch `sc`, then sums its 4 D elements (every work-item of the group
// calls this the same number of times: the barriers are uniform).
inline float4 gm_mma(gm_a_t a, gm_b_t b, float4 c, __local float* sc, int lane) {
    const int g = lane >> 2;
    const int t = lane & 3;
    __local float* A = sc;
    __local float* B = sc + 256;
    A[g * 16 + 2 * t] = a.s0;
    A[g * 16 + 2 * t + 1] = a.s1;
    A[(g + 8) * 16 + 2 * t] = a.s2;
    A[(g + 8) * 16 + 2 * t + 1] = a.s3;
    A[g * 16 + 2 * t + 8] = a.s4;
    A[g * 16 + 2 * t + 9] = a.s5;
    A[(g + 8) * 16 + 2 * t + 8] = a.s6;
    A[(g + 8) * 16 + 2 * t + 9] = a.s7;
    B[2 * t * 8 + g] = b.s0;
    B[(2 * t + 1) * 8 + g] = b.s1;
    B[(2 * t + 8) * 8 + g] = b.s2;
    B[(2 * t + 9) * 8 + g] = b.s3;
    barrier(CLK_LOCAL_MEM_FENCE);
    float4 d = c;
    for (int k = 0; k < 16; ++k) {
        d.x = fma(A[g * 16 + k], B[k * 8 + 2 * t], d.x);
        d.y = fma(A[g * 16 + k], B[k * 8 + 2 * t + 1], d.y);
        d.z = fma(A[(g + 8) * 16 + k], B[k * 8 + 2 * t], d.z);
        d.w = fma(A[(g + 8) * 16 + k], B[k * 8 + 2 * t + 1], d.w);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return d;
}

// The k8 product as a k16 one whose other 8 columns of A (rows of B) are 0.
inline float4 gm_mma8(gm_a8_t a, gm_h2 b, float4 c, __local float* sc, int lane) {
    return gm_mma((gm_a_t)(a, (float4)(0.0f)), (gm_b_t)(b, (float2)(0.0f)), c, sc, lane);
}

inline void gm_b3(uint w0, uint w1, uint k, gm_h2* r, gm_h2* g, gm_h2* b) {
    (void)k;
    const float4 p0 = convert_float4(pixw_channels(w0)) * 0.00390625f + 4.0f;  // exact
    const float4 p1 = convert_float4(pixw_channels(w1)) * 0.00390625f + 4.0f;
    *r = (float2)(p0.x, p1.x);
    *g = (float2)(p0.y, p1.y);
    *b = (float2)(p0.z, p1.z);
}
#endif

// Tap at signed distance d (0 beyond the radius).
inline float gm_tap(float16 w, int d) {
    d = abs(d);
    return d <= RADIUS ? gs_tap(w, d) : 0.0f;
}

// The taps as the A operand's pairs, by signed distance: pt[i] = (tap(i - 24), tap(i - 23)),
// i < 48, written by the group's work-items (each lane's 16 taps would otherwise each take a
// chain of branches over the float16's components: about 450 instructions per warp, an eighth
// of the 4K Gaussian's; the table made it 7 % faster on the H100). It is there twice
// (pt[i + 48] = pt[i]): an operand's fourth register equals its first, and read from the same
// address the compiler keeps one register for both, then copies the four into a fresh quad
// before every product.
#define GM_PT 96
inline void gm_put_taps(float16 w, int lid, __local gm_h2* pt) {
    for (int i = lid; i < GM_PT; i += 32 * MW)
        pt[i] = gm_pack(gm_tap(w, i % 48 - 24), gm_tap(w, i % 48 - 23));
}

// This work-item's A operand for window half c (columns 16 c .. 16 c + 15): element (m, k) is
// the tap at distance k + 16 c - GM_OFF - m; rows g, g + 8 and columns 2t, 2t + 1, 2t + 8,
// 2t + 9 are pairs at distances d, d - 8, d + 8 and d (d = 16 c + 2t - GM_OFF - g: -15 .. 14,
// K8 -11 .. 18; the pairs start at -23 .. 22, K8 -19 .. 18: inside the table).
inline int gm_tap_index(int lane, int c) {
    return 24 - GM_OFF + 16 * c + 2 * (lane & 3) - (lane >> 2);
}
inline gm_a_t gm_taps(__local const gm_h2* pt, int lane, int c) {
    const int i = gm_tap_index(lane, c);
    return (gm_a_t)(pt[i], pt[i - 8], pt[i + 8], pt[i + 48]);
}
// K8: the k8 product's A operand, columns 16 .. 23 of the window (distances d and d - 8).
inline gm_a8_t gm_taps8(__local const gm_h2* pt, int lane) {
    const int i = gm_tap_index(lane, 1);
    return (gm_a8_t)(pt[i], pt[i - 8]);
}
#if K8
typedef gm_a8_t gm_a1_t;  // the window's second product: k8
#define GM_TAPS1(pt, lane) gm_taps8(pt, lane)
#else
typedef gm_a_t gm_a1_t;  // k16
#define GM_TAPS1(pt, lane) gm_taps(pt, lane, 1)
#endif

// The ring holds three chunks. Each step loads the chunk after next into registers (their
// latency hidden behind the step's products) and puts them into __local at the start of the
// next step, so one barrier per step suffices: a slot is rewritten two steps after its last
// reader, and every work-item has passed a barrier since (measured, H100 4K, radius 6, before
// the tap table: a ring of two chunks loaded into __local directly, two barriers per step,
// 0.0411 ms; this 0.0377; cp.async copies issued three chunks ahead into a ring of four, no
// registers held, 0.045-0.050; bulk copies (cp.async.bulk, one per tile row, an mbarrier per
// slot) 0.0385 at best, and 0.0308 against 0.0277 with no arithmetic:
// benchmarks/2026-11-26-h100-s2).
#define GM_SLOTS 3
#define GM_NPF ((16 * GM_TQ + 32 * MW - 1) / (32 * MW))  // quads per work-item per chunk

// This work-item's share of a chunk: quad j is quad (lid + 32 MW j) of the chunk's 16 rows of
// GM_TQ quads, at row rr[j], tile column 4 q[j] (j = GM_NPF - 1 may lie past the chunk).
typedef struct {
    int rr[GM_NPF];
    int q[GM_NPF];
} gm_share_t;

inline gm_share_t gm_share(int lid) {
    gm_share_t sh;
#pragma unroll
    for (int j = 0; j < GM_NPF; ++j) {
        const int i = lid + j * 32 * MW;
        sh.rr[j] = i / GM_TQ;
        sh.q[j] = i - sh.rr[j] * GM_TQ;
    }
    return sh;
}

// A 16-byte global load with a hint for L2 (-DLH=2|3; NVIDIA only, the plain load elsewhere
// and without LH): on a miss, L2 fetches the whole 256-byte block around the access from DRAM
// instead of the sectors asked for, so that the neighbouring groups' accesses to the rest of it
// (their apron columns), a moment later, hit; LH=3 also loads through the non-coherent
// (read-only) path. Values are those of the plain load: the source is not written while the
// kernel runs. (Here and not in common.h: oilpaint.cl's LH is its work-group height. Demosaic's
// word loads with it, and with a 128-byte fetch, measured no faster: BENCHMARKS.md, twenty-third
// session.)
#if defined(__NV_CL_C_VERSION) && defined(LH) && LH
#if LH == 2
#define GM_LD_HINT "ld.global.L2::256B"
#elif LH == 3
#define GM_LD_HINT "ld.global.nc.L2::256B"
#else
#error "gaussian: LH is 2 or 3"
#endif
inline uint4 gm_ld16(__global const uint4* p) {
    uint4 v;
    asm(GM_LD_HINT ".v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
        : "l"(p));
    return v;
}
#else
inline uint4 gm_ld16(__global const uint4* p) {
    return *p;
}
#endif

// Loads this work-item's quads of input rows y0 .. y0 + 15 (clamped) into pf (-DLH: with an L2
// fetch size, gm_ld16); `inside`: the
// group's tile columns lie inside the frame (uniform over the group).
inline void gm_fetch(__global const uchar* src, int pitch, int width, int height, int gx, int y0,
                     bool inside, const gm_share_t* sh, uint4* pf) {
    if (inside && y0 >= 0 && y0 + 16 <= height) {
        __global const uchar* base =
            src + (size_t)y0 * (size_t)pitch + (size_t)(gx - GM_OFF) * 4;
#pragma unroll
        for (int j = 0; j < GM_NPF; ++j)
            if (sh->rr[j] < 16)
                pf[j] = gm_ld16(
                    (__global const uint4*)(base + sh->rr[j] * pitch + 16 * sh->q[j]));
    } else {
#pragma unroll
        for (int j = 0; j < GM_NPF; ++j)
            if (sh->rr[j] < 16)
                pf[j] = load_quadw(src, pitch, gx - GM_OFF + 4 * sh->q[j],
                                   clamp_y(y0 + sh->rr[j], height), width);
    }
}

inline void gm_put(__local uint* slot, const gm_share_t* sh, const uint4* pf) {
#pragma unroll
    for (int j = 0; j < GM_NPF; ++j)
        if (sh->rr[j] < 16) *(__local uint4*)(slot + sh->rr[j] * GM_P + 4 * sh->q[j]) = pf[j];
}

// H of a ring chunk (16 rows) for this warp's 16 columns, as h[4 c + 2 j + b]: channel c,
// column half j (columns g and g + 8), row block b (rows 8 b .. 8 b + 7 of the chunk): the
// vertical product's B operand is the pair h[4 c + 2 j], h[4 c + 2 j + 1] (K8's k8 product:
// h[4 c + 2 j] alone).
inline void gm_horizontal(__local const uint* slot, int warp, int lane, gm_a_t a0, gm_a1_t a1,
                          uint k, __local float* sc, gm_h2* h) {
    const int g = lane >> 2;
    const int t = lane & 3;
#pragma unroll
    for (int b = 0; b < 2; ++b) {
        __local const uint* p = slot + (8 * b + g) * GM_P + 16 * warp + 2 * t;
        gm_h2 v[GM_NV][3];  // window columns 2t + 8 i, 2t + 8 i + 1; channel
#pragma unroll
        for (int i = 0; i < GM_NV; ++i) {
            const uint2 w = *(__local const uint2*)(p + 8 * i);
            gm_b3(w.x, w.y, k, &v[i][0], &v[i][1], &v[i][2]);
        }
#pragma unroll
        for (int c = 0; c < 3; ++c) {
            float4 d = gm_mma(a0, (gm_b_t)(v[0][c], v[1][c]), (float4)(-3.0f), sc, lane);
#if K8
            d = gm_mma8(a1, v[2][c], d, sc, lane);
#else
            d = gm_mma(a1, (gm_b_t)(v[2][c], v[3][c]), d, sc, lane);
#endif
            // d = 1 + H / 256: to quarters of a level and H / 256 (LV: H) by gm_pack_h (GS_FX).
            h[4 * c + b] = gm_pack_h(d.x, d.y);
            h[4 * c + 2 + b] = gm_pack_h(d.z, d.w);
        }
    }
}

// The vertical sums start at C and give D = C + v / 256 (v the blur in levels). Gaussian: C = 0,
// and D + 2^15 leaves the level nearest v (ties to even) in the low bits. UNSHARP (amount a):
// C = 2^15 - (2^15 + x / 256) = -x / 256 exactly, x the input level (the float 2^15 + x / 256
// made by one byte permute with m = 0x47000000), so D = (v - x) / 256 exactly, and the result in
// units of 256 levels is fma(a, x / 256 - v / 256, x / 256), saturated to [0, 1] (vfx_fma_sat),
// the same multiply-add as the float candidates' (x / 256 - v / 256 is exact there too); + 2^15
// leaves the level in the low bits, capped at 255 (see GS_MAGIC).
inline float4 gm_start(uint4 w, uint m, uint c) {
#if UNSHARP && GM_LV
    // LV: C = -x, the float 2^23 + x by one byte permute (m = 0x4B000000) subtracted from 2^23.
    return 8388608.0f - (float4)(as_float(vfx_prmt(w.x, m, 0x7650u | c)),
                                 as_float(vfx_prmt(w.y, m, 0x7650u | c)),
                                 as_float(vfx_prmt(w.z, m, 0x7650u | c)),
                                 as_float(vfx_prmt(w.w, m, 0x7650u | c)));
#elif UNSHARP
    return 32768.0f - (float4)(as_float(vfx_prmt(w.x, m, 0x7650u | c)),
                               as_float(vfx_prmt(w.y, m, 0x7650u | c)),
                               as_float(vfx_prmt(w.z, m, 0x7650u | c)),
                               as_float(vfx_prmt(w.w, m, 0x7650u | c)));
#else
    (void)w;
    (void)m;
    (void)c;
    return (float4)(0.0f);
#endif
}

#if GM_LV
// LV: the result in levels, before rounding and saturation (vfx_level2_u8 does both): the blur
// D itself; unsharp fma(-a, D, -C) = fma(a, x - v, x), x = -C.
inline float4 gm_value(float4 d, float4 start, float a) {
#if UNSHARP
    return (float4)(fma(-a, d.x, -start.x), fma(-a, d.y, -start.y), fma(-a, d.z, -start.z),
                    fma(-a, d.w, -start.w));
#else
    (void)start;
    (void)a;
    return d;
#endif
}
#endif

inline uint4 gm_level(float4 d, float4 start, float a) {
#if UNSHARP
    const float4 s = (float4)(vfx_fma_sat(-a, d.x, -start.x), vfx_fma_sat(-a, d.y, -start.y),
                              vfx_fma_sat(-a, d.z, -start.z), vfx_fma_sat(-a, d.w, -start.w));
    return min(as_uint4(s + 32768.0f), (uint4)(0x470000FFu));
#else
    (void)start;
    (void)a;
    return as_uint4(d + 32768.0f);
#endif
}

// The vertical sums of one channel and column half (i = 4 c + 2 j, gm_horizontal's layout),
// started at st: the window's first 16 rows from H of chunk s (hc), the rest from s + 1 (hn).
inline float4 gm_vproducts(gm_a_t a0, gm_a1_t a1, const gm_h2* hc, const gm_h2* hn, int i,
                           float4 st, __local float* sc, int lane) {
    const float4 u = gm_mma(a0, (gm_b_t)(hc[i], hc[i + 1]), st, sc, lane);
#if K8
    return gm_mma8(a1, hn[i], u, sc, lane);
#else
    return gm_mma(a1, (gm_b_t)(hn[i], hn[i + 1]), u, sc, lane);
#endif
}

// The vertical products and the outputs of one step: output rows oy .. oy + 15 from H of
// chunks s (hc) and s + 1 (hn); their input words from ring slots cur (rows 8 .. 15 of chunk
// s; K8: 4 .. 15) and nxt (rows 0 .. 7 of chunk s + 1; K8: 0 .. 3).
inline void gm_vertical(__global uchar* dst, int dst_pitch, int width, int height, int x0,
                        int oy, __local const uint* cur, __local const uint* nxt, int lane,
                        gm_a_t a0, gm_a1_t a1, __local float* sc, const gm_h2* hc,
                        const gm_h2* hn, float amount, uint m) {
    const int g = lane >> 2;
    const int t = lane & 3;
    // This work-item's output rows oy + g and oy + g + 8, from column x0 + 2t on (column half j
    // 32 j bytes further).
    const int y = oy + g;
    __global uchar* row0 = dst + (size_t)y * (size_t)dst_pitch + (size_t)(x0 + 2 * t) * 4;
    __global uchar* row1 = row0 + 8 * (size_t)dst_pitch;
    // Their input words: rows GM_OFF + g of chunk s, and GM_OFF + 8 + g of chunk s (K8, g < 4) or
    // of chunk s + 1 (row GM_OFF - 8 + g there).
    __local const uint* in0 = cur + (GM_OFF + g) * GM_P + GM_OFF + 2 * t;
#if K8
    __local const uint* in1 =
        (g < 4 ? cur + (12 + g) * GM_P : nxt + (g - 4) * GM_P) + GM_OFF + 2 * t;
#else
    __local const uint* in1 = nxt + g * GM_P + GM_OFF + 2 * t;
#endif
    // Column half by column half (columns 2t, 2t + 1 and 8 + 2t, 9 + 2t), channel by channel:
    // each channel's levels go into the output words at once (byte permutes), so few sums are
    // live (the registers decide how many groups an SM holds).
#pragma unroll
    for (int j = 0; j < 2; ++j) {
        const uint2 w0 = *(__local const uint2*)(in0 + 8 * j);
        const uint2 w1 = *(__local const uint2*)(in1 + 8 * j);
#if GM_LV
        // LV: the products' results are levels; each channel's four are rounded, saturated and
        // packed by two conversions (vfx_level2_u8: one F2IP each on NVIDIA), B with the input
        // words' alpha bytes, and the four pixel words are put together by byte permutes.
        const uint4 in = (uint4)(w0.x, w0.y, w1.x, w1.y);  // the input words: alpha, x
        uint cw[2];  // R, G of the four pixels (byte i: pixel i, the order of in)
        uint2 ba;    // B and alpha of pixels 0, 1 (x) and 2, 3 (y): B B A A
#pragma unroll
        for (int c = 0; c < 3; ++c) {
            const float4 st = gm_start(in, m, (uint)c);
            const float4 d = gm_vproducts(a0, a1, hc, hn, 4 * c + 2 * j, st, sc, lane);
            const float4 v = gm_value(d, st, amount);
            if (c < 2) {
                cw[c] = vfx_level2_u8(v.y, v.x, vfx_level2_u8(v.w, v.z, 0u));
            } else {
                ba.x = vfx_level2_u8(v.y, v.x, vfx_prmt(in.x, in.y, 0x73u));
                ba.y = vfx_level2_u8(v.w, v.z, vfx_prmt(in.z, in.w, 0x73u));
            }
        }
        const uint rg01 = vfx_prmt(cw[0], cw[1], 0x5140u);  // R0 G0 R1 G1
        const uint rg23 = vfx_prmt(cw[0], cw[1], 0x7362u);  // R2 G2 R3 G3
        const uint4 o = (uint4)(vfx_prmt(rg01, ba.x, 0x6410u), vfx_prmt(rg01, ba.x, 0x7532u),
                                vfx_prmt(rg23, ba.y, 0x6410u), vfx_prmt(rg23, ba.y, 0x7532u));
#else
        uint4 o = (uint4)(w0.x, w0.y, w1.x, w1.y);  // alpha stays; R, G, B replaced below
#pragma unroll
        for (int c = 0; c < 3; ++c) {
            const float4 st = gm_start(o, m, (uint)c);  // o's byte c is still the input's
            const float4 d = gm_vproducts(a0, a1, hc, hn, 4 * c + 2 * j, st, sc, lane);
            const uint4 l = gm_level(d, st, amount);  // levels in the low bytes
            // Byte c of each word from the level's low byte (selectors 0x3214, 0x3240, 0x3410).
            const uint sel = c == 0 ? 0x3214u : c == 1 ? 0x3240u : 0x3410u;
            o = (uint4)(vfx_prmt(o.x, l.x, sel), vfx_prmt(o.y, l.y, sel), vfx_prmt(o.z, l.z, sel),
                        vfx_prmt(o.w, l.w, sel));
        }
#endif
        const int x = x0 + 8 * j + 2 * t;
        if (x + 1 < width) {
            if (y < height) *(__global uint2*)(row0 + 32 * j) = o.xy;
            if (y + 8 < height) *(__global uint2*)(row1 + 32 * j) = o.zw;
        } else if (x < width) {
            if (y < height) *(__global uint*)(row0 + 32 * j) = o.x;
            if (y + 8 < height) *(__global uint*)(row1 + 32 * j) = o.z;
        }
    }
}

// One strip: output rows sy .. sy + 16 nsteps - 1 (those inside the frame) of the group's
// columns gx .. gx + GM_W - 1, through the ring (tile); the taps are in pt already (a barrier
// passed since they were put).
inline void gm_strip(__global const uchar* src, int src_pitch, __global uchar* dst, int dst_pitch,
                     int width, int height, float amount, int gx, int sy, int nsteps,
                     __local uint* tile, __local const gm_h2* pt, __local float* sc, int lane,
                     int warp, uint k, uint m) {
    const gm_share_t share = gm_share(warp * 32 + lane);
    const gm_share_t* sh = &share;
    const bool inside = gx >= GM_OFF && gx + GM_W + GM_OFF <= width;  // the tile's columns
    const int x0 = gx + 16 * warp;              // this warp's first output column
    __local const uint* wt = tile + 16 * warp;  // this warp's window in the ring's rows
    gm_h2 hc[12];  // H of chunk s (gm_horizontal's layout)
    gm_h2 hn[12];  // H of chunk s + 1
    uint4 pf[GM_NPF];
    gm_fetch(src, src_pitch, width, height, gx, sy - GM_OFF, inside, sh, pf);
    gm_put(tile, sh, pf);
    gm_fetch(src, src_pitch, width, height, gx, sy - GM_OFF + 16, inside, sh, pf);
    barrier(CLK_LOCAL_MEM_FENCE);
    const gm_a_t a0 = gm_taps(pt, lane, 0);
    const gm_a1_t a1 = GM_TAPS1(pt, lane);
    gm_horizontal(tile, warp, lane, a0, a1, k, sc, hc);
    int cur = 0;  // ring slot of chunk s
    for (int s = 0; s < nsteps; ++s) {
        const int oy = sy + 16 * s;  // this step's first output row
        const int nxt = cur == 2 ? 0 : cur + 1;
        gm_put(tile + nxt * (16 * GM_P), sh, pf);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (s + 1 < nsteps)
            gm_fetch(src, src_pitch, width, height, gx, oy + 32 - GM_OFF, inside, sh, pf);
        gm_horizontal(tile + nxt * (16 * GM_P), warp, lane, a0, a1, k, sc, hn);
        gm_vertical(dst, dst_pitch, width, height, x0, oy, wt + cur * (16 * GM_P),
                    wt + nxt * (16 * GM_P), lane, a0, a1, sc, hc, hn, amount, m);
#pragma unroll
        for (int i = 0; i < 12; ++i) hc[i] = hn[i];
        cur = nxt;
    }
}

// -DPG=N: one wave of strips of unequal length, the same work on every compute unit, where strips
// of a fixed NS steps leave some units a strip more than others (4K, 4 groups a unit: 480 strips
// of 17 steps on 132 units, 84 with 4 and 48 with 3: 68 steps against 61.4 on average).
// TunedKernel launches G = max(N groups per compute unit, C columns of GM_W) groups as a grid of
// C x R groups, R = ceil(G / C), and passes G (pg_groups, the last argument): the first
// G - (R - 1) C columns are cut into R strips, the others into R - 1 (4K: 48 columns of 9
// strips of 15 steps, 12 of 8 of 16-17); groups past their column's strips return at once.
// The column is the group's x index: from a one-row grid (column g % C of group g) NVIDIA's
// compiler gave the unsharp's program 138 registers, 3 groups per SM, 0.040 ms (capped at 128
// 0.0306); from this grid 128. H200 4K, with an L2 fetch size on the loads (LH=2), the bench in
// three alternating rounds: the Gaussian 0.0280-0.0283 ms (70 % of the copy) against 0.0284-0.0287
// for strips of 17 steps (and 0.0281 for the one-row grid), the unsharp 0.0284-0.0286 ms (69 %)
// against 0.0296-0.0300 (LH=3 0.0296-0.0299) (benchmarks/2026-11-28-s24; the one-row grid:
// benchmarks/2026-11-28-s23). On devices without the instruction, in two-warp groups, so that
// the tests check the cut everywhere. pg_groups >= C (TunedKernel's max), so every column has a
// strip (nk >= 1).
__kernel __attribute__((reqd_work_group_size(32, MW, 1))) void gaussian_strip(
    __global const uchar* src, int src_pitch, __global uchar* dst, int dst_pitch, int width,
    int height, float16 wh, float16 wv
#if defined(PG) && PG
    ,
    int pg_groups
#endif
) {
    __local uint tile[GM_SLOTS * 16 * GM_P] __attribute__((aligned(16)));  // the ring
    __local gm_h2 pt[GM_PT];                                               // the taps
#if GM_HW
    __local float* sc = 0;
#else
    __local float scratch[MW * 384];
#endif
    const int lane = (int)get_local_id(0);
    const int warp = (int)get_local_id(1);
#if !GM_HW
    __local float* sc = scratch + warp * 384;
#endif
    // Constants in registers (see RM): the halves' exponent bytes; unsharp's 2^15.
    const uint k = 0x44444444u | ((uint)get_num_groups(0) >> 31);
    const uint m = (GM_LV ? 0x4B000000u : 0x47000000u) | ((uint)get_num_groups(0) >> 31);
#if defined(PG) && PG
    const int col = (int)get_group_id(0), j = (int)get_group_id(1);  // strip j of column col
    const int cols = (int)get_num_groups(0), rows = (int)get_num_groups(1);
    const int nk = rows - (col >= pg_groups - (rows - 1) * cols);  // strips of this column
    const int spc = (height + 15) / 16;                              // steps per column
    const int sy = j * spc / nk * 16, ey = (j + 1) * spc / nk * 16;  // the strip's rows
    if (j >= nk || sy >= ey) return;                                 // the whole group
    gm_put_taps(wh, warp * 32 + lane, pt);
    gm_strip(src, src_pitch, dst, dst_pitch, width, height, wv.sf, col * GM_W, sy, (ey - sy) / 16,
             tile, pt, sc, lane, warp, k, m);
#else
    const int gx = (int)get_group_id(0) * GM_W;        // the group's first output column
    const int sy = (int)get_group_id(1) * (16 * NS);  // the strip's first output row
    if (sy >= height) return;                         // the whole group
    // (Walking every other strip upwards, so that neighbouring strips read the rows they share
    // at the same time, measured no faster: benchmarks/2026-11-26-h100/experiments.)
    gm_put_taps(wh, warp * 32 + lane, pt);
    gm_strip(src, src_pitch, dst, dst_pitch, width, height, wv.sf, gx, sy,
             min(NS, (height - sy + 15) / 16), tile, pt, sc, lane, warp, k, m);
#endif
}

#elif defined(LM) && LM == 2
// Streaming local-memory version (-DLM=2 -DLX=.. -DLY=.. -DPY=.. -DNCH=.. [-DQX=..] [-DC3=1];
// work-group LX x LY, per_item 4 x PY NCH). The group walks down a strip 4 LX columns wide and LY
// PY NCH rows tall in NCH chunks of CH = LY PY output rows. The horizontal results live in a ring
// of CH + 2r rows of __local, as three float planes (R, G, B; alpha is not filtered), each element
// the 4 columns of one quad (a work-item's float4 reads and writes are neighbouring 16 bytes: no
// bank conflicts). Per chunk: the horizontal pass of the CH new rows, in tasks of QX adjacent quads
// of a row shared out over the group's work-items (input quads read from global, the overlap
// absorbed by L1; a task takes each quad it loads apart once, so QX = 2 or 4 converts every pixel
// fewer times than one-quad tasks, which take each quad apart GS_NQ times: at radius 6 that was a
// quarter of the kernel's instructions), barrier; then each work-item's vertical pass on its 4 x PY
// outputs as a register sliding window over the PY + 2r ring rows (each ring row read once per
// work-item), barrier. The 2r apron rows are computed once per strip, not once per tile. Per output
// pixel the arithmetic is the same as the other paths, in the same order (componentwise float4 ops,
// alpha dropped), so the frame is bit-identical. -DC3=1: R, G, B only, see gs_h_task3's section.
#ifndef NCH
#define NCH 8
#endif
#ifndef QX
#define QX 1
#endif
#ifndef C3
#define C3 0
#endif
#if LX % QX
#error "gaussian: LX must be a multiple of QX"
#endif
#if C3 && QW != 2
#error "gaussian: C3 needs QW=2"
#endif
#ifndef PRMT
#define PRMT 0  // C3 with RGBA8: byte permutes (common.h's vfx_prmt) to take channels out and in
#endif
#if PRMT && !C3
#error "gaussian: PRMT is an option of C3"
#endif
#if defined(RM) && RM && !C3
#error "gaussian: RM is an option of C3"
#endif
#if defined(SWZ) && SWZ && !C3
#error "gaussian: SWZ is an option of C3"
#endif
#define GR_CH (LY * PY)               // output rows per chunk
#define GR_RING (GR_CH + 2 * RADIUS)  // ring rows
#define GR_PLANE (GR_RING * LX)       // float4 per plane of the ring
#define GQ_NQ (QX + 2 * GS_HALF)      // quads a horizontal task loads
#define GQ_TASKS (LX / QX)            // horizontal tasks per row

// Horizontal pass of quads g QX .. g QX + QX - 1 of the strip (pixel columns from sx) on row y
// (inside the frame) into ring row `row`.
inline void gs_h_task(__global const uchar* src, int src_pitch, int width, int sx, int g, int y,
                      float16 wh, __local float4* hr, __local float4* hg,
                      __local float4* hb, int row) {
    const int xa = sx + 4 * QX * g;
    float4 p[4 * GQ_NQ];
#pragma unroll
    for (int q = 0; q < GQ_NQ; ++q)
        gs_load_quad(src, src_pitch, xa + 4 * (q - GS_HALF), y, width, p + 4 * q);
#pragma unroll
    for (int j = 0; j < QX; ++j) {
        float4 h[4];
#pragma unroll
        for (int c = 0; c < 4; ++c) h[c] = gs_h_at(p, GS_OFF + RADIUS + 4 * j + c, wh);
        const int e = row * LX + QX * g + j;
        hr[e] = (float4)(h[0].x, h[1].x, h[2].x, h[3].x);
        hg[e] = (float4)(h[0].y, h[1].y, h[2].y, h[3].y);
        hb[e] = (float4)(h[0].z, h[1].z, h[2].z, h[3].z);
    }
}

inline float gs_lane(float4 v, int c) { return c == 0 ? v.x : c == 1 ? v.y : c == 2 ? v.z : v.w; }

#if C3
// ---- Three channels only (-DC3=1, with -DQW=2) ----
// The same frames as the float4 code above with fewer instructions per pixel: every step works
// on R, G, B alone (the float4 code leaves dropping alpha's lane to the compiler) and the
// bookkeeping around the arithmetic is cut.
//  - Horizontal task (gs_h_task3): one channel at a time, only R, G, B of the 4 QX + 2r pixels
//    the taps reach are converted (the QW=2 bit trick), the taps run on scalars and each result
//    goes straight into its plane; a task whose quads all lie inside the row loads them with no
//    per-quad edge test. Per channel the operations and their order are gs_h_at's (which does
//    them lane by lane): p[m] w_0, then fma(w_k, p[m - k] + p[m + k], s), k = 1 .. r.
//  - Vertical pass: the three planes are one __local array (a row's R, G, B loads share one
//    address) and each ring row's address is one of two bases (before / after the wrap) instead
//    of a wrap test and an index computation per row.
//  - Output (gs_out3): R, G, B rounded as float_to_pixw does (v + 2^23: the integer, ties to
//    even, in the low bits, under the bits of 2^23, 0x4B000000), packed with adds of disjoint
//    fields (shifting the G and B words left pushes 0x4B out of the word) and the input's alpha
//    bits; UNSHARP takes only R, G, B of the input apart (see GS_MAGIC for its clamp). The
//    plain blur skips the clamp to
//    [0, PIX_MAX]: its float taps are positive and sum to at most 1 + 2^-24 per pass, and a
//    result takes 3r + 2 roundings (radius 8: 26) of sums of non-negative terms, each by a
//    factor of at most 1 + 2^-24, so it lies in [0, PIX_MAX (1 + 2e-6)], which v + 2^23 rounds
//    to 0 .. PIX_MAX exactly as the clamped value would.
// Estimate (clang's NVPTX output, interior groups, moves and constant loads left out, per output
// pixel; the SASS differs, the proportions should not): Gaussian radius 6 at 16x8 PY=4 NCH=4,
// QX=2 157 -> C3 QX=2 136 -> C3 QX=4 126 (NCH=8: 123), of which 39 horizontal and 39 vertical
// multiply-adds are fixed by the arithmetic; unsharp radius 3, QX=2 122 -> C3 QX=4 104. The
// same at RGBA16.

// Channel values as floats: GS_MAGIC | u (u < 2^16) is the float GS_MAGICF + u unit, the unit
// being that float's ulp. The blur works in units of one level (2^23, 0x4B000000). UNSHARP works in
// units of PIX_MAX + 1 levels (RGBA8: 2^15, ulp 2^-8; RGBA16: 2^7, ulp 2^-16), so that its last
// multiply-add can saturate to [0, 1] on its own (vfx_fma_sat: PTX's fma.rn.sat, one
// instruction for what fmin and fmax do in two), and the rounding (v + GS_MAGICF) leaves
// 0 .. PIX_MAX + 1 in the low bits, of which an integer min keeps 0 .. PIX_MAX. Scaling every
// value by a power of two scales every rounded result exactly (nothing here comes near the
// subnormals), so these are the frames of the float4 paths, which work in levels and clamp to
// [0, PIX_MAX] before rounding (for v in (PIX_MAX, PIX_MAX + 1] both give PIX_MAX).
#if !UNSHARP
#define GS_MAGIC 0x4B000000u
#define GS_MAGICF 8388608.0f
#elif WORK16
#define GS_MAGIC 0x43000000u
#define GS_MAGICF 128.0f
#else
#define GS_MAGIC 0x47000000u
#define GS_MAGICF 32768.0f
#endif

// -DRM=1: the kernel's GS_MAGIC comes as a value NVIDIA's compiler cannot fold (it is the
// constant, or-ed with a bit of the group count that no frame sets), so that it stays in one
// register: a byte permute has room for one immediate operand, and with both its operands
// constant the compiler made the selector the register one, rebuilt by a move before nearly
// every permute (a quarter of the horizontal pass's non-arithmetic instructions at radius 6).
#ifndef RM
#define RM 0
#endif

// -DSWZ=1: quad column q = QX g + j of a ring row (task g's j-th quad) is kept at position
// j GQ_TASKS + g instead of q, so that the horizontal tasks' stores of one j, neighbouring g,
// are neighbouring float4s (stores of every QX-th float4 were an 8-way bank conflict in the
// counters, half of the stores' __local wavefronts); the vertical pass keeps reading position
// lx, and work-item lx makes the outputs of quad column QX (lx mod GQ_TASKS) + lx / GQ_TASKS.
// The columns a warp stores are the same set (every 16-byte slot of the same rows), so the
// global accesses take the same transactions. The same arithmetic: the same frames.
#ifndef SWZ
#define SWZ 0
#endif
#if SWZ
#define GS_QSTEP GQ_TASKS  // position step from quad j to j + 1 of a task
#define GS_QPOS(g) (g)     // position of task g's first quad
#define GS_COLUMN(lx) (QX * ((lx) % GQ_TASKS) + (lx) / GQ_TASKS)
#else
#define GS_QSTEP 1
#define GS_QPOS(g) (QX * (g))
#define GS_COLUMN(lx) (lx)
#endif

// Channel c (0 R, 1 G, 2 B) of a pixel word as a float (pixw_to_float's lane c, in GS units);
// m is GS_MAGIC.
inline float gs_chan(pixw_t w, int c, uint m) {
#if WORK16
    const uint u = c == 0 ? (w.x & 0xFFFFu) : c == 1 ? (w.x >> 16) : (w.y & 0xFFFFu);
    return as_float(u | m) - GS_MAGICF;
#elif PRMT
    // Byte c of w under the exponent bits of GS_MAGIC in one byte permute.
    return as_float(vfx_prmt(w, m, 0x7650u | (uint)c)) - GS_MAGICF;
#else
    const uint u = (w >> (8 * c)) & 0xFFu;
    return as_float(u | m) - GS_MAGICF;
#endif
}

// gs_h_at for one channel.
inline float gs_h1(const float* p, int m, float16 wh) {
    float s = p[m] * gs_tap(wh, 0);
#pragma unroll
    for (int k = 1; k <= RADIUS; ++k) s = fma(gs_tap(wh, k), p[m - k] + p[m + k], s);
#if GS_FX
    // To quarters of a level: GS_MAGICF / 4 has an ulp of a quarter of the GS unit's level.
    s = (s + GS_MAGICF * 0.25f) - GS_MAGICF * 0.25f;
#endif
    return s;
}

// gs_h_task with three channels: quads g QX .. g QX + QX - 1 of the strip (pixel columns from
// sx) on row y (inside the frame) into plane elements e .. e + QX - 1 (hp: R, G, B planes); mg
// is GS_MAGIC.
inline void gs_h_task3(__global const uchar* src, int src_pitch, int width, int sx, int g, int y,
                       float16 wh, __local float4* hp, int e, uint mg) {
    const int x0 = sx + 4 * (QX * g - GS_HALF);  // the first loaded quad
    quadw_t v[GQ_NQ];
    if (x0 >= 0 && x0 + 4 * GQ_NQ <= width) {
        __global const quadw_t* q0 = (__global const quadw_t*)(src + (size_t)y * (size_t)src_pitch +
                                                               (size_t)x0 * sizeof(pix_t));
#pragma unroll
        for (int q = 0; q < GQ_NQ; ++q) v[q] = q0[q];
    } else {
#pragma unroll
        for (int q = 0; q < GQ_NQ; ++q) v[q] = load_quadw(src, src_pitch, x0 + 4 * q, y, width);
    }
#pragma unroll
    for (int c = 0; c < 3; ++c) {
        float p[4 * GQ_NQ];  // the pixels' channel c (those no tap reaches are never used)
#pragma unroll
        for (int q = 0; q < GQ_NQ; ++q) {
#pragma unroll
            for (int i = 0; i < 4; ++i) p[4 * q + i] = gs_chan(QW_PIX(v[q], i), c, mg);
        }
#pragma unroll
        for (int j = 0; j < QX; ++j) {
            const int m = GS_OFF + RADIUS + 4 * j;
            hp[c * GR_PLANE + e + GS_QSTEP * j] = (float4)(gs_h1(p, m, wh), gs_h1(p, m + 1, wh),
                                                gs_h1(p, m + 2, wh), gs_h1(p, m + 3, wh));
        }
    }
}

// v + GS_MAGICF as bits (float_to_pixw's rounding; UNSHARP: v in [0, 1], the level capped at
// PIX_MAX, see GS_MAGIC).
inline uint gs_round_bits(float v) {
#if UNSHARP
    return min(as_uint(v + GS_MAGICF), GS_MAGIC + (uint)PIX_MAX);
#else
    return as_uint(v + GS_MAGICF);
#endif
}

// The output word of one pixel from its R, G, B sums of vertical taps and its input word `in`
// (UNSHARP: amount amt; in - blur is exact, so the one rounding is the multiply-add's).
inline pixw_t gs_out3(pixw_t in, float r, float g, float b, float amt, uint m) {
#if UNSHARP
    const float xr = gs_chan(in, 0, m);
    const float xg = gs_chan(in, 1, m);
    const float xb = gs_chan(in, 2, m);
    r = vfx_fma_sat(amt, xr - r, xr);
    g = vfx_fma_sat(amt, xg - g, xg);
    b = vfx_fma_sat(amt, xb - b, xb);
#endif
    const uint rb = gs_round_bits(r);
    const uint gb = gs_round_bits(g);
    const uint bb = gs_round_bits(b);
#if WORK16
    return (uint2)((rb & 0xFFFFu) + (gb << 16), (bb & 0xFFFFu) | (in.y & 0xFFFF0000u));
#elif PRMT
    // The low bytes of rb, gb, bb and in's alpha, by byte permutes.
    return vfx_prmt_word(rb, gb, bb, in);
#else
    return ((rb & 0x00FFFFFFu) | (in & 0xFF000000u)) + (gb << 8) + (bb << 16);
#endif
}

// The output quad from the input quad `in`; r, g, b hold the quad's 4 columns.
inline quadw_t gs_quad3(quadw_t in, float4 r, float4 g, float4 b, float amt, uint m) {
    pixw_t o[4];
#pragma unroll
    for (int c = 0; c < 4; ++c)
        o[c] = gs_out3(QW_PIX(in, c), gs_lane(r, c), gs_lane(g, c), gs_lane(b, c), amt, m);
    return (quadw_t)(o[0], o[1], o[2], o[3]);
}

// gs_store with three channels.
inline void gs_store3(__global const uchar* src, int src_pitch, __global uchar* dst, int dst_pitch,
                      int xa, int y, int width, float4 r, float4 g, float4 b, float amt, uint m) {
    store_quadw(dst, dst_pitch, xa, y, width,
                gs_quad3(load_quadw(src, src_pitch, xa, y, width), r, g, b, amt, m));
}
#endif  // C3

__kernel __attribute__((reqd_work_group_size(LX, LY, 1))) void gaussian_strip(
    __global const uchar* src, int src_pitch, __global uchar* dst, int dst_pitch, int width,
    int height, float16 wh, float16 wv) {
#if C3
    __local float4 hp[3 * GR_PLANE];  // the R, G, B planes
#if RM
    const uint gm = GS_MAGIC | ((uint)get_num_groups(0) >> 31);  // see RM
#else
    const uint gm = GS_MAGIC;
#endif
#else
    __local float4 hr[GR_RING * LX];
    __local float4 hg[GR_RING * LX];
    __local float4 hb[GR_RING * LX];
#endif
    const int lx = (int)get_local_id(0);
    const int ly = (int)get_local_id(1);
    const int lid = ly * LX + lx;
    const int sx = (int)get_group_id(0) * (4 * LX);  // the strip's first pixel column
#if C3
    const int xa = sx + 4 * GS_COLUMN(lx);  // this work-item's output quad
#else
    const int xa = sx + 4 * lx;
#endif
    const int sy = (int)get_group_id(1) * (GR_CH * NCH);  // the strip's first output row
    if (sy >= height) return;  // the whole group

    // Ring row u holds input row sy - r + u (u taken mod GR_RING). Prefill the 2r rows above
    // the first chunk's new rows.
    for (int t = lid; t < 2 * RADIUS * GQ_TASKS; t += LX * LY) {
        const int u = t / GQ_TASKS;
#if C3
        const int g = t - u * GQ_TASKS;
        gs_h_task3(src, src_pitch, width, sx, g, clamp_y(sy - RADIUS + u, height), wh, hp,
                   u * LX + GS_QPOS(g), gm);
#else
        gs_h_task(src, src_pitch, width, sx, t - u * GQ_TASKS, clamp_y(sy - RADIUS + u, height),
                  wh, hr, hg, hb, u);
#endif
    }

    int w0 = 2 * RADIUS;  // ring row of this chunk's first new input row
    int v0 = 0;           // ring row of this chunk's first output row's first input row
    for (int ch = 0; ch < NCH; ++ch) {
        const int cy = sy + ch * GR_CH;  // the chunk's first output row
        if (cy >= height) break;          // uniform over the group
        for (int t = lid; t < GR_CH * GQ_TASKS; t += LX * LY) {
            const int u = t / GQ_TASKS;
            int row = w0 + u;
            if (row >= GR_RING) row -= GR_RING;
#if C3
            const int g = t - u * GQ_TASKS;
            gs_h_task3(src, src_pitch, width, sx, g, clamp_y(cy + RADIUS + u, height), wh, hp,
                       row * LX + GS_QPOS(g), gm);
#else
            gs_h_task(src, src_pitch, width, sx, t - u * GQ_TASKS,
                      clamp_y(cy + RADIUS + u, height), wh, hr, hg, hb, row);
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        float4 ar[PY], ag[PY], ab[PY];  // 4 columns of R, G, B per output row
#if C3
        // Ring rows v0 + ly PY + j, j = 0 .. PY + 2r - 1, wrap at most once: at j = wrap.
        int s0 = v0 + ly * PY;
        if (s0 >= GR_RING) s0 -= GR_RING;
        const int wrap = GR_RING - s0;
        // Row j's G element before the wrap: pa + j LX; after it: pb + j LX (R and B: one
        // plane before and after).
        __local const float4* pa = hp + (GR_PLANE + s0 * LX + lx);
        __local const float4* pb = pa - GR_PLANE;
#endif
#pragma unroll
        for (int j = 0; j < PY + 2 * RADIUS; ++j) {
#if C3
            __local const float4* e = (j < wrap ? pa : pb) + j * LX;
            const float4 r = e[-GR_PLANE];
            const float4 g = e[0];
            const float4 b = e[GR_PLANE];
#else
            int row = v0 + ly * PY + j;
            if (row >= GR_RING) row -= GR_RING;
            const float4 r = hr[row * LX + lx];
            const float4 g = hg[row * LX + lx];
            const float4 b = hb[row * LX + lx];
#endif
#pragma unroll
            for (int i = 0; i < PY; ++i) {
                const int k = j - i;
                if (k == 0) {
                    ar[i] = r * GS_VT(0);
                    ag[i] = g * GS_VT(0);
                    ab[i] = b * GS_VT(0);
                } else if (k > 0 && k <= 2 * RADIUS) {
                    ar[i] = fma((float4)(GS_VT(k)), r, ar[i]);
                    ag[i] = fma((float4)(GS_VT(k)), g, ag[i]);
                    ab[i] = fma((float4)(GS_VT(k)), b, ab[i]);
                }
            }
        }
#if C3
        const int y0 = cy + ly * PY;  // this work-item's first output row
        if (xa + 4 <= width && y0 + PY <= height) {
            // A whole quad in every row (all but the frame's last column and row of blocks):
            // row addresses by adding the pitch, quads loaded and stored with no edge tests.
            __global const uchar* s =
                src + (size_t)y0 * (size_t)src_pitch + (size_t)xa * sizeof(pix_t);
            __global uchar* d = dst + (size_t)y0 * (size_t)dst_pitch + (size_t)xa * sizeof(pix_t);
#pragma unroll
            for (int i = 0; i < PY; ++i) {
                *(__global quadw_t*)d =
                    gs_quad3(*(__global const quadw_t*)s, ar[i], ag[i], ab[i], wv.sf, gm);
                s += src_pitch;
                d += dst_pitch;
            }
        } else
#endif
        if (xa < width) {
#pragma unroll
            for (int i = 0; i < PY; ++i) {
                const int y = cy + ly * PY + i;
                if (y >= height) break;
#if C3
                gs_store3(src, src_pitch, dst, dst_pitch, xa, y, width, ar[i], ag[i], ab[i],
                          wv.sf, gm);
#else
                float4 acc[4];
#pragma unroll
                for (int c = 0; c < 4; ++c)
                    acc[c] = (float4)(gs_lane(ar[i], c), gs_lane(ag[i], c), gs_lane(ab[i], c),
                                      0.0f);
                gs_store(src, src_pitch, dst, dst_pitch, xa, y, width, acc, wv.sf);
#endif
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        w0 += GR_CH;
        if (w0 >= GR_RING) w0 -= GR_RING;
        v0 += GR_CH;
        if (v0 >= GR_RING) v0 -= GR_RING;
    }
}
#elif defined(LM) && LM
// Local-memory version (-DLM=1 -DLX=.. -DLY=.. -DPY=..; work-group LX x LY, each work-item
// still makes a 4 x PY block): the group's tile is 4 LX columns x LY PY rows. Its input rows
// (tile + r above and below, clamped) and the GS_HALF quads left and right come into __local
// once, as aligned quads loaded by every work-item; the horizontal pass runs ONCE per tile row
// and quad column into __local (column 4 q + c stored at c LX + q: the vertical reads of
// neighbouring work-items are neighbouring float4s); then each work-item runs its vertical
// pass from __local. Per output pixel the arithmetic is the same as below, in the same order
// (the same horizontal taps, then the fma chain over vertical taps 0 .. 2r), so the frame is
// bit-identical to the no-local-memory candidates.
#define GL_TQ (LX + 2 * GS_HALF)      // quads per staged input row
#define GL_TH (LY * PY)               // output rows per tile
#define GL_ROWS (GL_TH + 2 * RADIUS)  // input rows per tile
#define GL_TW (4 * LX)                // output columns per tile

__kernel __attribute__((reqd_work_group_size(LX, LY, 1))) void gaussian_strip(
    __global const uchar* src, int src_pitch, __global uchar* dst, int dst_pitch, int width,
    int height, float16 wh, float16 wv) {
    __local quad_t in_t[GL_ROWS * GL_TQ];
    __local float4 h_t[GL_ROWS * GL_TW];
    const int lx = (int)get_local_id(0);
    const int ly = (int)get_local_id(1);
    const int tx = (int)get_group_id(0) * GL_TW;
    const int ty = (int)get_group_id(1) * GL_TH;
    for (int i = ly * LX + lx; i < GL_ROWS * GL_TQ; i += LX * LY) {
        const int row = i / GL_TQ;
        const int q = i - row * GL_TQ;
        in_t[i] = load_quad(src, src_pitch, tx + 4 * (q - GS_HALF),
                            clamp_y(ty - RADIUS + row, height), width);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int row = ly; row < GL_ROWS; row += LY) {
        float4 p[4 * GS_NQ];
#pragma unroll
        for (int q = 0; q < GS_NQ; ++q) {
            const quad_t v = in_t[row * GL_TQ + lx + q];
#pragma unroll
            for (int c = 0; c < 4; ++c) p[4 * q + c] = convert_float4(QUAD_PIX(v, c));
        }
#pragma unroll
        for (int c = 0; c < 4; ++c)
            h_t[row * GL_TW + c * LX + lx] = gs_h_at(p, GS_OFF + RADIUS + c, wh);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    const int xa = tx + 4 * lx;
    if (xa >= width) return;
#pragma unroll
    for (int i = 0; i < PY; ++i) {
        const int y = ty + ly * PY + i;
        if (y >= height) break;
        const int t = ly * PY + i;  // this output row's first input row in the tile
        float4 acc[4];
#pragma unroll
        for (int c = 0; c < 4; ++c) acc[c] = h_t[t * GL_TW + c * LX + lx] * GS_VT(0);
#pragma unroll
        for (int k = 1; k <= 2 * RADIUS; ++k) {
#pragma unroll
            for (int c = 0; c < 4; ++c)
                acc[c] = fma((float4)(GS_VT(k)), h_t[(t + k) * GL_TW + c * LX + lx], acc[c]);
        }
        gs_store(src, src_pitch, dst, dst_pitch, xa, y, width, acc, wv.sf);
    }
}
#else
__kernel void gaussian_strip(__global const uchar* src, int src_pitch, __global uchar* dst,
                             int dst_pitch, int width, int height, float16 wh,
                             float16 wv) {
    const int xa = (int)get_global_id(0) * 4;
    const int y0 = (int)get_global_id(1) * PY;
    if (xa >= width || y0 >= height) return;

    float4 acc[PY][4];
#pragma unroll
    for (int j = 0; j < PY + 2 * RADIUS; ++j) {
        const int y = clamp_y(y0 - RADIUS + j, height);
        float4 p[4 * GS_NQ];
#pragma unroll
        for (int q = 0; q < GS_NQ; ++q)
            gs_load_quad(src, src_pitch, xa + 4 * (q - GS_HALF), y, width, p + 4 * q);
        float4 h[4];
#pragma unroll
        for (int c = 0; c < 4; ++c) h[c] = gs_h_at(p, GS_OFF + RADIUS + c, wh);  // column c
#pragma unroll
        for (int i = 0; i < PY; ++i) {
            const int k = j - i;  // tap of this row in output row i's vertical window
            if (k == 0) {
#pragma unroll
                for (int c = 0; c < 4; ++c) acc[i][c] = h[c] * GS_VT(0);
            } else if (k > 0 && k <= 2 * RADIUS) {
#pragma unroll
                for (int c = 0; c < 4; ++c) acc[i][c] = fma((float4)(GS_VT(k)), h[c], acc[i][c]);
            }
        }
    }

#pragma unroll
    for (int i = 0; i < PY; ++i) {
        const int y = y0 + i;
        if (y >= height) break;
        gs_store(src, src_pitch, dst, dst_pitch, xa, y, width, acc[i], wv.sf);
    }
}
#endif  // LM
#endif
