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
// is the horizontal tap at distance d (0 .. r; the taps are symmetric), wv.sd the vertical one.
// UNSHARP=0: out = blur, wv = wh. UNSHARP=1 (amount a): wv.sd = -a w_d (rounded once, on the
// host) and wv.sf = 1 + a, out = fma(1 + a, in, sum of the vertical taps): the blur and the
// "in + a (in - blur)" of unsharp.cl in one chain of multiply-adds, one per tap and one for the
// input, where the plain form takes three more operations per channel after the blur. Within
// half a unit of the plain form before rounding (tests: within 1 of the double reference).

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
// distance k are added, then multiplied once).
inline float4 gs_h_at(const float4* p, int m, float16 wh) {
    float4 s = p[m] * gs_tap(wh, 0);
#pragma unroll
    for (int k = 1; k <= RADIUS; ++k) s = fma((float4)(gs_tap(wh, k)), p[m - k] + p[m + k], s);
    return s;
}

// Writes the quad at xa of row y from its 4 filtered pixels acc (R, G, B; alpha and, for
// UNSHARP, the input from the source quad), rounded to nearest even and saturated. opa: UNSHARP's
// 1 + amount.
inline void gs_store(__global const uchar* src, int src_pitch, __global uchar* dst, int dst_pitch,
                     int xa, int y, int width, const float4* acc, float opa) {
#if QW
    const quadw_t in = load_quadw(src, src_pitch, xa, y, width);
    pixw_t o[4];
#pragma unroll
    for (int c = 0; c < 4; ++c) {
        const pixw_t pin = QW_PIX(in, c);
#if UNSHARP
        o[c] = float_to_pixw(fma((float4)(opa), pixw_to_float(pin), acc[c]), pin);
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
        o[c] = float_to_pix(fma((float4)(opa), pix_to_float(pin), acc[c]));
#else
        o[c] = float_to_pix(acc[c]);
#endif
        o[c].w = pin.w;
    }
    store_quad(dst, dst_pitch, xa, y, width, (quad_t)(o[0], o[1], o[2], o[3]));
#endif
}

#if defined(LM) && LM == 2
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
// (UNSHARP: opa = 1 + amount).
inline pixw_t gs_out3(pixw_t in, float r, float g, float b, float opa, uint m) {
#if UNSHARP
    r = vfx_fma_sat(opa, gs_chan(in, 0, m), r);
    g = vfx_fma_sat(opa, gs_chan(in, 1, m), g);
    b = vfx_fma_sat(opa, gs_chan(in, 2, m), b);
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
inline quadw_t gs_quad3(quadw_t in, float4 r, float4 g, float4 b, float opa, uint m) {
    pixw_t o[4];
#pragma unroll
    for (int c = 0; c < 4; ++c)
        o[c] = gs_out3(QW_PIX(in, c), gs_lane(r, c), gs_lane(g, c), gs_lane(b, c), opa, m);
    return (quadw_t)(o[0], o[1], o[2], o[3]);
}

// gs_store with three channels.
inline void gs_store3(__global const uchar* src, int src_pitch, __global uchar* dst, int dst_pitch,
                      int xa, int y, int width, float4 r, float4 g, float4 b, float opa, uint m) {
    store_quadw(dst, dst_pitch, xa, y, width,
                gs_quad3(load_quadw(src, src_pitch, xa, y, width), r, g, b, opa, m));
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
                    acc[c] = (float4)(gs_lane(ar[i], c), gs_lane(ag[i], c), gs_lane(ab[i], c), 0.0f);
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
