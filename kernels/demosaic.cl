// demosaic=method={mhc,bilinear}:pattern=P: a Bayer mosaic (mono8/mono16) -> RGBA of the same
// depth. mhc: Malvar-He-Cutler 5x5 linear filters (2004); bilinear: the average of the nearest
// 2 or 4 samples of the missing colour. Borders mirror without repeating the edge pixel
// (reflect-101: -1 -> 1, w -> w-2), which keeps the Bayer phase. The filter weights are
// multiples of 1/16 and the sums stay below 2^24, so the float sums are exact (in any order);
// the result is rounded to nearest even and saturated. Alpha = max.
//
// Build options: -DCFA=<cfa_at code> -DMETHOD=<0 mhc | 1 bilinear> -DPY=<rows per work-item,
// even> -DPX=<pixels per row of a work-item: 4 or 8>. Each work-item makes a block of
// PX x PY pixels at (PX gx, PY gy): it reads the (PX + 4) x (PY + 4) samples around it and
// writes each row of PX pixels as PX / 4 aligned quad stores (a quad past the right edge is
// skipped, the last one clipped). Away from the left and right edges a row is read with aligned
// vector loads: PX 4: three 4-sample loads; PX 8: one aligned 8-sample load plus a 2-sample
// load on each side (the apron). Near the edges: reflected single loads. The block starts on
// even coordinates, so every pixel's Bayer site is a compile-time constant: no branches on the
// site, no per-sample reflection in the interior.
// Global traffic: 1 sample read (L1/L2 absorb the (PY + 4) / PY row overlap) + 1 pixel written.
// -DQW=1|2 (common.h's quads as words): each pixel is built as its word (float_to_pixw, alpha
// max) and each quad written as one 16 / 32-byte store.
// -DDI=1|2|3|5: the integer path ("The integer path" below): the same frames from integer adds,
// shifts, masks and min/max (DI=1, 2: no conversion to float; 3 and 5 round by exact float
// tricks on the sums' bits), two pixels per operation on mono8, PX a
// multiple of 4, pixel words stored as with QW. DI=2 and 3 differ in the mono8 MHC rounding and
// saturation: 2 with packed 16-bit min/max, 3 on the float pipe (exact float tricks on the
// integer sums' bits), 5 like 3 but all of it but one operation on the multiply-add pipes (the
// integer one was the busy one on the H200: "DI=5" below). -DPRMT=1 (with DI=3|5): byte permutes
// (common.h's vfx_prmt).
// -DLP=D -DLX=<work-group width> (DI): the input rows of the work-group D places further in
// launch order prefetched into L2 as the kernel starts (common.h's vfx_prefetch_ahead), so that
// when that group runs its loads wait on L2 rather than on DRAM. -DRP=R: the same by rows, each
// work-item its own rows R rows further down.
// Arguments: src, src_pitch, dst, dst_pitch, width, height.

#ifndef PY
#define PY 2
#endif
#ifndef PX
#define PX 4
#endif
#if PX != 4 && PX != 8
#error "demosaic: PX must be 4 or 8"
#endif
#if PY % 2
#error "demosaic: PY must be even"
#endif
#ifndef CFA
#define CFA 148
#endif
#ifndef METHOD
#define METHOD 0
#endif
#ifndef DI
#define DI 0
#endif
#ifndef PRMT
#define PRMT 0
#endif
#if defined(LP) && LP
#if !defined(LX)
#error "demosaic: LP needs LX (the work-group width)"
#endif
#if !DI
#error "demosaic: LP is an option of the integer path (DI)"
#endif
#if (LX * PX * (WORK16 ? 2 : 1)) % 32
#error "demosaic: LP needs a work-group row of whole 32-byte sectors (LX PX samples)"
#endif
#endif
#if PRMT && DI != 3 && DI != 5
#error "demosaic: PRMT is an option of DI=3|5"
#endif
#if defined(RP) && RP && defined(LP) && LP
#error "demosaic: RP and LP are two forms of one prefetch: one at most"
#endif
// -DFP=1 (with DI=5 and PRMT): the mono8 MHC's levels converted and packed two at a time
// (dm_pixels_fp); for bilinear and mono16, which have no float step, the DI=5 program.
#if defined(FP) && FP && (DI != 5 || !PRMT)
#error "demosaic: FP is an option of DI=5 with PRMT"
#endif
#if defined(FP) && FP && !WORK16 && METHOD == 0
#define DM_FP 1
#else
#define DM_FP 0
#endif

