// Decoded planes -> working format, following the contract in engine/core/format.hpp.
//
// One program variant per source shape, chosen by -D options:
//   LAYOUT  0 yuv_planar, 1 yuv_semiplanar, 2 yuyv, 3 rgba, 4 gray   (PlaneLayout order)
//   SRC16   0: 1-byte samples, 1: 2-byte native-endian samples
//   CW, CH  chroma subsampling (log2) of the yuv layouts
//   WORK16  output working format (common.h)
// Everything numeric is a kernel argument: the sample shift (p010: 6), the range offsets and
// scales, the matrix coefficients. For rgba and gray, yoff/yscale are 0 and 1/(2^bits - 1).
//
// All planes live in one buffer `src` at byte offsets off0..off2 with pitches pitch0..pitch2.

#if SRC16
typedef ushort sample_t;
#else
typedef uchar sample_t;
#endif

#ifndef CW
#define CW 0
#endif
#ifndef CH
#define CH 0
#endif

// Sample `i` of row `y` of the plane at byte offset `off`, brought to its value by `shift`.
inline float sample_at(__global const uchar* src, uint off, int pitch, int y, int i, int shift) {
    __global const sample_t* row =
        (__global const sample_t*)(src + (size_t)off + (size_t)y * (size_t)pitch);
    return (float)((uint)row[i] >> shift);
}

#ifndef PX
#define PX 1  // pixels per work-item along x (1, 2 or 4): the tuner chooses
#endif
#ifndef PY
#define PY 1  // rows per work-item (1 or 2)
#endif

// Normalised R, G, B (clamped here) in the working format, alpha max.
inline pix_t rgb_to_pix(float3 rgb) {
    rgb = clamp(rgb, 0.0f, 1.0f);
    return unorm_to_pix((float4)(rgb, 1.0f));
}

// One pixel of Y, U, V sample values (sample_at's) in the working format.
inline pix_t yuv_to_pix(float Y, float U, float V, float yoff, float yscale, float coff,
                        float cscale, float rv, float gu, float gv, float bu) {
    const float yy = (Y - yoff) * yscale;
    const float cb = (U - coff) * cscale;
    const float cr = (V - coff) * cscale;
    return rgb_to_pix((float3)(yy + rv * cr, yy + gu * cb + gv * cr, yy + bu * cb));
}

// Pixel (x, y) in the working format.
inline pix_t convert_one(__global const uchar* src, uint off0, int pitch0, uint off1, int pitch1,
                         uint off2, int pitch2, int x, int y, int shift, float yoff,
                         float yscale, float coff, float cscale, float rv, float gu, float gv,
                         float bu) {
#if LAYOUT == 3  // rgba: full-range samples, source alpha ignored (alpha = max)
    const float r = (sample_at(src, off0, pitch0, y, 4 * x + 0, shift) - yoff) * yscale;
    const float g = (sample_at(src, off0, pitch0, y, 4 * x + 1, shift) - yoff) * yscale;
    const float b = (sample_at(src, off0, pitch0, y, 4 * x + 2, shift) - yoff) * yscale;
    const float3 rgb = (float3)(r, g, b);
#elif LAYOUT == 4  // gray: full-range single channel
    const float l = (sample_at(src, off0, pitch0, y, x, shift) - yoff) * yscale;
    const float3 rgb = (float3)(l, l, l);
#else
#if LAYOUT == 0  // yuv_planar
    const int cx = x >> CW;
    const int cy = y >> CH;
    const float Y = sample_at(src, off0, pitch0, y, x, shift);
    const float U = sample_at(src, off1, pitch1, cy, cx, shift);
    const float V = sample_at(src, off2, pitch2, cy, cx, shift);
#elif LAYOUT == 1  // yuv_semiplanar: Y plane + interleaved U V plane
    const int cx = x >> CW;
    const int cy = y >> CH;
    const float Y = sample_at(src, off0, pitch0, y, x, shift);
    const float U = sample_at(src, off1, pitch1, cy, 2 * cx + 0, shift);
    const float V = sample_at(src, off1, pitch1, cy, 2 * cx + 1, shift);
#elif LAYOUT == 2  // yuyv: Y0 U Y1 V per pair of pixels
    const int pair = x >> 1;
    const float Y = sample_at(src, off0, pitch0, y, 2 * x, shift);
    const float U = sample_at(src, off0, pitch0, y, 4 * pair + 1, shift);
    const float V = sample_at(src, off0, pitch0, y, 4 * pair + 3, shift);
#else
#error "unknown LAYOUT"
#endif
    return yuv_to_pix(Y, U, V, yoff, yscale, coff, cscale, rv, gu, gv, bu);
#endif
#if LAYOUT == 3 || LAYOUT == 4
    return rgb_to_pix(rgb);
#endif
}

