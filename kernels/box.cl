// box=radius=R: the mean of the (2R+1)^2 window, clamp to edge, of R, G, B; alpha passed
// through. Exact: the window sum is formed in integers and rounded to nearest.
// One launch (box_strip), built with -DRADIUS=R -DPY=rows per work-item.
// Each work-item makes a block of 4 x PY pixels at (4 gx, PY gy). It keeps, per column, the
// sum of the window's horizontal sums and slides it down: row y + R + 1's horizontal sums
// are added and row y - R's subtracted. A row's 4 horizontal sums: the first from R / 2
// aligned quads (one vector load each) and the 2 (R % 4) + 1 pixels beyond them, the next
// three by sliding (one pixel in, one out). All in uint, exact (the window sums stay below
// 65535 * 129^2 < 2^31); the mean is (2s + n) / 2n, i.e. rounded to nearest (n odd: no ties,
// the same as the half-to-even rounding above). No local memory, no scratch: global traffic
// is 1 pixel read (L1/L2 absorb the overlap) + 1 written; the work per pixel grows with R
// only through the horizontal sums (R / 2 vector loads per row, 2 rows per output row).
// -DQW=1|2 (common.h's quads as words): the same sums from raw pixel words (quads as one
// uint4 / uint8 access, single pixels as one uint / uint2 word, channels by shifts and masks,
// the result packed back with the input's alpha); integer sums, so the same frame.
// Arguments: src, src_pitch, dst, dst_pitch, width, height.
// -DSHARPEN=1 (with QW; the `sharpen` filter): out = in + amount (in - s (1/n)) per channel from
// the same exact window sum s (sharpen's formula, in float as two multiply-adds, rounded to
// nearest even and saturated, alpha passed through); one more argument, float amount.
#ifndef SHARPEN
#define SHARPEN 0
#endif
#if SHARPEN && !QW
#error "box.cl: SHARPEN needs QW"
#endif
#if defined(SB) && SB && !(defined(SW) && SW)
#error "box.cl: SB is an option of the SW path"
#endif
#if SHARPEN
#define BX_AMOUNT_PARAM , float amount
#define BX_AMOUNT_ARG , amount
#define BX_OUT(v, a) bx_sharpen((v), (a), amount)
#else
#define BX_AMOUNT_PARAM
#define BX_AMOUNT_ARG
#define BX_OUT(v, a) bx_out((v), (a))
#endif
#ifndef RADIUS
#define RADIUS 1
#endif
#ifndef PY
#define PY 16
#endif
#define BX_A (RADIUS / 4)
#define BX_B (RADIUS % 4)
#define BX_N ((uint)((2 * RADIUS + 1) * (2 * RADIUS + 1)))

#if QW
// Channels of pixel x (clamped) of row y, from its word.
inline uint4 bx_pix(__global const uchar* src, int pitch, int x, int y, int width) {
    return pixw_channels(load_pixw(src, pitch, x, y, width));
}
typedef quadw_t bx_quad_t;
typedef pixw_t bx_px_t;
#define bx_load_quad load_quadw
#define bx_ch pixw_channels
inline uint4 bx_quad_sum(quadw_t p) {
    return (bx_ch(QW_PIX(p, 0)) + bx_ch(QW_PIX(p, 1))) +
           (bx_ch(QW_PIX(p, 2)) + bx_ch(QW_PIX(p, 3)));
}
// The output word: the rounded mean of window sum v (<= PIX_MAX), alpha from input word a.
inline pixw_t bx_out(uint4 v, pixw_t a) {
    uint4 m = (2u * v + BX_N) / (2u * BX_N);
    m.w = pixw_channels(a).w;
    return pixw_pack(m);
}
// sharpen: input word a plus amount times its difference from the window mean (the sum is an
// integer below 2^24: exact in float), as two multiply-adds: d = p - v (1/n), then amount d + p.
// 1/n is a constant the compiler rounds once and fma() is correctly rounded everywhere (a float
// division may not be: NVIDIA's is within 2 ulp), so every device computes the same pixels.
inline pixw_t bx_sharpen(uint4 v, pixw_t a, float amount) {
    const float4 p = pixw_to_float(a);
    const float4 d = fma(convert_float4(v), (float4)(-1.0f / (float)BX_N), p);
    return float_to_pixw(fma((float4)(amount), d, p), a);
}
#else
typedef quad_t bx_quad_t;
typedef pix_t bx_px_t;
#define bx_load_quad load_quad
#define bx_ch convert_uint4
inline uint4 bx_pix(__global const uchar* src, int pitch, int x, int y, int width) {
    return convert_uint4(load_pix(src, pitch, clamp_x(x, width), y));
}
inline uint4 bx_quad_sum(quad_t p) {
    return (bx_ch(p.lo.lo) + bx_ch(p.lo.hi)) + (bx_ch(p.hi.lo) + bx_ch(p.hi.hi));
}
#endif

// Horizontal window sums of row y (inside the frame) for columns xa .. xa+3.
inline void bx_row(__global const uchar* src, int pitch, int xa, int y, int width, uint4* h) {
    uint4 s = (uint4)(0u);
    for (int q = -BX_A; q < BX_A; ++q)
        s += bx_quad_sum(bx_load_quad(src, pitch, xa + 4 * q, y, width));
#pragma unroll
    for (int t = 0; t <= BX_B; ++t) s += bx_pix(src, pitch, xa + 4 * BX_A + t, y, width);
#pragma unroll
    for (int t = 1; t <= BX_B; ++t) s += bx_pix(src, pitch, xa - 4 * BX_A - t, y, width);
    h[0] = s;
#pragma unroll
    for (int c = 1; c < 4; ++c) {
        s += bx_pix(src, pitch, xa + c + RADIUS, y, width) -
             bx_pix(src, pitch, xa + c - 1 - RADIUS, y, width);  // modulo 2^32, exact at the end
        h[c] = s;
    }
}

// Row y's output quad at xa from its four window sums v, alpha from the input quad `in`.
inline void bx_store(__global uchar* dst, int pitch, int xa, int y, int width, const uint4* v,
                     bx_quad_t in BX_AMOUNT_PARAM) {
#if QW
    store_quadw(dst, pitch, xa, y, width,
                (quadw_t)(BX_OUT(v[0], QW_PIX(in, 0)), BX_OUT(v[1], QW_PIX(in, 1)),
                          BX_OUT(v[2], QW_PIX(in, 2)), BX_OUT(v[3], QW_PIX(in, 3))));
#else
    pix_t o[4];
#pragma unroll
    for (int c = 0; c < 4; ++c) {
        o[c] = convert_pix_sat_rte(convert_float4((2u * v[c] + BX_N) / (2u * BX_N)));
        o[c].w = QUAD_PIX(in, c).w;
    }
    store_quad(dst, pitch, xa, y, width, (quad_t)(o[0], o[1], o[2], o[3]));
#endif
}

