// sobel: gradient magnitude of BT.709 luma L = 0.2126 R + 0.7152 G + 0.0722 B (unrounded),
// 3x3 Sobel kernels, clamp to edge:
//   gx = (L(x+1,y-1) + 2 L(x+1,y) + L(x+1,y+1)) - (L(x-1,y-1) + 2 L(x-1,y) + L(x-1,y+1))
//   gy = (L(x-1,y+1) + 2 L(x,y+1) + L(x+1,y+1)) - (L(x-1,y-1) + 2 L(x,y-1) + L(x+1,y-1))
//   R = G = B = sqrt(gx^2 + gy^2) / 4, rounded to nearest even, saturated; alpha passed through.
// Build option: -DPY=rows per work-item. Each work-item makes a block of 4 x PY pixels at
// (4 gx, PY gy): per input row, three aligned quads (vector loads; L1/L2 absorb the overlap
// between blocks) give the 6 lumas the block needs, each computed once and used by every
// window of the block. No local memory, no barriers. Global traffic: 1 pixel read + 1 written.
// -DQW=1 (common.h's quads as words): the block's quad as one uint4 / uint8 access and the
// pixels left and right of it as single words, channels by byte permutes (pixw_channel_f:
// values exactly convert_float4's), the result rounded and saturated as float_to_pix and put
// into the input's word by byte permutes (grey_to_pixw, RGBA8: one): the same frame.
// Arguments: src, src_pitch, dst, dst_pitch, width, height.

#ifndef PY
#define PY 4
#endif

// A correctly rounded sqrt (the program is built with ClDeviceInfo::sqrt_cr_options()): every
// device computes the same magnitude, where NVIDIA's default sqrt (within 3 ulp) made 16-bit
// frames differ between PoCL and NVIDIA (scripts/crossdevice-session.sh); common.h's
// vfx_sqrt_cr, on sm_90 the same values without the range check and its branch, whose domain
// (0 and from 2^-101 up) holds every magnitude here: the channels are integers >= 0, so a luma
// is 0 or at least 0.0722 > 2^-4 (the multiply-adds round monotonically), hence a multiple of
// 2^-27 (every float of at least 2^-4 is one, and so is every sum or difference of such,
// rounded or not), and gx^2 + gy^2 is 0 or at least 2^-54. The multiply-adds are fused
// (fma()), one rounding each; 2 z is exact, so fma(2, z, w) is the sum w + 2 z as written above,
// in one instruction.
inline float sobel_lumaf(float4 v) { return fma(0.0722f, v.z, fma(0.7152f, v.y, 0.2126f * v.x)); }
inline float sobel_luma(pix_t p) { return sobel_lumaf(pix_to_float(p)); }

// The magnitude at column c of the block (0..3) from the lumas of rows a, b, d (above, at,
// below), each holding columns xa - 1 .. xa + 4.
inline float sobel_mag(const float* a, const float* b, const float* d, int c) {
    const float z00 = a[c], z01 = a[c + 1], z02 = a[c + 2];
    const float z10 = b[c], z12 = b[c + 2];
    const float z20 = d[c], z21 = d[c + 1], z22 = d[c + 2];
    const float gx = (fma(2.0f, z12, z02) + z22) - (fma(2.0f, z10, z00) + z20);
    const float gy = (fma(2.0f, z21, z20) + z22) - (fma(2.0f, z01, z00) + z02);
    return vfx_sqrt_cr(fma(gx, gx, gy * gy)) * 0.25f;
}

#if QW
inline float sobel_lumaw(pixw_t w) {
    return sobel_lumaf(
        (float4)(pixw_channel_f(w, 0), pixw_channel_f(w, 1), pixw_channel_f(w, 2), 0.0f));
}

#ifndef WK
#define WK 0
#endif
#if WK
// -DWK=1 (with QW): the block's rows walked down. Per step the work-item holds the lumas of
// three input rows (above, at, below its output row) and the words of the row after them,
// loaded a step ahead (their loads are in flight while the step's outputs are made). The loop
// above loads all of its PY + 2 rows up front and keeps their lumas (PY = 8: 118 registers on
// NVIDIA then, 113 since the fourteenth 2026-11-27 session: at most a quarter of the warps an
// SM holds, but every load in flight at once, which the H100 prefers since); the walk keeps
// three rows, so its blocks can be long and the 2 rows each block shares with its neighbours
// weigh less per output row ((PY + 2) / PY loads and luma rows). The same lumas and magnitudes
// in the same order: the same frame.
// The row ahead stops at the block's last input row (a load past it would never be used): 3 %
// faster on the H100 at 4K. Measured and dropped (H100, 4K): two rows loaded ahead (a tie while
// both loaded past the block, then 20 % slower), 8 pixels per row of a work-item (10 lumas per
// 8 pixels: 11-17 % slower, fewer warps), the walk written out three steps at a time so that
// the three rows' slots turn roles instead of being copied (the copies are 22 moves a step;
// 70 registers against 62, and 0.0338-0.0404 ms in the tuner against 0.0294 for PY 8 without
// the walk, BENCHMARKS.md's fourteenth session).
typedef struct {
    quadw_t m;    // pixels xa .. xa + 3
    pixw_t l, r;  // pixels xa - 1 and xa + 4 (clamped)
} sobel_row_t;

inline sobel_row_t sobel_load_row(__global const uchar* src, int pitch, int xa, int y, int width) {
    sobel_row_t w;
    w.m = load_quadw(src, pitch, xa, y, width);
    w.l = load_pixw(src, pitch, xa - 1, y, width);
    w.r = load_pixw(src, pitch, xa + 4, y, width);
    return w;
}