#define DM_CAT_(a, b) a##b
#define DM_CAT(a, b) DM_CAT_(a, b)
#if WORK16
typedef ushort4 mono4_t;
typedef ushort2 mono2_t;
#define MONO_SCALAR ushort
#else
typedef uchar4 mono4_t;
typedef uchar2 mono2_t;
#define MONO_SCALAR uchar
#endif
typedef DM_CAT(MONO_SCALAR, PX) monopx_t;  // PX samples, one aligned load
#if QW
#if WORK16
#define DM_ALPHA_W ((uint2)(0u, 0xFFFF0000u))  // a pixel word whose alpha is max
#else
#define DM_ALPHA_W 0xFF000000u
#endif
#endif

inline int reflect101(int i, int n) {
    // Inside the frame (every row of a block away from the top and bottom): no arithmetic. The
    // general case needs an integer modulo by a run-time value, which NVIDIA computes through
    // the reciprocal unit: done for every row, it cost more than the filter.
    if ((uint)i < (uint)n) return i;
    if (n == 1) return 0;
    const int period = 2 * (n - 1);
    i = (i < 0 ? -i : i) % period;
    return i < n ? i : period - i;
}

// Samples xa-2 .. xa+5 of row y (y inside the frame, xa a multiple of 4) into v[0..7].
inline void load_row8(__global const uchar* src, int pitch, int xa, int y, int width,
                      float* v) {
    __global const uchar* row = src + (size_t)y * (size_t)pitch;
    if (xa >= 4 && xa + 7 < width) {
        __global const mono4_t* q = (__global const mono4_t*)(row + (size_t)xa * sizeof(mono_t));
        const float4 a = convert_float4(q[-1]);
        const float4 b = convert_float4(q[0]);
        const float4 c = convert_float4(q[1]);
        v[0] = a.z;
        v[1] = a.w;
        v[2] = b.x;
        v[3] = b.y;
        v[4] = b.z;
        v[5] = b.w;
        v[6] = c.x;
        v[7] = c.y;
    } else {
        for (int i = 0; i < 8; ++i)
            v[i] = (float)*(__global const mono_t*)(row + (size_t)reflect101(xa - 2 + i, width) *
                                                              sizeof(mono_t));
    }
}

#if PX == 4
#define load_row load_row8
#else
// Samples xa-2 .. xa+PX+1 of row y (y inside the frame, xa a multiple of PX) into v[0..PX+3].
inline void load_row(__global const uchar* src, int pitch, int xa, int y, int width, float* v) {
    __global const uchar* row = src + (size_t)y * (size_t)pitch;
    if (xa >= 2 && xa + PX + 1 < width) {
        // Rows start on 256-byte boundaries: the PX-sample load is aligned to its size, the
        // 2-sample aprons (even x) to theirs.
        const float2 l =
            convert_float2(*(__global const mono2_t*)(row + (size_t)(xa - 2) * sizeof(mono_t)));
        const float2 r =
            convert_float2(*(__global const mono2_t*)(row + (size_t)(xa + PX) * sizeof(mono_t)));
        DM_CAT(vstore, PX)
        (DM_CAT(convert_float, PX)(*(__global const monopx_t*)(row + (size_t)xa * sizeof(mono_t))),
         0, v + 2);
        v[0] = l.x;
        v[1] = l.y;
        v[PX + 2] = r.x;
        v[PX + 3] = r.y;
    } else {
        for (int i = 0; i < PX + 4; ++i)
            v[i] = (float)*(__global const mono_t*)(row + (size_t)reflect101(xa - 2 + i, width) *
                                                              sizeof(mono_t));
    }
}
#endif