#if defined(SW) && SW
// Two channels per register (-DSW=1 -DLX=.. -DLY=.. -DPY=..; with QW, RGBA8 and RADIUS <= 7
// only: the tuner offers these candidates nowhere else). A pixel word splits into two words of
// 16-bit lanes, rb = R | B << 16 and ga = G | A << 16 (one AND; a shift and an AND), and every
// sum below adds both lanes with one integer add. Exact: a lane's true value never exceeds
// 255 (2R + 1)^2 <= 57375 < 2^16, so the word (lo + 2^16 hi, modulo 2^32) always holds both
// lanes exactly, however an intermediate add or subtract borrowed across them.
// Each work-item makes 4 x PY pixels and walks its PY + 2R input rows once (down, or with -DZZ=1
// up for every other block), one row per walk step. A row's horizontal sums are formed once, from
// its 2R + 4 pixel words (R / 4 whole word quads on each side of its own, R mod 4 single words
// beyond: no pixel loaded that no window reaches), then 3 slides; they wait in a ring in __local
// for the 2R + 1 steps they stay in the window (each work-item its own slots: no barriers;
// registers stay few, so PY can be large and the 2R apron rows are re-read rarely), and the
// vertical sums slide (this step's row in, the row of the step 2R + 1 before out). Step j + 1's
// words are loaded before step j's are summed, so two rows' loads are in flight per work-item
// (measured: the walk was latency-bound without it). The output is box_strip's below (bx_out /
// bx_sharpen on the same exact sums), so the frame is the same.
#if WORK16 || RADIUS > 7 || !QW
#error "box.cl: SW needs RGBA8 (WORK16=0), RADIUS <= 7 and QW"
#endif
#define SW_F (RADIUS / 4)          // whole quads each side of the block's that a row needs
#define SW_B (RADIUS % 4)          // single pixels beyond them on each side
#define SW_NP (2 * RADIUS + 4)     // pixels a row needs: xa - R .. xa + 3 + R
#define SW_W (2 * RADIUS + 1)      // window rows
#define SW_ROWS (PY + 2 * RADIUS)  // input rows per work-item
#define SW_N (LX * LY)             // work-items per group
#ifndef FM
#define FM 0  // the mean on the float pipe (sw_out below)
#endif
#ifndef SB
#define SB 0  // sharpen's values to and from float by bit tricks (sw_sharpen_out)
#endif
#if SB && !SHARPEN
#error "box.cl: SB is an option of sharpen"
#endif
#ifndef PRMT
#define PRMT 0  // byte permutes (common.h's vfx_prmt) for the G, A lanes and, with FM, the output
#endif
#ifndef CR
// -DCR=1: each row's own quad (the block's 4 input words) waits in the ring too, so an output
// row takes its input words (alpha; sharpen: every channel) from __local, R rows after they came
// in, instead of loading them again from global memory on the walk's critical path. -DCR=2 (the
// plain mean with FM, which needs alpha alone): only the 4 alpha bytes, as one word (4 bytes per
// slot, not 16, where the ring's size limits the work-items per SM).
#define CR 0
#endif
#if CR == 2 && !(FM && !SHARPEN)
#error "box.cl: CR=2 needs FM (and not SHARPEN)"
#endif
#ifndef PL
#define PL 0  // -DPL=1: the walk's loop peeled, no per-step tests of j (see box_strip)
#endif
#ifndef ZZ
#define ZZ 0  // -DZZ=1: blocks walk in alternate directions (see box_strip)
#endif
#ifndef RG
// -DRG=1: the G lane alone where the others hold G and A (alpha's sums are never used: every
// output takes alpha from its input word), and the ring slot holds G's four sums as 16-bit
// (ushort4; a horizontal sum is at most 255 (2R + 1) < 2^16): 24 bytes per work-item and window
// row instead of 32, so more work-items fit an SM where the ring is what limits them.
#define RG 0
#endif

// The pixel words xa - R .. xa + 3 + R of row y (clamped to the edge) into p[0 .. SW_NP - 1]:
// 2 SW_F + 1 aligned word quads and SW_B single words on each side (no load of pixels that no
// window reaches).
inline void sw_load(__global const uchar* src, int pitch, int xa, int y, int width, uint* p) {
#pragma unroll
    for (int t = 0; t < SW_B; ++t) {
        p[t] = load_pixw(src, pitch, xa - RADIUS + t, y, width);
        p[SW_NP - 1 - t] = load_pixw(src, pitch, xa + 3 + RADIUS - t, y, width);
    }
#pragma unroll
    for (int i = 0; i <= 2 * SW_F; ++i) {
        const quadw_t v = load_quadw(src, pitch, xa + 4 * (i - SW_F), y, width);
#pragma unroll
        for (int c = 0; c < 4; ++c) p[SW_B + 4 * i + c] = QW_PIX(v, c);
    }
}

// A row's horizontal window sums at columns xa .. xa+3 from its pixel words, two lanes per word.
inline void sw_sums(const uint* p, uint4* rb, uint4* ga) {
    uint prb[SW_NP], pga[SW_NP];
#pragma unroll
    for (int i = 0; i < SW_NP; ++i) {
        prb[i] = p[i] & 0x00FF00FFu;
#if PRMT && RG
        pga[i] = vfx_prmt(p[i], 0u, 0x4441u);  // byte 1 (G), zeros above
#elif PRMT
        pga[i] = vfx_prmt(p[i], 0u, 0x4341u);  // bytes 1, 3 (G, A), zeros between
#elif RG
        pga[i] = (p[i] >> 8) & 0xFFu;
#else
        pga[i] = (p[i] >> 8) & 0x00FF00FFu;
#endif
    }
    uint s[2][4];
    uint srb = 0u, sga = 0u;
#pragma unroll
    for (int t = 0; t < SW_W; ++t) {
        srb += prb[t];
        sga += pga[t];
    }
    s[0][0] = srb;
    s[1][0] = sga;
#pragma unroll
    for (int c = 1; c < 4; ++c) {
        srb += prb[c + 2 * RADIUS] - prb[c - 1];
        sga += pga[c + 2 * RADIUS] - pga[c - 1];
        s[0][c] = srb;
        s[1][c] = sga;
    }
    *rb = (uint4)(s[0][0], s[0][1], s[0][2], s[0][3]);
    *ga = (uint4)(s[1][0], s[1][1], s[1][2], s[1][3]);
}