// The pixels x0 .. x0 + 3 of an 8-bit 4:2:x frame (planar or semi-planar, chroma halved along x)
// from one 4-byte load of Y and one 4-byte (semi-planar: U0 V0 U1 V1) or two 2-byte (planar)
// loads of chroma, where every row address is aligned for them (planes lie at any byte offset
// and pitch: checked per row, one branch for the work-group). Against the sample-at-a-time
// path: 2 or 3 loads instead of up to 12, the chroma of a pair converted once, the same
// arithmetic (yuv_to_pix), so the same pixels. Returns false where it does not apply.
// (An 8-bit source always converts to RGBA8: SourceFormat::work_format.)
#define CV_VEC (PX == 4 && !SRC16 && !WORK16 && (LAYOUT == 0 || LAYOUT == 1) && CW == 1)
#if CV_VEC
inline bool convert_quad(__global const uchar* src, uint off0, int pitch0, uint off1, int pitch1,
                         uint off2, int pitch2, int x0, int y, int shift, float yoff, float yscale,
                         float coff, float cscale, float rv, float gu, float gv, float bu,
                         __global pix_t* out) {
    const int cy = y >> CH;
    const size_t yrow = (size_t)off0 + (size_t)y * (size_t)pitch0 + (size_t)x0;
#if LAYOUT == 1
    const size_t crow = (size_t)off1 + (size_t)cy * (size_t)pitch1 + (size_t)x0;  // 2 (x0 / 2)
    if ((yrow | crow) & 3) return false;
    const uchar4 c = *(__global const uchar4*)(src + crow);
    const uchar2 u = c.s02, v = c.s13;
#else
    const size_t urow = (size_t)off1 + (size_t)cy * (size_t)pitch1 + (size_t)(x0 >> 1);
    const size_t vrow = (size_t)off2 + (size_t)cy * (size_t)pitch2 + (size_t)(x0 >> 1);
    if ((yrow & 3) | ((urow | vrow) & 1)) return false;
    const uchar2 u = *(__global const uchar2*)(src + urow);
    const uchar2 v = *(__global const uchar2*)(src + vrow);
#endif
    const uchar4 l = *(__global const uchar4*)(src + yrow);
    // sample_at's value of each sample: (uint)sample >> shift, as float.
#define CV_S(b) ((float)((uint)(b) >> shift))
    const float U0 = CV_S(u.x), V0 = CV_S(v.x), U1 = CV_S(u.y), V1 = CV_S(v.y);
    const pix_t p0 = yuv_to_pix(CV_S(l.x), U0, V0, yoff, yscale, coff, cscale, rv, gu, gv, bu);
    const pix_t p1 = yuv_to_pix(CV_S(l.y), U0, V0, yoff, yscale, coff, cscale, rv, gu, gv, bu);
    const pix_t p2 = yuv_to_pix(CV_S(l.z), U1, V1, yoff, yscale, coff, cscale, rv, gu, gv, bu);
    const pix_t p3 = yuv_to_pix(CV_S(l.w), U1, V1, yoff, yscale, coff, cscale, rv, gu, gv, bu);
#undef CV_S
    *(__global uchar16*)out = (uchar16)(p0, p1, p2, p3);
    return true;
}

#if PY == 2 && CH == 1
// One pixel from its luma value and its chroma pair's products (yuv_to_pix's arithmetic, the
// products shared by the pixels of the pair: the same operations on the same values).
inline pix_t yuv_shared(float Y, float yoff, float yscale, float4 p) {
    const float yy = (Y - yoff) * yscale;
    return rgb_to_pix((float3)(yy + p.x, yy + p.y + p.z, yy + p.w));
}

