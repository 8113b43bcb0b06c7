// Shared helpers, prepended to every kernel file (see ClContext::program).
//
// Working format (engine/core/format.hpp): packed RGBA, unsigned normalised, selected by
// -DWORK16=0 (RGBA8, uchar4) or -DWORK16=1 (RGBA16, ushort4). Frames live in linear buffers
// addressed by a byte pitch; the pitch is a multiple of the pixel size.
//
// No contraction of a*b+c into fma/mad: results must be the same on every device and match
// the double-precision references within 1 LSB (and -cl-mad-enable is never passed).
#pragma OPENCL FP_CONTRACT OFF

#ifndef WORK16
#define WORK16 0
#endif

#if WORK16
typedef ushort4 pix_t;
#define PIX_MAX 65535.0f
#define convert_pix_sat_rte convert_ushort4_sat_rte
#else
typedef uchar4 pix_t;
#define PIX_MAX 255.0f
#define convert_pix_sat_rte convert_uchar4_sat_rte
#endif

// Clamp-to-edge coordinates.
inline int clamp_x(int x, int width) { return clamp(x, 0, width - 1); }
inline int clamp_y(int y, int height) { return clamp(y, 0, height - 1); }

// Pixel (x, y) of a working-format buffer with `pitch` bytes per row.
inline pix_t load_pix(__global const uchar* base, int pitch, int x, int y) {
    return *(__global const pix_t*)(base + (size_t)y * (size_t)pitch +
                                    (size_t)x * sizeof(pix_t));
}
inline void store_pix(__global uchar* base, int pitch, int x, int y, pix_t v) {
    *(__global pix_t*)(base + (size_t)y * (size_t)pitch + (size_t)x * sizeof(pix_t)) = v;
}

// Normalised float (0..1) <-> pixel. Store rounds to nearest even and saturates.
inline float4 pix_to_unorm(pix_t p) { return convert_float4(p) * (1.0f / PIX_MAX); }
inline pix_t unorm_to_pix(float4 v) { return convert_pix_sat_rte(v * PIX_MAX); }

// Float in pixel units (0..255 or 0..65535) <-> pixel: what the filters compute in, no
// rescaling error. Store rounds to nearest even and saturates.
inline float4 pix_to_float(pix_t p) { return convert_float4(p); }
inline pix_t float_to_pix(float4 v) { return convert_pix_sat_rte(v); }

// The global size is rounded up to whole work-groups: work-items outside the frame take part
// in cooperative loads and barriers but store nothing.
inline bool in_frame(int x, int y, int width, int height) { return x < width && y < height; }

// ---- Separable convolution passes with a local-memory tile and a clamp-to-edge apron ----
// `wt` holds the 2r+1 taps (tap k applies to offset k - r). Every work-item of the group must
// call these (they contain a barrier), including those outside the frame.

// Horizontal pass over a working-format frame. `tile` holds (local width + 2r) x local height
// float4. Returns the filtered value of this work-item's pixel, in pixel units.
inline float4 sep_pass_h(__global const uchar* src, int pitch, int width, int height,
                         __constant float* wt, int r, __local float4* tile) {
    const int lx = (int)get_local_id(0);
    const int lw = (int)get_local_size(0);
    const int tw = lw + 2 * r;
    const int x0 = (int)get_group_id(0) * lw - r;
    const int y = clamp_y((int)get_global_id(1), height);
    __local float4* row = tile + (int)get_local_id(1) * tw;
    for (int i = lx; i < tw; i += lw)
        row[i] = pix_to_float(load_pix(src, pitch, clamp_x(x0 + i, width), y));
    barrier(CLK_LOCAL_MEM_FENCE);
    float4 sum = (float4)(0.0f);
    for (int k = 0; k <= 2 * r; ++k) sum += row[lx + k] * wt[k];
    return sum;
}