#if FM && !SHARPEN
// -DFM=1: the mean on the float pipe (the integer one is the busier). The rounded mean of window
// sum s (< 2^16) as the bits of the float 2^23 + mean, the mean in the low byte: s / n + 2^23
// rounded to nearest is exactly 2^23 + round(s / n): s / n never lies within 1 / (2n) of a half
// (n is odd), and the float path's error is below 2^-14 (s exact in float, 1 / n and the
// multiply-add each rounded once, s / n < 2^9), far inside that margin (checked for every sum
// of every radius up to 7, fused and unfused).
// `bits`: 0x4B000000 | s.
inline uint sw_mean_bits(uint bits) {
    return as_uint(fma(as_float(bits) - 8388608.0f, 1.0f / (float)BX_N, 8388608.0f));
}

// A pixel word from the window sums rb = R | B << 16 and ga = G | A << 16 (alpha from `in`).
inline uint sw_out(uint rb, uint ga, uint in) {
    // (A byte permute in place of the mask and the or measured 15 % slower for the whole kernel.)
    const uint r = sw_mean_bits((rb & 0xFFFFu) | 0x4B000000u);
    const uint g = sw_mean_bits((ga & 0xFFFFu) | 0x4B000000u);
#if PRMT
    // B under the exponent bits, then the word from the low bytes of r, g, b and in's alpha.
    const uint b = sw_mean_bits(vfx_prmt(rb, 0x4B000000u, 0x7632u));
    return vfx_prmt_word(r, g, b, in);
#else
    const uint b = sw_mean_bits((rb >> 16) | 0x4B000000u);
    // r's bits above its low byte (0x4B0000) are masked off; g's and b's leave when shifted.
    return ((r & 0xFFu) | (in & 0xFF000000u)) + ((g << 8) & 0xFF00u) + ((b << 16) & 0xFF0000u);
#endif
}
#endif

#if SHARPEN && SB
// -DSB=1 (sharpen, RGBA8): bx_sharpen's arithmetic on the full-rate pipes, where QW=1 converts
// six values per pixel on the quarter-rate unit (I2F) and clamps in two more steps. Values are
// floats in units of 256 levels: 0x47000000 | u is the float 2^15 + u / 256 (its ulp is one
// level), so one byte permute puts a byte or a 16-bit sum under those exponent bits, minus 2^15.
// The last multiply-add saturates to [0, 1] itself (common.h's vfx_fma_sat), + 2^15 rounds to a
// level (nearest, ties to even) in the low bits, and an integer min caps it at 255 (1.0 is
// level 256). Scaling every value by 2^-8 scales every rounded result exactly, and a clamp to
// [0, 1 = 256 levels] then the cap give what the clamp to [0, 255] gives, so these are the
// pixels of bx_sharpen.
#define SB_MAGIC 0x47000000u
#define SB_MAGICF 32768.0f
inline float sb_float(uint w, uint sel) { return as_float(vfx_prmt(w, SB_MAGIC, sel)) - SB_MAGICF; }
inline uint sb_channel(float p, float s, float amount) {
    const float d = fma(s, -1.0f / (float)BX_N, p);
    return min(as_uint(vfx_fma_sat(amount, d, p) + SB_MAGICF), SB_MAGIC + 255u);
}
// A pixel word from the window sums rb = R | B << 16 and ga = G | A << 16, and the input word.
// Selectors 0x76..: bytes 2 and 3 of SB_MAGIC on top; below them bytes 0-1 (0x10) or 2-3 (0x32)
// of a sum word, or byte c of the input word and a zero byte (0x4c).
inline uint sw_sharpen_out(uint rb, uint ga, uint in, float amount) {
    return vfx_prmt_word(
        sb_channel(sb_float(in, 0x7640u), sb_float(rb, 0x7610u), amount),
        sb_channel(sb_float(in, 0x7641u), sb_float(ga, 0x7610u), amount),
        sb_channel(sb_float(in, 0x7642u), sb_float(rb, 0x7632u), amount), in);
}
#endif

// Output row y's quad at xa from the vertical sums of its 4 columns, two lanes per word, and
// its input quad `in`.
inline void sw_store(__global uchar* dst, int dst_pitch, int xa, int y, int width, uint4 vrb,
                     uint4 vga, quadw_t in BX_AMOUNT_PARAM) {
#if SHARPEN && SB
    store_quadw(dst, dst_pitch, xa, y, width,
                (quadw_t)(sw_sharpen_out(vrb.s0, vga.s0, in.x, amount),
                          sw_sharpen_out(vrb.s1, vga.s1, in.y, amount),
                          sw_sharpen_out(vrb.s2, vga.s2, in.z, amount),
                          sw_sharpen_out(vrb.s3, vga.s3, in.w, amount)));
#elif FM && !SHARPEN
    store_quadw(dst, dst_pitch, xa, y, width,
                (quadw_t)(sw_out(vrb.s0, vga.s0, in.x), sw_out(vrb.s1, vga.s1, in.y),
                          sw_out(vrb.s2, vga.s2, in.z), sw_out(vrb.s3, vga.s3, in.w)));
#else
    const uint4 v[4] = {(uint4)(vrb.s0 & 0xFFFFu, vga.s0 & 0xFFFFu, vrb.s0 >> 16, vga.s0 >> 16),
                        (uint4)(vrb.s1 & 0xFFFFu, vga.s1 & 0xFFFFu, vrb.s1 >> 16, vga.s1 >> 16),
                        (uint4)(vrb.s2 & 0xFFFFu, vga.s2 & 0xFFFFu, vrb.s2 >> 16, vga.s2 >> 16),
                        (uint4)(vrb.s3 & 0xFFFFu, vga.s3 & 0xFFFFu, vrb.s3 >> 16, vga.s3 >> 16)};
    bx_store(dst, dst_pitch, xa, y, width, v, in BX_AMOUNT_ARG);
#endif
}

// Ring slot s of work-item `lid`: rb at ring_rb[s N + lid], ga at ring_ga[s N + lid], with CR
// the input words at ring_in[s N + lid] (neighbouring work-items touch neighbouring 16 bytes;
// RG's ga and CR=2's alpha word: 8 and 4).
#if RG
typedef ushort4 sw_ga_t;
#define SW_GA_IN(v) convert_uint4(v)
#define SW_GA_OUT(v) convert_ushort4(v)
#else
typedef uint4 sw_ga_t;
#define SW_GA_IN(v) (v)
#define SW_GA_OUT(v) (v)
#endif
// CR=2's alpha word of a row's pixel words p (those of sw_load): byte c is pixel c's alpha
// (byte 3 of its word) ...
inline uint sw_alpha_word(const uint* p) {
    return vfx_prmt(vfx_prmt(p[RADIUS], p[RADIUS + 1], 0x73u),
                    vfx_prmt(p[RADIUS + 2], p[RADIUS + 3], 0x73u), 0x5410u);
}
// ... and back as the quad's input words for sw_store: sw_out takes alpha from byte 3 of its
// `in` word, so pixel c's alpha goes back there.
inline quadw_t sw_alpha_quad(uint a) { return (uint4)(a << 24, a << 16, a << 8, a); }