inline void sobel_lumas(sobel_row_t w, float* z) {
    z[0] = sobel_lumaw(w.l);
#pragma unroll
    for (int c = 0; c < 4; ++c) z[1 + c] = sobel_lumaw(QW_PIX(w.m, c));
    z[5] = sobel_lumaw(w.r);
}

__kernel void sobel_apply(__global const uchar* src, int src_pitch, __global uchar* dst,
                          int dst_pitch, int width, int height) {
    const int xa = (int)get_global_id(0) * 4;
    const int y0 = (int)get_global_id(1) * PY;
    if (xa >= width || y0 >= height) return;
    float a[6], b[6], d[6];  // lumas of rows y - 1, y, y + 1
    sobel_lumas(sobel_load_row(src, src_pitch, xa, clamp_y(y0 - 1, height), width), a);
    sobel_row_t at = sobel_load_row(src, src_pitch, xa, y0, width);  // row y (alpha)
    sobel_row_t next = sobel_load_row(src, src_pitch, xa, clamp_y(y0 + 1, height), width);
    sobel_lumas(at, b);
    const int rows = min(PY, height - y0);
    for (int i = 0; i < rows; ++i) {
        const int y = y0 + i;
        const sobel_row_t below = next;
        sobel_lumas(below, d);
        next = sobel_load_row(src, src_pitch, xa, clamp_y(min(y + 2, y0 + PY), height), width);
        pixw_t o[4];
#pragma unroll
        for (int c = 0; c < 4; ++c) o[c] = grey_to_pixw(sobel_mag(a, b, d, c), QW_PIX(at.m, c));
        store_quadw(dst, dst_pitch, xa, y, width, (quadw_t)(o[0], o[1], o[2], o[3]));
#pragma unroll
        for (int k = 0; k < 6; ++k) {
            a[k] = b[k];
            b[k] = d[k];
        }
        at = below;
    }
}
#else
__kernel void sobel_apply(__global const uchar* src, int src_pitch, __global uchar* dst,
                          int dst_pitch, int width, int height) {
    const int xa = (int)get_global_id(0) * 4;
    const int y0 = (int)get_global_id(1) * PY;
    if (xa >= width || y0 >= height) return;

    float z[PY + 2][6];  // lumas of pixels xa - 1 .. xa + 4 of rows y0 - 1 ...
    quadw_t centre[PY];
#pragma unroll
    for (int j = 0; j < PY + 2; ++j) {
        const int y = clamp_y(y0 - 1 + j, height);
        const quadw_t m = load_quadw(src, src_pitch, xa, y, width);
        if (j >= 1 && j < 1 + PY) centre[j - 1] = m;
        z[j][0] = sobel_lumaw(load_pixw(src, src_pitch, xa - 1, y, width));
#pragma unroll
        for (int c = 0; c < 4; ++c) z[j][1 + c] = sobel_lumaw(QW_PIX(m, c));
        z[j][5] = sobel_lumaw(load_pixw(src, src_pitch, xa + 4, y, width));
    }
#pragma unroll
    for (int i = 0; i < PY; ++i) {
        const int y = y0 + i;
        if (y >= height) break;
        pixw_t o[4];
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            const float m = sobel_mag(z[i], z[i + 1], z[i + 2], c);
            o[c] = grey_to_pixw(m, QW_PIX(centre[i], c));
        }
        store_quadw(dst, dst_pitch, xa, y, width, (quadw_t)(o[0], o[1], o[2], o[3]));
    }
}
#endif  // WK
#else
#if defined(WK) && WK
#error "sobel: WK needs QW"
#endif
__kernel void sobel_apply(__global const uchar* src, int src_pitch, __global uchar* dst,
                          int dst_pitch, int width, int height) {
    const int xa = (int)get_global_id(0) * 4;
    const int y0 = (int)get_global_id(1) * PY;
    if (xa >= width || y0 >= height) return;

    float z[PY + 2][6];  // lumas of pixels xa - 1 .. xa + 4 of rows y0 - 1 ...
    quad_t centre[PY];
#pragma unroll
    for (int j = 0; j < PY + 2; ++j) {
        const int y = clamp_y(y0 - 1 + j, height);
        const quad_t l = load_quad(src, src_pitch, xa - 4, y, width);
        const quad_t m = load_quad(src, src_pitch, xa, y, width);
        const quad_t r = load_quad(src, src_pitch, xa + 4, y, width);
        if (j >= 1 && j < 1 + PY) centre[j - 1] = m;
        z[j][0] = sobel_luma(l.hi.hi);
        z[j][1] = sobel_luma(m.lo.lo);
        z[j][2] = sobel_luma(m.lo.hi);
        z[j][3] = sobel_luma(m.hi.lo);
        z[j][4] = sobel_luma(m.hi.hi);
        z[j][5] = sobel_luma(r.lo.lo);
    }
#pragma unroll
    for (int i = 0; i < PY; ++i) {
        const int y = y0 + i;
        if (y >= height) break;
        pix_t o[4];
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            const float m = sobel_mag(z[i], z[i + 1], z[i + 2], c);
            o[c] = float_to_pix((float4)(m, m, m, 0.0f));
        }
        o[0].w = centre[i].lo.lo.w;
        o[1].w = centre[i].lo.hi.w;
        o[2].w = centre[i].hi.lo.w;
        o[3].w = centre[i].hi.hi.w;
        store_quad(dst, dst_pitch, xa, y, width, (quad_t)(o[0], o[1], o[2], o[3]));
    }
}
#endif  // QW
