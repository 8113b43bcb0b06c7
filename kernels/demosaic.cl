// demosaic=method={mhc,bilinear}:pattern=P: a Bayer mosaic (mono8/mono16) -> RGBA of the same
// depth. mhc: Malvar-He-Cutler 5x5 linear filters (2004); bilinear: the average of the nearest
// 2 or 4 samples of the missing colour. Borders mirror without repeating the edge pixel
// (reflect-101: -1 -> 1, w -> w-2), which keeps the Bayer phase. The filter weights are
// multiples of 1/16 and the sums stay below 2^24, so the float sums are exact (in any order);
// the result is rounded to nearest even and saturated. Alpha = max.
//
// Build options: -DCFA=<cfa_at code> -DMETHOD=<0 mhc | 1 bilinear> -DPY=<rows per work-item,
// even> -DPX=<pixels per row of a work-item: 4, 8 or 16>. Each work-item makes a block of
// PX x PY pixels at (PX gx, PY gy): it reads the (PX + 4) x (PY + 4) samples around it and
// writes each row of PX pixels as PX / 4 aligned quad stores (a quad past the right edge is
// skipped, the last one clipped). Away from the left and right edges a row is read with aligned
// vector loads: PX 4: three 4-sample loads; PX 8/16: one aligned PX-sample load plus a 2-sample
// load on each side (the apron). Near the edges: reflected single loads. The block starts on even coordinates, so every pixel's Bayer site is a compile-time
// constant: no branches on the site, no per-sample reflection in the interior.
// Global traffic: 1 sample read (L1/L2 absorb the (PY + 4) / PY row overlap) + 1 pixel written.
// -DQW=1|2 (common.h's quads as words): each pixel is built as its word (float_to_pixw, alpha
// max) and each quad written as one 16 / 32-byte store.
// Arguments: src, src_pitch, dst, dst_pitch, width, height.

#ifndef PY
#define PY 2
#endif
#ifndef PX
#define PX 4
#endif
#if PX != 4 && PX != 8 && PX != 16
#error "demosaic: PX must be 4, 8 or 16"
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