// The block's input words: into the ring at step j (SW_CR_STORE, from p, the step's row), and
// the output row y's, from slot cs or from global memory (SW_IN).
#if CR == 2
#define SW_CR_STORE() (my_in[slot * SW_N] = sw_alpha_word(p))
#define SW_IN(cs, y) sw_alpha_quad(my_in[(cs) * SW_N])
#elif CR
#define SW_CR_STORE() \
    (my_in[slot * SW_N] = (uint4)(p[RADIUS], p[RADIUS + 1], p[RADIUS + 2], p[RADIUS + 3]))
#define SW_IN(cs, y) (my_in[(cs) * SW_N])
#else
#define SW_CR_STORE() ((void)0)
#define SW_IN(cs, y) load_quadw(src, src_pitch, xa, (y), width)
#endif
#if defined(ST) && ST
#if defined(SH) && SH
#error "box.cl: ST and SH are two different kernels"
#endif
// Streaming strips (-DST=1 -DNCH=..; with SW, RG, CR=2 and ZZ, the plain mean; work-group
// LX x LY, per_item 4 x PY NCH): the group walks down a strip LX quads wide and LY PY NCH rows
// tall in NCH chunks of ST_CH = LY PY output rows, the horizontal window sums of the rows in a
// ring of ST_CH + 2R rows of __local shared by the whole group (a strip sums its 2R apron rows
// once, where the SW walk sums them once per block of PY rows). Per chunk: the horizontal sums of
// its ST_CH new input rows, one task per row and quad spread over all work-items (a work-item's
// PY tasks are independent; with -DUT=1 all their loads are issued before the first is summed,
// so PY rows' loads are in flight: NVIDIA's compiler keeps the plain task loop rolled, one
// task's loads at a time, 9 % slower in the same shape), barrier; then each work-item's
// vertical sums for its PY output rows of its quad column from the ring (the first window
// summed, then slid PY - 1 times), barrier. A ring element is a quad's rb sums (uint4), its four
// G sums as 16-bit lanes of two words (summed vertically two to a word: a vertical sum is at
// most 255 (2R + 1)^2 < 2^16) and its alpha bytes (CR=2's word). Neighbouring strips walk in
// opposite directions (ZZ). The outputs are sw_out's on the same exact sums, so the frame is the
// same. Small groups of many warps each instead of few long walks: at radius 5 on the H100, 32x8
// with PY = 4 and 4 chunks ran 0.0361 ms against the best SW walk's 0.0387 (4K, `vfx bench`).
#if !RG || CR != 2 || !ZZ || SHARPEN
#error "box.cl: ST needs RG, CR=2 and ZZ (and not SHARPEN)"
#endif
#ifndef NCH
#define NCH 4
#endif
#ifndef UT
#define UT 0
#endif
#define ST_CH (LY * PY)               // output rows per chunk
#define ST_RING (ST_CH + 2 * RADIUS)  // ring rows

// The horizontal sums of a row's pixel words p (sw_load) into ring element e, and the quad's
// alpha word (sw_alpha_word).
inline void st_h_put(const uint* p, __local uint4* ring_rb, __local uint2* ring_g,
                     __local uint* ring_a, int e) {
    uint4 hrb, hg;
    sw_sums(p, &hrb, &hg);
    ring_rb[e] = hrb;
    ring_g[e] = (uint2)(hg.x | (hg.y << 16), hg.z | (hg.w << 16));
    ring_a[e] = sw_alpha_word(p);
}
// The same for row y (inside the frame) at quad xa, its words loaded here.
inline void st_h_task(__global const uchar* src, int pitch, int width, int xa, int y,
                      __local uint4* ring_rb, __local uint2* ring_g, __local uint* ring_a, int e) {
    uint p[SW_NP];
    sw_load(src, pitch, xa, y, width, p);
    st_h_put(p, ring_rb, ring_g, ring_a, e);
}