// Vertical pass over a float4 frame of `width` elements per row (a horizontal pass's output).
// `tile` holds local width x (local height + 2r) float4.
inline float4 sep_pass_v(__global const float4* src, int width, int height, __constant float* wt,
                         int r, __local float4* tile) {
    const int lx = (int)get_local_id(0);
    const int ly = (int)get_local_id(1);
    const int lw = (int)get_local_size(0);
    const int lh = (int)get_local_size(1);
    const int th = lh + 2 * r;
    const int y0 = (int)get_group_id(1) * lh - r;
    const int x = clamp_x((int)get_global_id(0), width);
    for (int i = ly; i < th; i += lh)
        tile[i * lw + lx] = src[(size_t)clamp_y(y0 + i, height) * (size_t)width + (size_t)x];
    barrier(CLK_LOCAL_MEM_FENCE);
    float4 sum = (float4)(0.0f);
    for (int k = 0; k <= 2 * r; ++k) sum += tile[(ly + k) * lw + lx] * wt[k];
    return sum;
}

// The work-group's tile of pixels with an apron of r on every side, clamped to the frame edge,
// loaded by all work-items together: tile is (lw + 2r) x (lh + 2r) pix_t, row pitch lw + 2r,
// and pixel (x, y) of the group sits at tile[(ly + r) * (lw + 2r) + lx + r]. Ends with a
// barrier, so every work-item of the group must call it.
inline void load_tile(__global const uchar* src, int src_pitch, int width, int height,
                      __local pix_t* tile, int r) {
    const int lw = (int)get_local_size(0);
    const int lh = (int)get_local_size(1);
    const int tw = lw + 2 * r;
    const int th = lh + 2 * r;
    const int x0 = (int)get_group_id(0) * lw - r;
    const int y0 = (int)get_group_id(1) * lh - r;
    for (int i = (int)(get_local_id(1) * get_local_size(0) + get_local_id(0)); i < tw * th;
         i += lw * lh) {
        const int ty = i / tw;
        const int tx = i - ty * tw;
        tile[i] = load_pix(src, src_pitch, clamp_x(x0 + tx, width), clamp_y(y0 + ty, height));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

// One-channel (mosaic) working format, the depth of WORK16 (core/format.hpp: mono8/mono16).
#if WORK16
typedef ushort mono_t;
#define convert_mono_sat_rte convert_ushort_sat_rte
#else
typedef uchar mono_t;
#define convert_mono_sat_rte convert_uchar_sat_rte
#endif
inline float load_mono(__global const uchar* base, int pitch, int x, int y) {
    return (float)*(__global const mono_t*)(base + (size_t)y * (size_t)pitch +
                                            (size_t)x * sizeof(mono_t));
}
inline void store_mono(__global uchar* base, int pitch, int x, int y, float v) {
    *(__global mono_t*)(base + (size_t)y * (size_t)pitch + (size_t)x * sizeof(mono_t)) =
        convert_mono_sat_rte(v);
}

// Colour (0 R, 1 G, 2 B) of Bayer site (x, y): `cfa` packs the 2x2 pattern, 2 bits per site,
// site (x & 1) + 2 (y & 1) (rggb: 0 | 1 << 2 | 1 << 4 | 2 << 6).
inline int cfa_at(int cfa, int x, int y) { return (cfa >> (2 * ((x & 1) + 2 * (y & 1)))) & 3; }


// ---- Groups of 4 pixels (the stencil kernels: each work-item covers 4 adjacent pixels) ----
// A quad is pixels xa..xa+3 of one row, xa a multiple of 4, as one vector (R G B A of pixel 0,
// then pixel 1 ...). Rows start on 256-byte boundaries (core/format.hpp), so a quad is one
// aligned 16-byte (RGBA8) or 32-byte (RGBA16) access.
#if WORK16
typedef ushort16 quad_t;
typedef uint8 quad_raw_t;
#define as_quad as_ushort16
#define as_quad_raw as_uint8
#else
typedef uchar16 quad_t;
typedef uint4 quad_raw_t;
#define as_quad as_uchar16
#define as_quad_raw as_uint4
#endif

// Quad at xa of row y (y inside the frame), clamped to the edge: one vector load when all four
// pixels lie inside the frame, else four clamped loads.
inline quad_t load_quad(__global const uchar* src, int pitch, int xa, int y, int width) {
    __global const uchar* row = src + (size_t)y * (size_t)pitch;
    if (xa >= 0 && xa + 3 < width)
        return as_quad(*(__global const quad_raw_t*)(row + (size_t)xa * sizeof(pix_t)));
    const pix_t p0 = load_pix(src, pitch, clamp_x(xa, width), y);
    const pix_t p1 = load_pix(src, pitch, clamp_x(xa + 1, width), y);
    const pix_t p2 = load_pix(src, pitch, clamp_x(xa + 2, width), y);
    const pix_t p3 = load_pix(src, pitch, clamp_x(xa + 3, width), y);
    return (quad_t)(p0, p1, p2, p3);
}

// Stores the pixels of the quad at xa of row y that lie inside the frame.
inline void store_quad(__global uchar* dst, int pitch, int xa, int y, int width, quad_t q) {
    __global uchar* row = dst + (size_t)y * (size_t)pitch;
    if (xa + 3 < width) {
        *(__global quad_raw_t*)(row + (size_t)xa * sizeof(pix_t)) = as_quad_raw(q);
        return;
    }
    store_pix(dst, pitch, xa, y, q.lo.lo);
    if (xa + 1 < width) store_pix(dst, pitch, xa + 1, y, q.lo.hi);
    if (xa + 2 < width) store_pix(dst, pitch, xa + 2, y, q.hi.lo);
}

// Pixel i (0..3) of a quad.
#define QUAD_PIX(q, i) \
    ((i) == 0 ? (q).lo.lo : (i) == 1 ? (q).lo.hi : (i) == 2 ? (q).hi.lo : (q).hi.hi)

// ---- Byte permutes (-DPRMT=1 in the kernels that offer it; sobel and the QW=3 words) ----
// PTX's prmt.b32 (default mode): byte i of the result is byte (s >> 4i) & 7 of the eight bytes
// b:a (a the low four). Every selector nibble used must be below 8: PTX takes bit 3 of a nibble
// as "replicate the byte's sign bit", which the twin below does not do. NVIDIA's compiler (it
// defines __NV_CL_C_VERSION) gets the instruction itself: one PRMT where picking bytes out of two
// words takes a shift and a mask or two, on the integer pipe that the integer kernels keep
// busiest. Elsewhere the same bytes by shifts and masks (s is a constant at every use, so they
// fold).
inline uint vfx_prmt(uint a, uint b, uint s) {
#ifdef __NV_CL_C_VERSION
    uint d;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(s));
    return d;
#else
    const ulong v = ((ulong)b << 32) | (ulong)a;
    uint d = 0u;
#pragma unroll
    for (int i = 0; i < 4; ++i)
        d |= (uint)((v >> (8u * ((s >> (4 * i)) & 7u))) & 0xFFu) << (8 * i);
    return d;
#endif
}

// A hint that the line holding p will be read soon: on NVIDIA (inline PTX) it is fetched into
// L2 now, with no register held and no wait; elsewhere nothing. Never changes a result; p must
// lie inside a buffer the kernel may read.
inline void vfx_prefetch_l2(__global const void* p) {
#ifdef __NV_CL_C_VERSION
    asm volatile("prefetch.global.L2 [%0];" : : "l"(p));
#else
    (void)p;
#endif
}

// The input tile of the work-group `ahead` places further in launch order (linear group index,
// x fastest), fetched into L2 now: a kernel of many short-lived groups holds about a wave of
// them at once, and the loads of each wait on the memory; fetched a fraction of a wave ahead,
// its rows are in L2 when that group starts. The tile: bytes fgx tile_wb .. fgx tile_wb +
// tile_wb - 1 (tile_wb a multiple of 32: whole 32-byte sectors, rows starting on 256-byte
// boundaries) of rows fgy tile_h - ay .. fgy tile_h + tile_h + ay - 1, both clamped into the
// frame (row_bytes, height); the columns left and right of it are the neighbouring groups' own,
// which the groups beside this one fetch. One sector per prefetch, shared out over the group's
// work-items (`sect` = tile_wb / 32, a compile-time constant where the caller's is, so that the
// division is a multiply). Nothing off NVIDIA; never changes a result. (One bulk prefetch per
// row, sm_90's cp.async.bulk.prefetch.L2, measured slower for demosaic: BENCHMARKS.md.)
inline void vfx_prefetch_ahead(__global const uchar* src, int pitch, int row_bytes, int height,
                               int ahead, int tile_h, int ay, int sect) {
#ifdef __NV_CL_C_VERSION
    const int ngx = (int)get_num_groups(0);
    const int lin = (int)get_group_id(1) * ngx + (int)get_group_id(0) + ahead;
    if (lin >= ngx * (int)get_num_groups(1)) return;
    const int fgy = lin / ngx;
    const int fgx = lin - fgy * ngx;
    const int n = (tile_h + 2 * ay) * sect;
    const int size = (int)(get_local_size(0) * get_local_size(1));
    for (int i = (int)(get_local_id(1) * get_local_size(0) + get_local_id(0)); i < n; i += size) {
        const int r = i / sect;
        const int y = clamp(fgy * tile_h - ay + r, 0, height - 1);
        const int x = min((fgx * sect + i - r * sect) * 32, row_bytes - 1);
        vfx_prefetch_l2(src + (size_t)y * (size_t)pitch + (size_t)x);
    }
#else
    (void)src, (void)pitch, (void)row_bytes, (void)height, (void)ahead, (void)tile_h, (void)ay;
    (void)sect;
#endif
}

// fma(a, b, c) clamped to [0, 1]: PTX's fma.rn.sat.f32 with NVIDIA's compiler (the clamp is a
// modifier of the one instruction), the same value by fmin and fmax elsewhere (the clamp acts on
// the rounded result in both; NaN gives 0 in both).
inline float vfx_fma_sat(float a, float b, float c) {
#ifdef __NV_CL_C_VERSION
    float d;
    asm("fma.rn.sat.f32 %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c));
    return d;
#else
    return fmin(fmax(fma(a, b, c), 0.0f), 1.0f);
#endif
}

// v rounded to nearest even and saturated to 0..PIX_MAX (the value convert_pix_sat_rte stores), as
// a zero-extended integer. NVIDIA's compiler gets PTX's cvt.rni.sat.u8.f32 (u16 in 16-bit work)
// into a 32-bit register, which PTX defines to zero-extend: one F2IP, where convert_uint of
// convert_uchar_sat_rte adds a mask after it. Elsewhere those conversions (the same values; NaN
// gives 0 in both).
inline uint vfx_level(float v) {
#ifdef __NV_CL_C_VERSION
    uint r;
#if WORK16
    asm("cvt.rni.sat.u16.f32 %0, %1;" : "=r"(r) : "f"(v));
#else
    asm("cvt.rni.sat.u8.f32 %0, %1;" : "=r"(r) : "f"(v));
#endif
    return r;
#elif WORK16
    return convert_uint(convert_ushort_sat_rte(v));
#else
    return convert_uint(convert_uchar_sat_rte(v));
#endif
}
inline uint4 vfx_level4(float4 v) {
    return (uint4)(vfx_level(v.x), vfx_level(v.y), vfx_level(v.z), vfx_level(v.w));
}

// Two 8-bit levels in one word: lo and hi rounded to nearest even and saturated to 0..255 (each
// the value vfx_level gives at 8 bits) in bytes 0 and 1, the low 16 bits of `rest` in bytes 2
// and 3; two calls, the first the second's `rest`, make four levels. NVIDIA's compiler gets two
// cvt.rni.s32.f32 and a cvt.pack.sat.u8.s32.b32, which ptxas makes one F2IP for both
// conversions and the packing (sm_90: where two vfx_level calls and their packing take three
// instructions or four); cvt.pack needs sm_72 or later (the host passes the GPU's compute
// capability as VFX_NV_SM: ClDeviceInfo::arch_options). The same value elsewhere (NaN gives 0
// in both).
inline uint vfx_level2_u8(float hi, float lo, uint rest) {
#if defined(__NV_CL_C_VERSION) && defined(VFX_NV_SM) && VFX_NV_SM >= 72
    uint r;
    asm("{\n\t.reg .s32 vh, vl;\n\t"
        "cvt.rni.s32.f32 vh, %1;\n\t"
        "cvt.rni.s32.f32 vl, %2;\n\t"
        "cvt.pack.sat.u8.s32.b32 %0, vh, vl, %3;\n\t}"
        : "=r"(r)
        : "f"(hi), "f"(lo), "r"(rest));
    return r;
#else
    return convert_uint(convert_uchar_sat_rte(lo)) | convert_uint(convert_uchar_sat_rte(hi)) << 8 |
           rest << 16;
#endif
}

// sqrt(x), correctly rounded, for x = 0 or 2^-101 <= x <= FLT_MAX (no denormals, none of
// [2^-126, 2^-101), no negatives, infinities or NaN). The program must be built with
// -cl-fp32-correctly-rounded-divide-sqrt, so that sqrt() is correctly rounded everywhere (the
// options of ClDeviceInfo::sqrt_cr_options()). NVIDIA's compiler makes that sqrt a range check
// and a branch around a reciprocal square root and one Newton step, with a called routine for
// the inputs the step cannot take (zero and everything below 2^-101, negatives, infinities,
// NaN). With -DVFX_SQRT_STEP=1 (the host's sqrt_cr_options() sets it only on the GPUs where it
// was checked against sqrt() on every float of the domain: sm_90, the H100 and H200) the step
// alone, in inline PTX, its input moved off zero to the domain's least float (0 * rsqrt(2^-101)
// = 0, and the step keeps 0); elsewhere sqrt() itself. test_filters_color's
// CorrectlyRoundedSqrt checks it against sqrt() on every float of the domain where the step is
// compiled, by steps elsewhere.
inline float vfx_sqrt_cr(float x) {
#if defined(__NV_CL_C_VERSION) && defined(VFX_SQRT_STEP) && VFX_SQRT_STEP
    float r;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(fmax(x, 0x1p-101f)));
    const float s = x * r;
    return fma(fma(-s, s, x), r * 0.5f, s);
#else
    return sqrt(x);
#endif
}

// An RGBA8 pixel word from the low bytes of r, g, b and the alpha (byte 3) of word a, by three
// byte permutes.
inline uint vfx_prmt_word(uint r, uint g, uint b, uint a) {
    return vfx_prmt(vfx_prmt(r, g, 0x3240u), vfx_prmt(b, a, 0x3270u), 0x5410u);
}

// ---- Quads as raw words (-DQW=1|2|3) ----
// NVIDIA's compiler splits a uchar16 / ushort16 access into 4-byte (8-byte) pieces and keeps
// every channel in its own register; a quad loaded and stored as uint4 (RGBA8: one word per
// pixel) or uint8 (RGBA16: two) stays one 16 / 32-byte access. pixw_to_float / float_to_pixw:
// QW=1 takes the channels out with shifts and masks and converts them with convert_* (sm_90
// has fast I2FP / F2IP forms for these); QW=2 with the float bit trick
// (0x4B000000 | u is the float 2^23 + u for u < 2^23: an OR and a subtraction, and back: v + 2^23
// rounds v to the nearest integer, ties to even, in its low bits); QW=3 (the point-wise kernels'
// candidates) takes each channel out with one byte permute (pixw_channel_f) and, in RGBA8, puts
// the rounded channels and the alpha back with three (vfx_prmt_word). Every way the values are
// exactly those of pix_to_float / float_to_pix.
#ifndef QW
#define QW 0
#endif
#if WORK16
typedef uint8 quadw_t;
typedef uint2 pixw_t;
#define QW_PIX(q, i) ((i) == 0 ? (q).s01 : (i) == 1 ? (q).s23 : (i) == 2 ? (q).s45 : (q).s67)
inline uint4 pixw_channels(pixw_t w) {
    return (uint4)(w.x & 0xFFFFu, w.x >> 16, w.y & 0xFFFFu, w.y >> 16);
}
inline pixw_t pixw_pack(uint4 c) {  // every channel <= 0xFFFF
    return (uint2)(c.x | (c.y << 16), c.z | (c.w << 16));
}
inline pixw_t pix_as_w(pix_t p) { return as_uint2(p); }
#define QW_MASK 0xFFFFu
#else
typedef uint4 quadw_t;
typedef uint pixw_t;
#define QW_PIX(q, i) ((i) == 0 ? (q).x : (i) == 1 ? (q).y : (i) == 2 ? (q).z : (q).w)
inline uint4 pixw_channels(pixw_t w) {
    return (uint4)(w & 0xFFu, (w >> 8) & 0xFFu, (w >> 16) & 0xFFu, w >> 24);
}
inline pixw_t pixw_pack(uint4 c) {  // every channel <= 0xFF
    return c.x | (c.y << 8) | (c.z << 16) | (c.w << 24);
}
inline pixw_t pix_as_w(pix_t p) { return as_uint(p); }
#define QW_MASK 0xFFu
#endif

// The pixel word with R = G = B = v (rounded to nearest even, saturated) and the alpha of `a`:
// float_to_pixw((float4)(v, v, v, 0), a), in byte permutes (RGBA8: one, where the conversion
// of a vector and its packing took seven instructions on NVIDIA).
inline pixw_t grey_to_pixw(float v, pixw_t a) {
    const uint l = vfx_level(v);
#if WORK16
    return (uint2)(vfx_prmt(l, l, 0x1010u), vfx_prmt(l, a.y, 0x7610u));
#else
    return vfx_prmt(l, a, 0x7000u);
#endif
}

// Channel c (0..3: R, G, B, A) of a pixel word as a float, the value of pixw_to_float(w).sN: one
// byte permute and a conversion (the shift and mask of pixw_channels take two).
inline float pixw_channel_f(pixw_t w, int c) {
#if WORK16
    return convert_float(vfx_prmt(c < 2 ? w.x : w.y, 0u, (c & 1) ? 0x4432u : 0x4410u));
#else
    return convert_float(vfx_prmt(w, 0u, 0x4440u | (uint)c));
#endif
}

inline float4 pixw_to_float(pixw_t w) {
#if QW == 2
    return as_float4(pixw_channels(w) | 0x4B000000u) - 8388608.0f;
#elif QW == 3
    return (float4)(pixw_channel_f(w, 0), pixw_channel_f(w, 1), pixw_channel_f(w, 2),
                    pixw_channel_f(w, 3));
#else
    return convert_float4(pixw_channels(w));
#endif
}

// The pixel word of R, G, B from v (rounded to nearest even, saturated) and alpha from `a`.
inline pixw_t float_to_pixw(float4 v, pixw_t a) {
#if QW == 2
    uint4 c = as_uint4(fmin(fmax(v, (float4)(0.0f)), (float4)(PIX_MAX)) + 8388608.0f) & QW_MASK;
    c.w = pixw_channels(a).w;
    return pixw_pack(c);
#elif QW == 3 && !WORK16
    return vfx_prmt_word(vfx_level(v.x), vfx_level(v.y), vfx_level(v.z), a);
#elif WORK16
    const uint2 c = as_uint2(convert_pix_sat_rte(v));
    return (uint2)(c.x, (c.y & 0xFFFFu) | (a.y & 0xFFFF0000u));
#else
    return (as_uint(convert_pix_sat_rte(v)) & 0x00FFFFFFu) | (a & 0xFF000000u);
#endif
}

// Pixel x of row y (y inside the frame), clamped to the edge, as its word.
inline pixw_t load_pixw(__global const uchar* src, int pitch, int x, int y, int width) {
    return *(__global const pixw_t*)(src + (size_t)y * (size_t)pitch +
                                     (size_t)clamp_x(x, width) * sizeof(pix_t));
}

// Quad at xa of row y (y inside the frame), clamped to the edge, as words.
inline quadw_t load_quadw(__global const uchar* src, int pitch, int xa, int y, int width) {
    __global const uchar* row = src + (size_t)y * (size_t)pitch;
    if (xa >= 0 && xa + 3 < width)
        return *(__global const quadw_t*)(row + (size_t)xa * sizeof(pix_t));
    return (quadw_t)(pix_as_w(load_pix(src, pitch, clamp_x(xa, width), y)),
                     pix_as_w(load_pix(src, pitch, clamp_x(xa + 1, width), y)),
                     pix_as_w(load_pix(src, pitch, clamp_x(xa + 2, width), y)),
                     pix_as_w(load_pix(src, pitch, clamp_x(xa + 3, width), y)));
}

// Stores the pixels of the word quad at xa of row y that lie inside the frame.
inline void store_quadw(__global uchar* dst, int pitch, int xa, int y, int width, quadw_t q) {
    __global uchar* row = dst + (size_t)y * (size_t)pitch;
    if (xa + 3 < width) {
        *(__global quadw_t*)(row + (size_t)xa * sizeof(pix_t)) = q;
        return;
    }
    __global pixw_t* px = (__global pixw_t*)(row + (size_t)xa * sizeof(pix_t));
    px[0] = QW_PIX(q, 0);
    if (xa + 1 < width) px[1] = QW_PIX(q, 1);
    if (xa + 2 < width) px[2] = QW_PIX(q, 2);
}