#if DI
// ---- The integer path (-DDI=1|2|3|5) ----
// Every filter is an integer combination of samples over 16 (MHC) or over 2 or 4 (bilinear), so
// S = 16 (2, 4) x value is computed exactly in integers, then rounded to nearest even and
// saturated as convert_*_sat_rte does with the exact float value: round(S / 16) is
// (S + 7 + bit 4 of S) >> 4 (an arithmetic shift: floor), likewise for 2 and 4.
//
// Pixels x and x + 2 of a row share their Bayer site, hence their filters: they are computed
// together as a pair (dp_t), lane 0 for x, lane 1 for x + 2. A quad (pixels xa + 4q .. + 3) is
// two pairs, its even pixels 0, 2 and its odd pixels 1, 3. P(k) is the pair of samples
// (x + k, x + k + 2) of a row, x the quad's first pixel: the quad's filters read P(-2) .. P(3).
//  - mono8: a pair is one uint of two 16-bit lanes (SWAR: one add serves two pixels), taken
//    from the 4-sample words of the row with a shift and a mask (bytes 0 and 2). Every step is
//    an integer linear combination mod 2^32, so the word is exactly lane 0 + 2^16 lane 1
//    whenever the final lanes lie in 0..65535, whatever the intermediate values (borrows and
//    carries between lanes cancel). MHC: S lies in [-12 * 255, 28 * 255] = [-3060, 7140]; a
//    bias of 32768 in each lane (16 x 2048, even: the parity of S >> 4 is kept) makes
//    T = S + 32768 in [29708, 39908], + 7 + 1 for the rounding. T >> 4 is then q + 2048 in
//    each lane (q the rounded value, -191..446: 12 bits; lane 0's bits 12..15 hold lane 1's
//    fraction), and clamping a lane to 0x800..0x8FF leaves sat(q) in its low byte. DI=1: lane 0
//    masked to 12 bits is clamped as a uint, lane 1 by clamping the whole word to
//    0x08000000..0x08FFFFFF (lane 0 below it does not change the order); DI=2: both lanes at
//    once as a ushort2. Bilinear: sums of 2 or 4 samples (at most 1020), no bias, no saturation
//    (an average stays in range).
//  - mono16: a pair is an int2 (one 32-bit lane per pixel; |S| < 2^21), the same formulas with
//    a clamp to 0..65535.
// The channel pairs then make the quad's pixel words (dm_pixels: R | G << 8 | B << 16 | alpha
// max << 24; mono16: two words), stored as one 16 / 32-byte store (store_quadw). Blocks away
// from the frame's edges read their rows with aligned word loads and one pointer step per row.
// Estimated machine instructions per pixel (mono8 MHC, PX 4, PY 4; not measured): about 4 to
// split the rows into pairs, 6.5 for the sums, 10 to round and saturate (7 with packed 16x2
// min/max), 3 to build the words, 1.5 for loads, addresses and the store: about 25, against
// about 35 in the float path, 7 of them conversions (4 to float, 3 back).

#define DM_Q (PX / 4)  // quads per row of a block
#if PX % 4
#error "demosaic: DI needs PX a multiple of 4"
#endif
#if WORK16
typedef uint2 dmw_t;  // 4 samples: s0 | s1 << 16, s2 | s3 << 16
typedef int2 dp_t;    // a pair: (sample or sum of pixel x, the same of pixel x + 2)
#define DM_BIAS 0
#else
typedef uint dmw_t;  // 4 samples: s0 | s1 << 8 | s2 << 16 | s3 << 24
typedef uint dp_t;   // a pair: pixel x in bits 0..15, x + 2 in 16..31
#define DM_LANES(k) (0x00010001u * (uint)(k))  // k in both lanes
#if DI == 5
// DI=5: the float exponent bits of 2^23 carried along in the sums (see dm_round16).
#define DM_BIAS (DM_LANES(0x8000) + 0x4B000000u)
#else
#define DM_BIAS DM_LANES(0x8000)
#endif
#endif
// One channel of a pair. mono8: a word, lane 0's value in byte 0, lane 1's in byte 2 (bytes 1
// and 3 undefined), which dm_pixels turns into two pixel words; mono16: (lane 0, lane 1).
#if WORK16
typedef uint2 dmc_t;
#else
typedef uint dmc_t;
#endif

// The words of row y (inside the frame) that a block at xa (a multiple of PX) reads: w[i] holds
// samples xa + 4 (i - 1) .. + 3. Away from the left and right edges: aligned word loads. Near
// them: reflected single loads, the samples no filter reads (xa - 4, xa - 3, xa + PX + 2, + 3)
// left 0.
inline void dm_load_words(__global const uchar* src, int pitch, int xa, int y, int width,
                          dmw_t* w) {
    __global const uchar* row = src + (size_t)y * (size_t)pitch;
    if (xa >= 4 && xa + PX + 3 < width) {
        __global const dmw_t* q = (__global const dmw_t*)(row + (size_t)xa * sizeof(mono_t));
#pragma unroll
        for (int i = 0; i < DM_Q + 2; ++i)
            w[i] = q[i - 1];
    } else {
#pragma unroll
        for (int i = 0; i < DM_Q + 2; ++i) {
            uint s[4];
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                const int dx = 4 * (i - 1) + k;  // from xa
                s[k] = 0;
                if (dx >= -2 && dx <= PX + 1)
                    s[k] = *(__global const mono_t*)(row + (size_t)reflect101(xa + dx, width) *
                                                               sizeof(mono_t));
            }
#if WORK16
            w[i] = (uint2)(s[0] | s[1] << 16, s[2] | s[3] << 16);
#else
            w[i] = s[0] | s[1] << 8 | s[2] << 16 | s[3] << 24;
#endif
        }
    }
}