__kernel __attribute__((reqd_work_group_size(LX, LY, 1))) void box_strip(
    __global const uchar* src, int src_pitch, __global uchar* dst, int dst_pitch, int width,
    int height BX_AMOUNT_PARAM) {
    __local uint4 ring_rb[ST_RING * LX];
    __local uint2 ring_g[ST_RING * LX];
    __local uint ring_a[ST_RING * LX];
    const int lx = (int)get_local_id(0);
    const int ly = (int)get_local_id(1);
    const int lid = ly * LX + lx;
    const int sx = (int)get_group_id(0) * (4 * LX);  // the strip's first pixel column
    const int xa = sx + 4 * lx;
    const int sy = (int)get_group_id(1) * (ST_CH * NCH);  // the strip's first output row
    if (sy >= height) return;  // the whole group
    // Strip row v (chunk rows, ring rows and outputs count in it) is frame row ST_Y(v). Every
    // other strip walks up: v counts from its last row inside the frame, so the 2R rows two
    // neighbouring strips share are read by both at about the same time (the second read finds
    // them in L2), as the SW walk's ZZ does for its blocks.
    const int last = min(ST_CH * NCH, height - sy) - 1;  // the strip's last row, from sy
    const int up = get_group_id(1) & 1;
#define ST_Y(v) (up ? sy + last - (v) : sy + (v))

    // Ring row u holds the input row of strip row u - R (u taken mod ST_RING). Prefill the 2R
    // rows before the first chunk's new rows.
    for (int t = lid; t < 2 * RADIUS * LX; t += LX * LY) {
        const int u = t / LX;
        const int q = t - u * LX;
        st_h_task(src, src_pitch, width, sx + 4 * q, clamp_y(ST_Y(u - RADIUS), height),
                  ring_rb, ring_g, ring_a, u * LX + q);
    }
    int w0 = 2 * RADIUS;  // ring row of this chunk's first new input row
    int v0 = 0;           // ring row of this chunk's first output row's first input row
    for (int ch = 0; ch < NCH; ++ch) {
        const int cv = ch * ST_CH;  // the chunk's first output row (strip row)
        if (sy + cv >= height) break;  // uniform over the group
#if UT
        // -DUT=1: this work-item's PY tasks of the chunk (rows ly + k LY, its own quad column),
        // every task's words loaded first, then summed: PY rows' loads in flight at once.
        uint pw[PY][SW_NP];
#pragma unroll
        for (int k = 0; k < PY; ++k)
            sw_load(src, src_pitch, xa, clamp_y(ST_Y(cv + RADIUS + ly + k * LY), height), width,
                    pw[k]);
#pragma unroll
        for (int k = 0; k < PY; ++k) {
            int row = w0 + ly + k * LY;
            if (row >= ST_RING) row -= ST_RING;
            st_h_put(pw[k], ring_rb, ring_g, ring_a, row * LX + lx);
        }
#else
        for (int t = lid; t < ST_CH * LX; t += LX * LY) {
            const int u = t / LX;
            const int q = t - u * LX;
            int row = w0 + u;
            if (row >= ST_RING) row -= ST_RING;
            st_h_task(src, src_pitch, width, sx + 4 * q, clamp_y(ST_Y(cv + RADIUS + u), height),
                      ring_rb, ring_g, ring_a, row * LX + q);
        }
#endif
        barrier(CLK_LOCAL_MEM_FENCE);

        // Ring rows s0 + j, j = 0 .. PY + 2R - 1, wrap at most once: at j = wrap. ST_E(j): the
        // ring element of row j of this work-item's window.
        int s0 = v0 + ly * PY;
        if (s0 >= ST_RING) s0 -= ST_RING;
        const int wrap = ST_RING - s0;
#define ST_E(j) (((j) < wrap ? s0 + (j) : s0 + (j) - ST_RING) * LX + lx)
        uint4 vrb = (uint4)(0u);
        uint2 vg = (uint2)(0u);
#pragma unroll
        for (int j = 0; j < PY + 2 * RADIUS; ++j) {
            vrb += ring_rb[ST_E(j)];
            vg += ring_g[ST_E(j)];
            if (j >= 2 * RADIUS) {
                const int i = j - 2 * RADIUS;  // output row i of the work-item's PY
                const int v = cv + ly * PY + i;
                const int y = sy + v < height ? ST_Y(v) : height;  // height: no output
                if (xa < width && y < height) {
                    // Alpha from the output row's own input row: window row i + R.
                    sw_store(dst, dst_pitch, xa, y, width, vrb,
                             (uint4)(vg.x & 0xFFFFu, vg.x >> 16, vg.y & 0xFFFFu, vg.y >> 16),
                             sw_alpha_quad(ring_a[ST_E(i + RADIUS)]));
                }
                if (i + 1 < PY) {  // row i leaves the window
                    vrb -= ring_rb[ST_E(i)];
                    vg -= ring_g[ST_E(i)];
                }
            }
        }
#undef ST_E
        barrier(CLK_LOCAL_MEM_FENCE);
        w0 += ST_CH;
        if (w0 >= ST_RING) w0 -= ST_RING;
        v0 += ST_CH;
        if (v0 >= ST_RING) v0 -= ST_RING;
    }
#undef ST_Y
}
#elif defined(SH) && SH
// Vertical sums first, their horizontal windows across the warp (-DSH=1 -DNS=..; with SW, FM and
// PRMT: the plain mean; work-group 32 x LY, per_item 4 x NS). A warp's 32 work-items hold 32
// neighbouring quad columns, of which the middle SH_Q make outputs and the SH_A on each side
// only feed their neighbours' windows: the host launches ceil(quads / SH_Q) groups across
// (KernelVariant::group_px), neighbouring groups overlapping by 2 SH_A quads. Each warp walks
// the NS rows of its segment of the frame (every other segment upwards, as ZZ: the 2R rows two
// segments share are read by both at about the same time). Per work-item and walk step:
//  - the vertical window sums of its 4 columns slide one row: the entering row's words in and
//    the leaving row's out, R | B and G in 16-bit lanes as sw_sums keeps them (one add of three
//    terms per register; exact, see SW);
//  - the 2R columns its outputs' horizontal windows reach beyond its own come from the
//    neighbouring work-items' sums by warp shuffles (PTX shfl.sync on NVIDIA; through __local
//    with barriers elsewhere), and the 4 windows slide along the row as in sw_sums;
//  - the outputs are sw_out's value of those exact sums (alpha from the output row's own word):
//    the same frame as every other candidate.
// The window's 2R + 1 rows wait in the work-item's own ring in __local (its 16 bytes of each
// slot: no barrier), so a step reads one quad from global memory, the entering row's, loaded a
// step ahead; the leaving and output rows' words come from the ring. (Reloading them from
// global memory instead, two more loads a step that mostly missed L1, left the kernel waiting
// on L2: H100 4K 0.0363 ms against 0.0325, benchmarks/2026-11-27-h100-s12.)
#if LX != 32 || !FM || !PRMT || SHARPEN
#error "box.cl: SH needs LX=32, FM and PRMT (the plain mean)"
#endif
#if RG || CR || PL || ZZ
#error "box.cl: RG, CR, PL and ZZ are options of the SW walk and the strips, not of SH"
#endif
#if !defined(NS) || NS < 2
#error "box.cl: SH needs NS >= 2 (rows per warp)"
#endif
#define SH_A 2                       // apron quads each side: RADIUS <= 7 reaches 2 at most
#define SH_Q (32 - 2 * SH_A)         // output quads per warp
#define SH_RS (32 * LY)              // quads from one ring slot to the next
#define SH_SLOTS (2 * RADIUS + 1)    // ring slots: the window's rows

#ifdef __NV_CL_C_VERSION
// Lane lx - d's v (shfl.sync.up: lanes below d get their own) and lane lx + d's v (down: lanes
// past 31 - d get their own); every lane of the warp takes part.
inline uint sh_left(uint v, uint d) {
    uint r;
    asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=r"(r) : "r"(v), "r"(d));
    return r;
}
inline uint sh_right(uint v, uint d) {
    uint r;
    asm volatile("shfl.sync.down.b32 %0, %1, %2, 31, 0xffffffff;" : "=r"(r) : "r"(v), "r"(d));
    return r;
}
#define SH_LEFT(v, d, k) sh_left((v), (d))
#define SH_RIGHT(v, d, k) sh_right((v), (d))
#else
// Elsewhere the same exchange through __local: ex[(8 ly + k) 32 + lane] holds register k (rb 0..3,
// g 0..3) of each work-item; the values are read between two barriers (the walk's trip count is
// the same for every work-item of the group).
#define SH_LEFT(v, d, k) sh_ex[(8 * ly + (k)) * 32 + max(lx - (int)(d), 0)]
#define SH_RIGHT(v, d, k) sh_ex[(8 * ly + (k)) * 32 + min(lx + (int)(d), 31)]
#endif

// Quad `xa` of the row at byte offset `off` (from `src`; `colp` = src + 4 xa): one 16-byte load
// where the quad lies inside the frame (`xin`), else its pixels clamped to the edge.
inline quadw_t sh_load(__global const uchar* src, __global const uchar* colp, uint off, int xa,
                       int width, bool xin) {
    if (xin) return *(__global const quadw_t*)(colp + off);
    __global const uint* row = (__global const uint*)(src + off);
    return (quadw_t)(row[clamp_x(xa, width)], row[clamp_x(xa + 1, width)],
                     row[clamp_x(xa + 2, width)], row[clamp_x(xa + 3, width)]);
}