// The quads x0 .. x0 + 3 of rows y0 and y0 + 1 (y0 even) of an 8-bit 4:2:0 frame, which share
// their chroma row: its samples loaded and their products formed once for 8 pixels. Where
// the rows' addresses are aligned for word loads; false otherwise (and nothing written).
inline bool convert_quad_pair(__global const uchar* src, uint off0, int pitch0, uint off1,
                              int pitch1, uint off2, int pitch2, int x0, int y0, int shift,
                              float yoff, float yscale, float coff, float cscale, float rv,
                              float gu, float gv, float bu, __global pix_t* out0,
                              __global pix_t* out1) {
    const int cy = y0 >> 1;
    const size_t yrow = (size_t)off0 + (size_t)y0 * (size_t)pitch0 + (size_t)x0;
#if LAYOUT == 1
    const size_t crow = (size_t)off1 + (size_t)cy * (size_t)pitch1 + (size_t)x0;  // 2 (x0 / 2)
    if ((yrow | (size_t)pitch0 | crow) & 3) return false;
    const uchar4 c = *(__global const uchar4*)(src + crow);
    const uchar2 u = c.s02, v = c.s13;
#else
    const size_t urow = (size_t)off1 + (size_t)cy * (size_t)pitch1 + (size_t)(x0 >> 1);
    const size_t vrow = (size_t)off2 + (size_t)cy * (size_t)pitch2 + (size_t)(x0 >> 1);
    if (((yrow | (size_t)pitch0) & 3) | ((urow | vrow) & 1)) return false;
    const uchar2 u = *(__global const uchar2*)(src + urow);
    const uchar2 v = *(__global const uchar2*)(src + vrow);
#endif
    const uchar4 l0 = *(__global const uchar4*)(src + yrow);
    const uchar4 l1 = *(__global const uchar4*)(src + yrow + (size_t)pitch0);
#define CV_S(b) ((float)((uint)(b) >> shift))
    // Per chroma pair: R's, G's two and B's products (yuv_to_pix's rv cr, gu cb, gv cr, bu cb).
    const float cb0 = (CV_S(u.x) - coff) * cscale, cr0 = (CV_S(v.x) - coff) * cscale;
    const float cb1 = (CV_S(u.y) - coff) * cscale, cr1 = (CV_S(v.y) - coff) * cscale;
    const float4 q0 = (float4)(rv * cr0, gu * cb0, gv * cr0, bu * cb0);
    const float4 q1 = (float4)(rv * cr1, gu * cb1, gv * cr1, bu * cb1);
#define CV_STORE(out, l)                                                                  \
    *(__global uchar16*)(out) = (uchar16)(                                                \
        yuv_shared(CV_S(l.x), yoff, yscale, q0), yuv_shared(CV_S(l.y), yoff, yscale, q0), \
        yuv_shared(CV_S(l.z), yoff, yscale, q1), yuv_shared(CV_S(l.w), yoff, yscale, q1))
    CV_STORE(out0, l0);
    CV_STORE(out1, l1);
#undef CV_STORE
#undef CV_S
    return true;
}
#endif
#endif

// The PX pixels at x0 of row y; a whole group of PX is stored with one aligned vector store (x0
// is a multiple of PX and rows start 256-byte aligned).
inline void convert_row(__global const uchar* src, uint off0, int pitch0, uint off1, int pitch1,
                        uint off2, int pitch2, __global uchar* dst, int dst_pitch, int width,
                        int x0, int y, int shift, float yoff, float yscale, float coff,
                        float cscale, float rv, float gu, float gv, float bu) {
#define ONE(x)                                                                                 \
    convert_one(src, off0, pitch0, off1, pitch1, off2, pitch2, (x), y, shift, yoff, yscale, \
                coff, cscale, rv, gu, gv, bu)
    __global pix_t* row = (__global pix_t*)(dst + (size_t)y * (size_t)dst_pitch);
#if PX == 4
    if (x0 + 4 <= width) {
#if CV_VEC
        if (convert_quad(src, off0, pitch0, off1, pitch1, off2, pitch2, x0, y, shift, yoff,
                         yscale, coff, cscale, rv, gu, gv, bu, row + x0))
            return;
#endif
#if WORK16
        *(__global ushort16*)(row + x0) =
            (ushort16)(ONE(x0), ONE(x0 + 1), ONE(x0 + 2), ONE(x0 + 3));
#else
        *(__global uchar16*)(row + x0) = (uchar16)(ONE(x0), ONE(x0 + 1), ONE(x0 + 2), ONE(x0 + 3));
#endif
        return;
    }
#elif PX == 2
    if (x0 + 2 <= width) {
#if WORK16
        *(__global ushort8*)(row + x0) = (ushort8)(ONE(x0), ONE(x0 + 1));
#else
        *(__global uchar8*)(row + x0) = (uchar8)(ONE(x0), ONE(x0 + 1));
#endif
        return;
    }
#endif
    for (int x = x0; x < min(x0 + PX, width); ++x) row[x] = ONE(x);
#undef ONE
}

// PX pixels of PY rows per work-item: with PY 2, the two rows of 4:2:0 that share a chroma row
// in one go where the frame allows (convert_quad_pair), else row by row.
__kernel void convert(__global const uchar* src, uint off0, int pitch0, uint off1, int pitch1,
                      uint off2, int pitch2, __global uchar* dst, int dst_pitch, int width,
                      int height, int shift, float yoff, float yscale, float coff, float cscale,
                      float rv, float gu, float gv, float bu) {
    const int x0 = (int)get_global_id(0) * PX;
    const int y0 = (int)get_global_id(1) * PY;
    if (y0 >= height || x0 >= width) return;
#if CV_VEC && PY == 2 && CH == 1
    if (x0 + 4 <= width && y0 + 1 < height &&
        convert_quad_pair(src, off0, pitch0, off1, pitch1, off2, pitch2, x0, y0, shift, yoff,
                          yscale, coff, cscale, rv, gu, gv, bu,
                          (__global pix_t*)(dst + (size_t)y0 * (size_t)dst_pitch) + x0,
                          (__global pix_t*)(dst + (size_t)(y0 + 1) * (size_t)dst_pitch) + x0))
        return;
#endif
    for (int y = y0; y < min(y0 + PY, height); ++y)
        convert_row(src, off0, pitch0, off1, pitch1, off2, pitch2, dst, dst_pitch, width, x0, y,
                    shift, yoff, yscale, coff, cscale, rv, gu, gv, bu);
}