// -DNC=1 (NVIDIA, mono8): the interior blocks' words loaded through the non-coherent (read-only)
// data path (PTX ld.global.nc); the source is not written while the kernel runs. H200 4K, the
// bench in three alternating rounds in each of two calls: MHC 0.0178-0.0180 ms (68-69 % of the
// copy) with RP 192 or 256 against 0.0181-0.0183 without it; with an L2 fetch size of 128 or 256
// bytes as well 0.0179-0.0180, not kept (benchmarks/2026-11-28-s24). Elsewhere the plain load.
#if defined(__NV_CL_C_VERSION) && defined(NC) && NC && !WORK16
inline dmw_t dm_ld(__global const dmw_t* p) {
    uint v;
    asm("ld.global.nc.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}
#else
inline dmw_t dm_ld(__global const dmw_t* p) {
    return *p;
}
#endif

// p[k + 2] = P(k), k = -2 .. 3, of the quad whose samples are word b (a before it, c after).
inline void dm_pairs(dmw_t a, dmw_t b, dmw_t c, dp_t* p) {
#if WORK16
    const uint2 al = a & 0xFFFFu, bl = b & 0xFFFFu, cl = c & 0xFFFFu;  // samples 0, 2 of a word
    const uint2 ah = a >> 16, bh = b >> 16, ch = c >> 16;              // samples 1, 3
    p[0] = as_int2((uint2)(al.y, bl.x));
    p[1] = as_int2((uint2)(ah.y, bh.x));
    p[2] = as_int2(bl);
    p[3] = as_int2(bh);
    p[4] = as_int2((uint2)(bl.y, cl.x));
    p[5] = as_int2((uint2)(bh.y, ch.x));
#else
    const uint m = 0x00FF00FFu;  // bytes 0 and 2: one sample in each 16-bit lane
#if PRMT
    // One byte permute each: the zero bytes come from P(0) and P(1), which have them.
    p[2] = b & m;                           // b0 0 b2 0
    p[3] = vfx_prmt(b, 0u, 0x4341u);        // b1 0 b3 0
    p[0] = vfx_prmt(a, p[2], 0x5452u);      // a2 0 b0 0
    p[1] = vfx_prmt(a, p[3], 0x5453u);      // a3 0 b1 0
    p[4] = vfx_prmt(p[2], c, 0x1412u);      // b2 0 c0 0
    p[5] = vfx_prmt(p[3], c, 0x1512u);      // b3 0 c1 0
#else
    p[0] = ((a >> 16) | (b << 16)) & m;  // bytes 2, 3 of a and 0, 1 of b
    p[1] = ((a >> 24) | (b << 8)) & m;   // byte 3 of a and 0 .. 2 of b
    p[2] = b & m;
    p[3] = (b >> 8) & m;
    p[4] = ((b >> 16) | (c << 16)) & m;
    p[5] = ((b >> 24) | (c << 8)) & m;
#endif
#endif
}

#if WORK16
inline dmc_t dm_round16(dp_t s) {
    return as_uint2(clamp((s + 7 + ((s >> 4) & 1)) >> 4, 0, 65535));
}
inline dmc_t dm_round2(dp_t s) {
    return as_uint2((s + ((s >> 1) & 1)) >> 1);
}
inline dmc_t dm_round4(dp_t s) {
    return as_uint2((s + 1 + ((s >> 2) & 1)) >> 2);
}
inline dmc_t dm_sample(dp_t p) {
    return as_uint2(p);
}
// The pixel words (two each) of lanes 0 and 1.
inline uint4 dm_pixels(dmc_t r, dmc_t g, dmc_t b) {
    return (uint4)(r.x | g.x << 16, b.x | 0xFFFF0000u, r.y | g.y << 16, b.y | 0xFFFF0000u);
}
#define DM_QUAD(p0, p1) ((quadw_t)((p0).lo, (p1).lo, (p0).hi, (p1).hi))
#else
// t = 16 x value + DM_BIAS in each lane.
#if DI == 5
// DI=5: DI=3's exact S / 16 with one operation on the integer pipe where DI=3 takes about 8 (the
// integer pipe was the busiest of this kernel on the H200: Nsight Compute,
// benchmarks/2026-11-27-s15). The sums carry 0x4B000000 (DM_BIAS), so t = T0 + 2^16 T1 +
// 0x4B000000 (T = S + 2^15 per lane, 29708 .. 39908: "The integer path" above; no carry leaves
// lane 0, and t stays below 2^32). The high half t >> 16 = T1 + 0x4B00
// (T1 + 0x4B00 < 2^16) plus a constant gives 0x4B000000 | T1 (ptxas makes the multiply-high and
// the add one LEA.HI, the integer pipe's one operation); t minus that times 2^16 gives
// 0x4B000000 | T0 (0x4B000000 2^16 is 0 mod 2^32), a multiply-add. Each is the float 2^23 + T,
// which one multiply-add makes S / 16 (exact, as in DI=3), and one conversion rounds to nearest
// even and saturates (common.h's vfx_level: one F2IP on NVIDIA, convert_uchar_sat_rte
// elsewhere); the two lanes go back into one word (bytes 1 and 3 zero) by a multiply-add.
// S / 16 of both lanes as floats: x lane 0, y lane 1.
inline float2 dm_lanes16(dp_t t) {
    const uint hi = mul_hi(t, 65536u) + (0x4B000000u - 0x4B00u);  // 0x4B000000 | T1
    const uint lo = t - hi * 65536u;                               // 0x4B000000 | T0
    const float k = -(8388608.0f + 32768.0f) * 0.0625f;
    return (float2)(fma(as_float(lo), 0.0625f, k), fma(as_float(hi), 0.0625f, k));
}
inline dmc_t dm_round16(dp_t t) {
    const float2 v = dm_lanes16(t);
    return vfx_level(v.x) + vfx_level(v.y) * 65536u;
}
#if DM_FP
// The pixel words of lanes 0 and 1 of a pair whose sample pair c (bytes 0 and 2) is channel cs
// and whose sums ta, tb (16 x value + DM_BIAS per lane) are channels ca, cb: the four values
// rounded, saturated and packed by two conversions (common.h's vfx_level2_u8: one F2IP each on
// NVIDIA, bytes a0 a1 b0 b1), each pixel word then one byte permute of them and c | alpha.
// Where dm_round16 and dm_pixels take four conversions, two packing adds and four more
// operations for the same two words.
inline uint2 dm_pixels_fp(dp_t c, int cs, dp_t ta, int ca, dp_t tb, int cb) {
    const float2 a = dm_lanes16(ta), b = dm_lanes16(tb);
    const uint w = vfx_level2_u8(a.y, a.x, vfx_level2_u8(b.y, b.x, 0u));  // a0 a1 b0 b1
    const uint cf = c | 0xFF00FF00u;                                       // c0 FF c1 FF
    // Byte i of a pixel word (R, G, B, alpha) from byte n of cf (0 .. 3) or of w (4 .. 7).
    const uint s0 = (0u << (4 * cs)) | (4u << (4 * ca)) | (6u << (4 * cb)) | 0x1000u;
    const uint s1 = (2u << (4 * cs)) | (5u << (4 * ca)) | (7u << (4 * cb)) | 0x3000u;
    return (uint2)(vfx_prmt(cf, w, s0), vfx_prmt(cf, w, s1));
}
#endif
#elif DI == 3
// DI=3: the rounding and saturation on the float pipe (the integer one is the busier): a lane
// (T = S + 2^15, exact) as the float 2^23 + T by its bits, times 1/16 minus (2^23 + 2^15) / 16
// in one multiply-add: S / 16 exactly (a power-of-two scaling of an integer below 2^24, then a
// difference of two multiples of 1/16 below 2^20). Clamped to [0, max], plus 2^23: the float
// add rounds to nearest even, the integer in the low bits, as convert_uchar_sat_rte would.
// `bits`: 0x4B000000 | T.
inline uint dm_round16_lane(uint bits) {
    const float v = fma(as_float(bits), 0.0625f, -(8388608.0f + 32768.0f) * 0.0625f);
    return as_uint(fmin(fmax(v, 0.0f), 255.0f) + 8388608.0f);
}
inline dmc_t dm_round16(dp_t t) {
#if PRMT
    // Lane 1 under the exponent bits by one byte permute; the two low bytes put together by
    // another (bytes 1 and 3 of the result: 0).
    return vfx_prmt(dm_round16_lane((t & 0xFFFFu) | 0x4B000000u),
                    dm_round16_lane(vfx_prmt(t, 0x4B000000u, 0x7632u)), 0x5410u);
#else
    // Lane 1's bits above its low byte (0x4B0000) leave the word when shifted up 16.
    return (dm_round16_lane((t & 0xFFFFu) | 0x4B000000u) & 0xFFu) |
           (dm_round16_lane((t >> 16) | 0x4B000000u) << 16);
#endif
}
#else
inline dmc_t dm_round16(dp_t t) {
    const uint l = (t + DM_LANES(7) + ((t >> 4) & DM_LANES(1))) >> 4;  // q + 2048 per lane
#if DI == 2
    // Both lanes at once (lane 0 cleared of lane 1's fraction first): one packed max and one
    // packed min where the device has them (sm_90's 16x2 forms), else split.
    return as_uint(clamp(as_ushort2(l & DM_LANES(0xFFF)), (ushort)0x800, (ushort)0x8FF));
#else
    const uint lo = clamp(l & 0xFFFu, 0x800u, 0x8FFu);   // lane 0
    const uint hi = clamp(l, 0x08000000u, 0x08FFFFFFu);  // lane 1 (lane 0 below it)
    return (lo & 0xFFu) | (hi & 0xFFFFFF00u);
#endif
}
#endif  // DI == 5, 3, else
inline dmc_t dm_round2(dp_t t) {
    return (t + ((t >> 1) & DM_LANES(1))) >> 1;
}
inline dmc_t dm_round4(dp_t t) {
    return (t + DM_LANES(1) + ((t >> 2) & DM_LANES(1))) >> 2;
}
inline dmc_t dm_sample(dp_t p) {
    return p;
}
// The pixel words of lanes 0 and 1 of channel pairs r, g, b. x = r | g << 8 in each lane holds
// both pixels' R and G; y, b with its lanes swapped | alpha max << 8 in each lane, their B and
// alpha: lane 0's pixel is x's low half under y's high half, lane 1's x's high half under y's
// low half (one funnel shift). About 3 operations per pixel (2 where byte permutes are used).
inline uint2 dm_pixels(dmc_t r, dmc_t g, dmc_t b) {
#if PRMT
    // x = R, G of both pixels (bytes 0, 2 of r and g); each pixel word is two bytes of x and two
    // of b | alpha.
    const uint x = vfx_prmt(r, g, 0x6240u);
    const uint y = b | 0xFF00FF00u;
    return (uint2)(vfx_prmt(x, y, 0x5410u), vfx_prmt(x, y, 0x7632u));
#else
    const uint x = (r & 0x00FF00FFu) | ((g << 8) & 0xFF00FF00u);
    const uint y = rotate(b, 16u) | 0xFF00FF00u;
    return (uint2)((x & 0xFFFFu) | (y & 0xFFFF0000u), (x >> 16) | (y << 16));
#endif
}
#define DM_QUAD(p0, p1) ((quadw_t)((p0).x, (p1).x, (p0).y, (p1).y))
#endif

__kernel void demosaic(__global const uchar* src, int src_pitch, __global uchar* dst, int dst_pitch,
                       int width, int height) {
#if defined(LP) && LP
    // -DLP=D -DLX=<work-group width>: the rows of the work-group D places further in launch
    // order fetched into L2 now (common.h's vfx_prefetch_ahead; never changes a result): its
    // own columns (32-byte aligned: LX PX samples, a multiple of 32 bytes) and its rows with
    // their 2 + 2 apron rows; the apron columns are its neighbours' own, which the groups
    // beside this one fetch.
    vfx_prefetch_ahead(src, src_pitch, width * (int)sizeof(mono_t), height, LP,
                       (int)get_local_size(1) * PY, 2, LX * PX * (int)sizeof(mono_t) / 32);
#endif
    const int xa = (int)get_global_id(0) * PX;
    const int y0 = (int)get_global_id(1) * PY;
    if (xa >= width || y0 >= height) return;

    dmw_t w[PY + 4][DM_Q + 2];  // w[j][i]: samples xa + 4 (i - 1) .. + 3 of row y0 - 2 + j
#if defined(RP) && RP
    // (RP: the four tests as one predicate, no short-circuit branches; measured with RP's
    // prefetch moved in here, the two together 1 % faster on the H200.)
    if ((xa >= 4) & (xa + PX + 3 < width) & (y0 >= 2) & (y0 + PY + 2 <= height)) {
#else
    if (xa >= 4 && xa + PX + 3 < width && y0 >= 2 && y0 + PY + 2 <= height) {
#endif
        // Every row inside the frame (all blocks but those along the edges): aligned word
        // loads, one pointer step per row, no reflection.
        __global const uchar* row =
            src + (size_t)(y0 - 2) * (size_t)src_pitch + (size_t)xa * sizeof(mono_t);
#if defined(RP) && RP
        // -DRP=R: this work-item's own PY rows, R rows further down, fetched into L2 now (the
        // rows of the groups that start there a fraction of a wave later, in launch order; R a
        // multiple of the group's height; nothing off NVIDIA). The plainest form of LP: from the
        // row pointer, an address and a prefetch per row, no group index arithmetic; the blocks
        // along the edges, a few in a thousand, go without.
        if (y0 + PY + RP <= height) {
            __global const uchar* ahead = row + (size_t)(RP + 2) * (size_t)src_pitch;
#pragma unroll
            for (int j = 0; j < PY; ++j, ahead += src_pitch)
                vfx_prefetch_l2(ahead);
        }
#endif
#pragma unroll
        for (int j = 0; j < PY + 4; ++j, row += src_pitch)
#pragma unroll
            for (int i = 0; i < DM_Q + 2; ++i)
                w[j][i] = dm_ld(((__global const dmw_t*)row) + i - 1);
    }
#if !WORK16
    else if ((y0 >= 2) & (y0 + PY + 2 <= height) & (xa + PX <= width) & ((width & 3) == 0)) {
        // The blocks at the left and right edges of a frame whose width is a multiple of 4
        // (mono8), their rows inside: the words that hold samples of the frame loaded as inside,
        // the one before the frame (xa 0) or after it (xa + PX = width) made from the word next
        // to it by one byte permute (reflect-101: -2, -1 are 2, 1; width, width + 1 are
        // width - 2, width - 3; the other two bytes are samples no filter reads). Their warps
        // (one in 30 at 4K) took the per-sample path below as well as the inside one, several
        // times an inside warp's instructions. H200 4K, the bench in three alternating rounds:
        // MHC 0.0174-0.0180 ms against 0.0180-0.0181, bilinear 0.0163-0.0164 against
        // 0.0164-0.0165 (benchmarks/2026-11-28-s25).
        __global const uchar* row = src + (size_t)(y0 - 2) * (size_t)src_pitch + (size_t)xa;
        const bool left = xa == 0, right = xa + PX == width;
#pragma unroll
        for (int j = 0; j < PY + 4; ++j, row += src_pitch) {
#pragma unroll
            for (int i = 0; i < DM_Q + 2; ++i)
                if ((i > 0 || !left) && (i < DM_Q + 1 || !right))
                    w[j][i] = dm_ld(((__global const dmw_t*)row) + i - 1);
            if (left) w[j][0] = vfx_prmt(w[j][1], 0u, 0x1200u);
            if (right) w[j][DM_Q + 1] = vfx_prmt(w[j][DM_Q], 0u, 0x0012u);
        }
    }
#endif
    else {
#pragma unroll
        for (int j = 0; j < PY + 4; ++j)
            dm_load_words(src, src_pitch, xa, reflect101(y0 - 2 + j, height), width, w[j]);
    }
    dp_t p[PY + 4][DM_Q][6];  // p[j][q][k + 2]: P(k) of quad q in row y0 - 2 + j
#pragma unroll
    for (int j = 0; j < PY + 4; ++j)
#pragma unroll
        for (int q = 0; q < DM_Q; ++q)
            dm_pairs(w[j][q], w[j][q + 1], w[j][q + 2], p[j][q]);

#pragma unroll
    for (int j = 0; j < PY; ++j) {
        if (y0 + j >= height) break;
#pragma unroll
        for (int q = 0; q < DM_Q; ++q) {
            // Column sums: v1[k + 1] = V1(k), P(k) of rows j - 1 and j + 1 (k = -1 .. 2);
            // v2[k] = V2(k), P(k) of rows j - 2 and j + 2 (k = 0, 1).
            dp_t v1[4], v2[2];
#pragma unroll
            for (int k = -1; k <= 2; ++k)
                v1[k + 1] = p[j + 1][q][k + 2] + p[j + 3][q][k + 2];
#pragma unroll
            for (int k = 0; k < 2; ++k)
                v2[k] = p[j][q][k + 2] + p[j + 4][q][k + 2];
#if DM_FP
            uint2 px[2];  // px[e]: the pixel words of pair e's lanes
#else
            dmc_t ch[2][3];  // ch[e][colour]: the pair of pixels e and e + 2 of the quad
#endif
#pragma unroll
            for (int e = 0; e < 2; ++e) {
#define P0(k) p[j + 2][q][e + (k) + 2]  // P(e + k) of the centre row
                const dp_t c = P0(0);
                const dp_t h1 = P0(-1) + P0(1), h2 = P0(-2) + P0(2);
                const dp_t vs1 = v1[e + 1], vs2 = v2[e];
                const dp_t d = v1[e] + v1[e + 2];  // the four diagonal neighbours
#undef P0
                const int site = cfa_at(CFA, e, j);  // xa and y0 are even
#if METHOD == 0
                // The sums of the two missing colours (16 x value + DM_BIAS), channels ca, cb.
                // Green site, one missing colour on the row, the other on the column: 16 x the
                // float path's h and vv (10c + 8h1 - 2h2 - 2d + v2 and transposed). Red or blue:
                // green on the cross, the other colour on the diagonals, 16 x gg and o (8c +
                // 4cross1 - 2cross2 and 12c + 4d - 3cross2, both with l = 4c - cross2).
                dp_t sa, sb;
                int ca, cb;
                if (site == 1) {
                    const dp_t g = 10 * c - 2 * d + DM_BIAS;
                    sa = g + 8 * h1 - 2 * h2 + vs2;
                    sb = g + 8 * vs1 - 2 * vs2 + h2;
                    ca = cfa_at(CFA, e + 1, j);  // the row's colour
                    cb = 2 - ca;
                } else {
                    const dp_t l = 4 * c - (h2 + vs2);
                    sa = 4 * (h1 + vs1) + 2 * l + DM_BIAS;
                    sb = 4 * d + 3 * l + DM_BIAS;
                    ca = 1;
                    cb = 2 - site;
                }
#if DM_FP
                px[e] = dm_pixels_fp(c, site, sa, ca, sb, cb);
#else
                ch[e][site] = dm_sample(c);
                ch[e][ca] = dm_round16(sa);
                ch[e][cb] = dm_round16(sb);
#endif
#else
                ch[e][site] = dm_sample(c);
                if (site == 1) {  // green: one missing colour on the row, the other on the column
                    const int row_colour = cfa_at(CFA, e + 1, j);
                    ch[e][row_colour] = dm_round2(h1);
                    ch[e][2 - row_colour] = dm_round2(vs1);
                } else {  // red or blue: green on the cross, the other colour on the diagonals
                    ch[e][1] = dm_round4(h1 + vs1);
                    ch[e][2 - site] = dm_round4(d);
                }
#endif
            }
            // Pixel i of the quad is lane i >> 1 of pair i & 1.
#if DM_FP
            const quadw_t out = DM_QUAD(px[0], px[1]);
#else
            const quadw_t out = DM_QUAD(dm_pixels(ch[0][0], ch[0][1], ch[0][2]),
                                        dm_pixels(ch[1][0], ch[1][1], ch[1][2]));
#endif
            if (q == 0 || xa + 4 * q < width)
                store_quadw(dst, dst_pitch, xa + 4 * q, y0 + j, width, out);
        }
    }
}
#else
__kernel void demosaic(__global const uchar* src, int src_pitch, __global uchar* dst,
                       int dst_pitch, int width, int height) {
    const int xa = (int)get_global_id(0) * PX;
    const int y0 = (int)get_global_id(1) * PY;
    if (xa >= width || y0 >= height) return;

    float v[PY + 4][PX + 4];  // v[j][i]: sample (xa - 2 + i, y0 - 2 + j)
#pragma unroll
    for (int j = 0; j < PY + 4; ++j)
        load_row(src, src_pitch, xa, reflect101(y0 - 2 + j, height), width, v[j]);

#pragma unroll
    for (int j = 0; j < PY; ++j) {
        if (y0 + j >= height) break;
#if QW
        pixw_t out[PX];
#else
        pix_t out[PX];
#endif
#pragma unroll
        for (int i = 0; i < PX; ++i) {
#define S(dx, dy) v[j + 2 + (dy)][i + 2 + (dx)]
            const int site = cfa_at(CFA, i, j);  // xa and y0 are even
            const float c = S(0, 0);
            const float h1 = S(-1, 0) + S(1, 0);
            const float v1 = S(0, -1) + S(0, 1);
            const float diag1 = (S(-1, -1) + S(1, -1)) + (S(-1, 1) + S(1, 1));
            float r, g, b;
            if (site == 1) {  // green: one missing colour on the row, the other on the column
                float h, vv;
#if METHOD == 0
                const float h2 = S(-2, 0) + S(2, 0);
                const float v2 = S(0, -2) + S(0, 2);
                h = (5.0f * c + 4.0f * h1 - h2 - diag1 + 0.5f * v2) * 0.125f;
                vv = (5.0f * c + 4.0f * v1 - v2 - diag1 + 0.5f * h2) * 0.125f;
#else
                h = h1 * 0.5f;
                vv = v1 * 0.5f;
#endif
                g = c;
                if (cfa_at(CFA, i + 1, j) == 0) {
                    r = h;
                    b = vv;
                } else {
                    r = vv;
                    b = h;
                }
            } else {  // red or blue: green on the cross, the other colour on the diagonals
                const float cross1 = h1 + v1;
                float gg, o;
#if METHOD == 0
                const float cross2 = (S(-2, 0) + S(2, 0)) + (S(0, -2) + S(0, 2));
                gg = (4.0f * c + 2.0f * cross1 - cross2) * 0.125f;
                o = (6.0f * c + 2.0f * diag1 - 1.5f * cross2) * 0.125f;
#else
                gg = cross1 * 0.25f;
                o = diag1 * 0.25f;
#endif
                g = gg;
                if (site == 0) {
                    r = c;
                    b = o;
                } else {
                    r = o;
                    b = c;
                }
            }
#undef S
#if QW
            out[i] = float_to_pixw((float4)(r, g, b, PIX_MAX), DM_ALPHA_W);
#else
            out[i] = float_to_pix((float4)(r, g, b, PIX_MAX));
#endif
        }
#pragma unroll
        for (int q = 0; q < PX; q += 4)
            if (q == 0 || xa + q < width)
#if QW
                store_quadw(dst, dst_pitch, xa + q, y0 + j, width,
                            (quadw_t)(out[q], out[q + 1], out[q + 2], out[q + 3]));
#else
                store_quad(dst, dst_pitch, xa + q, y0 + j, width,
                           (quad_t)(out[q], out[q + 1], out[q + 2], out[q + 3]));
#endif
    }
}
#endif  // DI