// The vertical sums of 4 columns (rb: R | B, g: G in the low lane) take the words of quad e in
// and those of quad l out.
inline void sh_slide(uint* vrb, uint* vg, quadw_t e, quadw_t l) {
#pragma unroll
    for (int c = 0; c < 4; ++c) {
        const uint pe = QW_PIX(e, c), pl = QW_PIX(l, c);
        vrb[c] += (pe & 0x00FF00FFu) - (pl & 0x00FF00FFu);
        vg[c] += vfx_prmt(pe, 0u, 0x4441u) - vfx_prmt(pl, 0u, 0x4441u);
    }
}

// sw_out's word, each sum put under the float's exponent bits by one byte permute (sw_out: a
// mask and an or, two instructions where the magic is not an operand; the same value).
inline uint sh_out(uint rb, uint g, uint in) {
    return vfx_prmt_word(sw_mean_bits(vfx_prmt(rb, 0x4B000000u, 0x7610u)),
                         sw_mean_bits(vfx_prmt(g, 0x4B000000u, 0x7610u)),
                         sw_mean_bits(vfx_prmt(rb, 0x4B000000u, 0x7632u)), in);
}

// The walk of one warp: rows y0 + dir j, j < NS, stored where they lie in first .. last. `xin`:
// this work-item's quad lies inside the frame's columns; `yin`: every row the walk reads does.
// The kernel passes constants where they hold for the whole group, so that most walks have no
// edge code at all (their row offsets step by a pitch). `ring`: this work-item's ring slot 0.
inline void sh_walk(__global const uchar* src, int src_pitch, __global uchar* dst, int dst_pitch,
                    int width, int height, int xa, bool xin, bool yin, bool outputs, int y0,
                    int dir, int first, int last, __local quadw_t* ring
#ifndef __NV_CL_C_VERSION
                    , __local uint* sh_ex, int lx, int ly
#endif
) {
    __global const uchar* colp = src + 4 * (long)xa;
    // Byte offset of row y (clamped to the frame), in 32 bits: an RGBA8 frame is below 2^32
    // bytes (the bench's sizes are at most 16384 x 16384, 2^30 bytes; FFmpeg, whose decoders and
    // devices make every frame, keeps (w + 128)(h + 128) below 2^28 in av_image_check_size).
#define SH_OFF(y) ((uint)clamp_y((y), height) * (uint)src_pitch)
    // The window before step 0 (rows y0 - dir R .. y0 + dir (R - 1)) into the sums and the
    // ring, slot i the row y0 + dir (i - R - 1); slot 0 zero. Step j then takes row y + dir R in
    // and row y - dir (R + 1), the one 2R + 1 rows before it, out (y = y0 + dir j; at step 0
    // the zero slot: that row never came in) and makes row y.
    uint vrb[4] = {0u, 0u, 0u, 0u}, vg[4] = {0u, 0u, 0u, 0u};
    ring[0] = (quadw_t)(0u);
#pragma unroll
    for (int i = 1; i < SH_SLOTS; ++i) {
        const quadw_t w = sh_load(src, colp, SH_OFF(y0 + dir * (i - RADIUS - 1)), xa, width, xin);
        sh_slide(vrb, vg, w, (quadw_t)(0u));
        ring[i * SH_RS] = w;
    }
    // Slot s: step j's leaving row, then its entering one; slot cs: its output row (which came
    // in R + 1 rows after the leaving one).
    int s = 0, cs = RADIUS + 1;
    // The entering row's offset and words, a step ahead.
    uint oe = SH_OFF(y0 + dir * RADIUS);
    quadw_t e = sh_load(src, colp, oe, xa, width, xin);
    const uint step = (uint)(dir * src_pitch);  // from a row's offset to the next step's
    for (int j = 0; j < NS; ++j) {
        const int y = y0 + dir * j;
        const quadw_t l = ring[s * SH_RS];
        ring[s * SH_RS] = e;
        const quadw_t c = ring[cs * SH_RS];
        s = s == SH_SLOTS - 1 ? 0 : s + 1;
        cs = cs == SH_SLOTS - 1 ? 0 : cs + 1;
        sh_slide(vrb, vg, e, l);  // the window of row y
        if (j + 1 < NS) {  // the next step's entering row (none after the last step)
            oe = yin ? oe + step : SH_OFF(y + dir * (RADIUS + 1));
            e = sh_load(src, colp, oe, xa, width, xin);
        }
#ifndef __NV_CL_C_VERSION
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            sh_ex[(8 * ly + k) * 32 + lx] = vrb[k];
            sh_ex[(8 * ly + 4 + k) * 32 + lx] = vg[k];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
        // Column xa - R + i of the row in crb[i], cg[i], i = 0 .. 2R + 3.
        uint crb[SW_NP], cg[SW_NP];
#pragma unroll
        for (int i = 0; i < SW_NP; ++i) {
            const int k = i - RADIUS;  // column from xa: -R .. 3 + R
            if (k < -4) {
                crb[i] = SH_LEFT(vrb[k + 8], 2u, k + 8);
                cg[i] = SH_LEFT(vg[k + 8], 2u, 4 + k + 8);
            } else if (k < 0) {
                crb[i] = SH_LEFT(vrb[k + 4], 1u, k + 4);
                cg[i] = SH_LEFT(vg[k + 4], 1u, 4 + k + 4);
            } else if (k < 4) {
                crb[i] = vrb[k];
                cg[i] = vg[k];
            } else if (k < 8) {
                crb[i] = SH_RIGHT(vrb[k - 4], 1u, k - 4);
                cg[i] = SH_RIGHT(vg[k - 4], 1u, 4 + k - 4);
            } else {
                crb[i] = SH_RIGHT(vrb[k - 8], 2u, k - 8);
                cg[i] = SH_RIGHT(vg[k - 8], 2u, 4 + k - 8);
            }
        }
#ifndef __NV_CL_C_VERSION
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
        uint wrb = 0u, wg = 0u;
#pragma unroll
        for (int i = 0; i < SW_W; ++i) {
            wrb += crb[i];
            wg += cg[i];
        }
        uint o[4];
        o[0] = sh_out(wrb, wg, QW_PIX(c, 0));
#pragma unroll
        for (int k = 1; k < 4; ++k) {
            wrb += crb[k + 2 * RADIUS] - crb[k - 1];
            wg += cg[k + 2 * RADIUS] - cg[k - 1];
            o[k] = sh_out(wrb, wg, QW_PIX(c, k));
        }
        if (outputs && y >= first && y <= last) {
            const quadw_t q = (quadw_t)(o[0], o[1], o[2], o[3]);
            if (xin)
                *(__global quadw_t*)(dst + 4 * (long)xa + (size_t)y * (size_t)dst_pitch) = q;
            else
                store_quadw(dst, dst_pitch, xa, y, width, q);
        }
    }
#undef SH_OFF
}

