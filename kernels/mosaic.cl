// mosaic=pattern=P: RGBA -> a one-channel Bayer mosaic of the same depth (sensor simulation):
// site (x, y) keeps the channel the pattern puts there. Exact (no arithmetic).
// Build options: -DCFA=<cfa_at code> -DPY=<rows per work-item>. Each work-item converts a
// block of 4 x PY pixels at (4 gx, PY gy): one vector load and one 4-sample store per row (the
// sites of a block are compile-time constants when PY is even; with PY = 1 the row parity is
// the work-item's). Global traffic: 1 pixel read + 1 sample written.
// -DQW=1 (common.h's quads as words): the quad is loaded as one 16 / 32-byte word load and the
// channel taken out with a shift and a mask (no arithmetic: QW=2 would be the same code).
// Arguments: src, src_pitch, dst, dst_pitch, width, height.

#ifndef PY
#define PY 1
#endif
#ifndef CFA
#define CFA 148
#endif

#if WORK16
typedef ushort4 mono4_t;
#else
typedef uchar4 mono4_t;
#endif

inline mono_t pick(pix_t p, int site) { return site == 0 ? p.x : site == 1 ? p.y : p.z; }
#if QW
inline mono_t pick_w(pixw_t w, int site) {
    const uint4 c = pixw_channels(w);
    return (mono_t)(site == 0 ? c.x : site == 1 ? c.y : c.z);
}
#endif

__kernel void mosaic(__global const uchar* src, int src_pitch, __global uchar* dst, int dst_pitch,
                     int width, int height) {
    const int xa = (int)get_global_id(0) * 4;
    const int y0 = (int)get_global_id(1) * PY;
    if (xa >= width || y0 >= height) return;
#pragma unroll
    for (int j = 0; j < PY; ++j) {
        const int y = y0 + j;
        if (y >= height) break;
#if QW
        const quadw_t q = load_quadw(src, src_pitch, xa, y, width);
        const mono4_t m = (mono4_t)(pick_w(QW_PIX(q, 0), cfa_at(CFA, 0, y)),
                                    pick_w(QW_PIX(q, 1), cfa_at(CFA, 1, y)),
                                    pick_w(QW_PIX(q, 2), cfa_at(CFA, 0, y)),
                                    pick_w(QW_PIX(q, 3), cfa_at(CFA, 1, y)));
#else
        const quad_t q = load_quad(src, src_pitch, xa, y, width);
        const mono4_t m =
            (mono4_t)(pick(q.lo.lo, cfa_at(CFA, 0, y)), pick(q.lo.hi, cfa_at(CFA, 1, y)),
                      pick(q.hi.lo, cfa_at(CFA, 0, y)), pick(q.hi.hi, cfa_at(CFA, 1, y)));
#endif
        __global uchar* row = dst + (size_t)y * (size_t)dst_pitch;
        if (xa + 3 < width) {
            *(__global mono4_t*)(row + (size_t)xa * sizeof(mono_t)) = m;
        } else {
            __global mono_t* r = (__global mono_t*)row;
            r[xa] = m.x;
            if (xa + 1 < width) r[xa + 1] = m.y;
            if (xa + 2 < width) r[xa + 2] = m.z;
        }
    }
}