__kernel __attribute__((reqd_work_group_size(32, LY, 1))) void box_strip(
    __global const uchar* src, int src_pitch, __global uchar* dst, int dst_pitch, int width,
    int height) {
    __local quadw_t sh_ring[SH_SLOTS * SH_RS];
    const int lx = (int)get_local_id(0);
    const int ly = (int)get_local_id(1);
#ifndef __NV_CL_C_VERSION
    __local uint sh_ex[8 * LY * 32];
#define SH_EX , sh_ring + ly * 32 + lx, sh_ex, lx, ly
#else
#define SH_EX , sh_ring + ly * 32 + lx
#endif
    const int q0 = (int)get_group_id(0) * SH_Q - SH_A;  // the group's first quad
    const int xa = 4 * (q0 + lx);                        // this work-item's quad
    const bool outputs = lx >= SH_A && lx < 32 - SH_A && xa < width;
    const int seg = (int)get_group_id(1) * LY + ly;  // this warp's NS rows from seg NS
    const int first = seg * NS;
#ifdef __NV_CL_C_VERSION
    if (first >= height) return;  // the whole warp (no barriers here)
#endif
    // Walk step j makes row y0 + dir j; rows past the segment or the frame are not stored.
    const int dir = (seg & 1) ? -1 : 1;
    const int last = min(first + NS, height) - 1;
    const int y0 = dir > 0 ? first : last;
    // Every row the group's walks read (R + 1 above its first row to R + 1 below its last) in the
    // frame, and all its quads in the frame's columns: no edge, the common walk. (A condition of
    // the whole group: off NVIDIA the walk holds barriers.)
    const int gy0 = (int)get_group_id(1) * LY * NS;
#ifdef __NV_CL_C_VERSION
    // Two instances of the walk, one without any edge code (no barriers in it here). The
    // condition and the edge walk's column test stay written inside the branch: computed before
    // it as two bools, the same SASS instructions came out in another schedule with 56 registers
    // instead of 64, and radius 5 at 4K took 0.0346-0.0348 against 0.0323-0.0325 ms on the H100
    // with driver 580 (benchmarks/2026-11-27-h100-s13/experiments/2-box-sh-review-regression;
    // a schedule another driver may not keep: the bench shows it).
    if (q0 >= 0 && 4 * (q0 + 32) <= width && gy0 >= RADIUS + 1 &&
        gy0 + LY * NS + RADIUS + 1 <= height)
        sh_walk(src, src_pitch, dst, dst_pitch, width, height, xa, true, true, outputs, y0, dir,
                first, last SH_EX);
    else
        sh_walk(src, src_pitch, dst, dst_pitch, width, height, xa, xa >= 0 && xa + 3 < width,
                false, outputs, y0, dir, first, last SH_EX);
#else
    // One call: the walk holds barriers here (PoCL lost every output of a build with NS = 1 when
    // both arms of a group-uniform branch called it).
    const bool edge_free = q0 >= 0 && 4 * (q0 + 32) <= width && gy0 >= RADIUS + 1 &&
                           gy0 + LY * NS + RADIUS + 1 <= height;
    sh_walk(src, src_pitch, dst, dst_pitch, width, height, xa, xa >= 0 && xa + 3 < width,
            edge_free, outputs, y0, dir, first, last SH_EX);
#endif
#undef SH_EX
}
#else
__kernel __attribute__((reqd_work_group_size(LX, LY, 1))) void box_strip(
    __global const uchar* src, int src_pitch, __global uchar* dst, int dst_pitch, int width,
    int height BX_AMOUNT_PARAM) {
    __local uint4 ring_rb[SW_W * SW_N];
    __local sw_ga_t ring_ga[SW_W * SW_N];
    const int lid = (int)get_local_id(1) * LX + (int)get_local_id(0);
    __local uint4* my_rb = ring_rb + lid;
    __local sw_ga_t* my_ga = ring_ga + lid;
#if CR == 2
    __local uint ring_in[SW_W * SW_N];
    __local uint* my_in = ring_in + lid;
#elif CR
    __local uint4 ring_in[SW_W * SW_N];
    __local uint4* my_in = ring_in + lid;
#endif
    const int xa = (int)get_global_id(0) * 4;
    const int y0 = (int)get_global_id(1) * PY;
    if (xa >= width || y0 >= height) return;
#if ZZ
    // Odd blocks walk down, even ones up: two neighbouring blocks read the 2R input rows they
    // share at about the same time, so the second read finds them in L2 rather than in DRAM.
    const int dir = (get_global_id(1) & 1) ? 1 : -1;
    const int g0 = dir > 0 ? y0 - RADIUS : y0 + PY - 1 + RADIUS;  // input row of walk step 0
#else
    const int dir = 1;
    const int g0 = y0 - RADIUS;
#endif
    uint4 vrb = (uint4)(0u), vga = (uint4)(0u);
    int slot = 0;  // ring slot of walk step j (j mod 2R + 1)
    uint p[SW_NP];  // the pixel words of step j's input row, g0 + dir j (clamped)
    sw_load(src, src_pitch, xa, clamp_y(g0, height), width, p);
    // Steps to walk: walking down, none past the one of the frame's last output row.
    const int nsteps = dir > 0 ? min(SW_ROWS, height - y0 + 2 * RADIUS) : SW_ROWS;
    // One walk step j: step j + 1's words loaded, step j's row summed into the window (SUB: the
    // row of step j - (2R + 1), which leaves it, taken out) and into the ring; OUT: the output
    // row of step j - R, whose window is complete, stored if it lies inside the frame.
#define SW_STEP(SUB, OUT)                                                                      \
    do {                                                                                       \
        uint next[SW_NP];                                                                      \
        sw_load(src, src_pitch, xa, clamp_y(g0 + dir * (j + 1), height), width, next);        \
        uint4 hrb, hga;                                                                        \
        sw_sums(p, &hrb, &hga);                                                                \
        SW_CR_STORE();                                                                         \
        _Pragma("unroll") for (int i = 0; i < SW_NP; ++i) p[i] = next[i];                     \
        vrb += hrb;                                                                            \
        vga += hga;                                                                            \
        if (SUB) {                                                                             \
            vrb -= my_rb[slot * SW_N];                                                         \
            vga -= SW_GA_IN(my_ga[slot * SW_N]);                                               \
        }                                                                                      \
        my_rb[slot * SW_N] = hrb;                                                              \
        my_ga[slot * SW_N] = SW_GA_OUT(hga);                                                   \
        int cs = slot + RADIUS + 1; /* the slot of step j - R (CR) */                          \
        if (cs >= SW_W) cs -= SW_W;                                                            \
        (void)cs;                                                                              \
        if (++slot == SW_W) slot = 0;                                                          \
        if (OUT) {                                                                             \
            const int y = dir > 0 ? y0 + j - 2 * RADIUS : y0 + PY - 1 - (j - 2 * RADIUS);    \
            if (y < height) sw_store(dst, dst_pitch, xa, y, width, vrb, vga, SW_IN(cs, y)    \
                                     BX_AMOUNT_ARG);                                           \
        }                                                                                      \
    } while (0)
#if PL
    // Peeled: the first 2R steps (no output, nothing leaves), step 2R (the first output), then
    // the rest (both), with no per-step tests of j.
    int j = 0;
    for (; j < 2 * RADIUS; ++j) SW_STEP(0, 0);
    SW_STEP(0, 1);
    for (j = SW_W; j < nsteps; ++j) SW_STEP(1, 1);
#else
    for (int j = 0; j < nsteps; ++j) SW_STEP(j >= SW_W, j >= 2 * RADIUS);
#endif
#undef SW_STEP
}
#endif  // ST
#elif defined(LM) && LM
// Local-memory version (-DLM=1 -DLX=.. -DLY=..; work-group LX x LY, 4 x PY per work-item): the
// group's tile is 4 LX columns x LY PY rows; its input rows (+ R above and below, clamped) and
// BL_H quads left and right come into __local once as aligned quads; the horizontal window sums
// are made ONCE per tile row and quad column into __local (column 4 q + c at c LX + q), then
// each work-item slides its vertical sums down its PY rows from __local. All sums exact in
// uint (modulo 2^32, exact at the end), so the frame is the same as box_strip's below.
// QW: the staged quads are words (the same bytes), and the output's alpha comes from them.
#define BL_H ((RADIUS + 3) / 4)         // staged quads each side
#define BL_TQ (LX + 2 * BL_H)           // staged quads per row
#define BL_TH (LY * PY)                 // output rows per tile
#define BL_ROWS (BL_TH + 2 * RADIUS)    // input rows per tile
#define BL_TW (4 * LX)                  // output columns per tile

__kernel __attribute__((reqd_work_group_size(LX, LY, 1))) void box_strip(
    __global const uchar* src, int src_pitch, __global uchar* dst, int dst_pitch, int width,
    int height BX_AMOUNT_PARAM) {
    __local bx_quad_t in_t[BL_ROWS * BL_TQ];
    __local uint4 h_t[BL_ROWS * BL_TW];
    const int lx = (int)get_local_id(0);
    const int ly = (int)get_local_id(1);
    const int tx = (int)get_group_id(0) * BL_TW;
    const int ty = (int)get_group_id(1) * BL_TH;
    for (int i = ly * LX + lx; i < BL_ROWS * BL_TQ; i += LX * LY) {
        const int row = i / BL_TQ;
        const int q = i - row * BL_TQ;
        in_t[i] = bx_load_quad(src, src_pitch, tx + 4 * (q - BL_H),
                               clamp_y(ty - RADIUS + row, height), width);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    __local const bx_px_t* px = (__local const bx_px_t*)in_t;
    for (int row = ly; row < BL_ROWS; row += LY) {
        // pixel 4 lx + t of the tile is px[row * 4 BL_TQ + 4 (lx + BL_H) + t]
        __local const bx_px_t* rp = px + row * 4 * BL_TQ + 4 * (lx + BL_H);
        uint4 s = (uint4)(0u);
        for (int t = -RADIUS; t <= RADIUS; ++t) s += bx_ch(rp[t]);
        h_t[row * BL_TW + lx] = s;
#pragma unroll
        for (int c = 1; c < 4; ++c) {
            s += bx_ch(rp[c + RADIUS]) - bx_ch(rp[c - 1 - RADIUS]);
            h_t[row * BL_TW + c * LX + lx] = s;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    const int xa = tx + 4 * lx;
    if (xa >= width) return;
    const int t0 = ly * PY;
    uint4 v[4] = {(uint4)(0u), (uint4)(0u), (uint4)(0u), (uint4)(0u)};
    for (int k = 0; k <= 2 * RADIUS; ++k) {
#pragma unroll
        for (int c = 0; c < 4; ++c) v[c] += h_t[(t0 + k) * BL_TW + c * LX + lx];
    }
    for (int i = 0; i < PY; ++i) {
        const int y = ty + t0 + i;
        if (y >= height) break;
#if QW
        // This row's staged quad at xa (tile row t0 + i + R, quad lx + BL_H) holds the alpha.
        bx_store(dst, dst_pitch, xa, y, width, v,
                 in_t[(t0 + i + RADIUS) * BL_TQ + lx + BL_H] BX_AMOUNT_ARG);
#else
        bx_store(dst, dst_pitch, xa, y, width, v,
                 load_quad(src, src_pitch, xa, y, width) BX_AMOUNT_ARG);
#endif
        if (i + 1 < PY) {
#pragma unroll
            for (int c = 0; c < 4; ++c)
                v[c] += h_t[(t0 + i + 2 * RADIUS + 1) * BL_TW + c * LX + lx] -
                        h_t[(t0 + i) * BL_TW + c * LX + lx];
        }
    }
}
#else
__kernel void box_strip(__global const uchar* src, int src_pitch, __global uchar* dst,
                        int dst_pitch, int width, int height BX_AMOUNT_PARAM) {
    const int xa = (int)get_global_id(0) * 4;
    const int y0 = (int)get_global_id(1) * PY;
    if (xa >= width || y0 >= height) return;
    uint4 v[4] = {(uint4)(0u), (uint4)(0u), (uint4)(0u), (uint4)(0u)};
    uint4 h[4];
    for (int dy = -RADIUS; dy <= RADIUS; ++dy) {
        bx_row(src, src_pitch, xa, clamp_y(y0 + dy, height), width, h);
#pragma unroll
        for (int c = 0; c < 4; ++c) v[c] += h[c];
    }
    for (int i = 0; i < PY; ++i) {
        const int y = y0 + i;
        if (y >= height) break;
        bx_store(dst, dst_pitch, xa, y, width, v,
                 bx_load_quad(src, src_pitch, xa, y, width) BX_AMOUNT_ARG);
        if (i + 1 < PY) {
            bx_row(src, src_pitch, xa, clamp_y(y + RADIUS + 1, height), width, h);
#pragma unroll
            for (int c = 0; c < 4; ++c) v[c] += h[c];
            bx_row(src, src_pitch, xa, clamp_y(y - RADIUS, height), width, h);
#pragma unroll
            for (int c = 0; c < 4; ++c) v[c] -= h[c];
        }
    }
}
#endif  // LM
