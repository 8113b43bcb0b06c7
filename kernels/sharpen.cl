// sharpen=radius=R:amount=A (R = 1 or 2): out = in + A (in - box_R(in)) per channel, where
// box_R is the unrounded mean of the (2R+1)^2 window, clamp to edge. Rounded to nearest even,
// saturated; alpha passed through. The window sum is exact in float (at most 25 * 65535 <
// 2^24), so summing rows first gives the same result as any order.
// Build options: -DRADIUS=R -DPY=rows per work-item. Each work-item makes a block of 4 x PY
// pixels at (4 gx, PY gy): per input row, three aligned quads (vector loads; L1/L2 absorb the
// overlap between blocks) give the 4 horizontal sums, each row's sums serve every window of
// the block holding that row. No local memory, no barriers. Global traffic: 1 pixel read + 1
// written. Arguments: src, src_pitch, dst, dst_pitch, width, height, amount.
// -DQW=1|2 (common.h's quads as words): the same arithmetic on raw pixel words (quads as one
// uint4 / uint8 access, channels by shifts and masks, values exactly convert_float4's, the
// result rounded and saturated as float_to_pix and packed with the input's alpha); the
// no-local-memory path then loads only the R pixels left and right of the block as single
// words instead of whole quads. The same frame.

#ifndef RADIUS
#define RADIUS 1
#endif
#ifndef PY
#define PY 4
#endif

#if defined(LM) && LM
// Local-memory version (-DLM=1 -DLX=.. -DLY=..; work-group LX x LY, 4 x PY per work-item): the
// group's tile (4 LX x LY PY, + R rows above and below, clamped, + 1 quad left and right)
// comes into __local once as aligned quads; the horizontal sums are made ONCE per tile row and
// quad column into __local (column 4 q + c at c LX + q), then each work-item adds its vertical
// windows from __local. The sums are of integers below 2^24, exact in float in any order, so
// the frame is the same as sharpen_apply's below.
#define SL_TQ (LX + 2)               // staged quads per row
#define SL_TH (LY * PY)              // output rows per tile
#define SL_ROWS (SL_TH + 2 * RADIUS) // input rows per tile
#define SL_TW (4 * LX)               // output columns per tile

__kernel __attribute__((reqd_work_group_size(LX, LY, 1))) void sharpen_apply(
    __global const uchar* src, int src_pitch, __global uchar* dst, int dst_pitch, int width,
    int height, float amount) {
#if QW
    __local quadw_t in_t[SL_ROWS * SL_TQ];
#else
    __local quad_t in_t[SL_ROWS * SL_TQ];
#endif
    __local float4 h_t[SL_ROWS * SL_TW];
    const int lx = (int)get_local_id(0);
    const int ly = (int)get_local_id(1);
    const int tx = (int)get_group_id(0) * SL_TW;
    const int ty = (int)get_group_id(1) * SL_TH;
    for (int i = ly * LX + lx; i < SL_ROWS * SL_TQ; i += LX * LY) {
        const int row = i / SL_TQ;
        const int q = i - row * SL_TQ;
#if QW
        in_t[i] = load_quadw(src, src_pitch, tx + 4 * (q - 1), clamp_y(ty - RADIUS + row, height),
                             width);
#else
        in_t[i] = load_quad(src, src_pitch, tx + 4 * (q - 1), clamp_y(ty - RADIUS + row, height),
                            width);
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int row = ly; row < SL_ROWS; row += LY) {
#if QW
        const quadw_t l = in_t[row * SL_TQ + lx];
        const quadw_t m = in_t[row * SL_TQ + lx + 1];
        const quadw_t r = in_t[row * SL_TQ + lx + 2];
        float4 p[12];
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            p[c] = pixw_to_float(QW_PIX(l, c));
            p[4 + c] = pixw_to_float(QW_PIX(m, c));
            p[8 + c] = pixw_to_float(QW_PIX(r, c));
        }
#else
        const quad_t l = in_t[row * SL_TQ + lx];
        const quad_t m = in_t[row * SL_TQ + lx + 1];
        const quad_t r = in_t[row * SL_TQ + lx + 2];
        float4 p[12] = {convert_float4(l.lo.lo), convert_float4(l.lo.hi), convert_float4(l.hi.lo),
                        convert_float4(l.hi.hi), convert_float4(m.lo.lo), convert_float4(m.lo.hi),
                        convert_float4(m.hi.lo), convert_float4(m.hi.hi), convert_float4(r.lo.lo),
                        convert_float4(r.lo.hi), convert_float4(r.hi.lo), convert_float4(r.hi.hi)};
#endif
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            float4 s = p[4 + c - RADIUS];
#pragma unroll
            for (int k = 1 - RADIUS; k <= RADIUS; ++k) s += p[4 + c + k];
            h_t[row * SL_TW + c * LX + lx] = s;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    const int xa = tx + 4 * lx;
    if (xa >= width) return;
    const float n = (float)((2 * RADIUS + 1) * (2 * RADIUS + 1));
#pragma unroll
    for (int i = 0; i < PY; ++i) {
        const int t = ly * PY + i;
        const int y = ty + t;
        if (y >= height) break;
#if QW
        const quadw_t centre = in_t[(t + RADIUS) * SL_TQ + lx + 1];
        pixw_t o[4];
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            float4 sum = h_t[t * SL_TW + c * LX + lx];
#pragma unroll
            for (int k = 1; k <= 2 * RADIUS; ++k) sum += h_t[(t + k) * SL_TW + c * LX + lx];
            const pixw_t pin = QW_PIX(centre, c);
            const float4 v = pixw_to_float(pin);
            o[c] = float_to_pixw(v + amount * (v - sum / n), pin);
        }
        store_quadw(dst, dst_pitch, xa, y, width, (quadw_t)(o[0], o[1], o[2], o[3]));
#else
        const quad_t centre = in_t[(t + RADIUS) * SL_TQ + lx + 1];
        pix_t o[4];
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            float4 sum = h_t[t * SL_TW + c * LX + lx];
#pragma unroll
            for (int k = 1; k <= 2 * RADIUS; ++k) sum += h_t[(t + k) * SL_TW + c * LX + lx];
            const pix_t pin = c == 0   ? centre.lo.lo
                              : c == 1 ? centre.lo.hi
                              : c == 2 ? centre.hi.lo
                                       : centre.hi.hi;
            const float4 v = pix_to_float(pin);
            o[c] = float_to_pix(v + amount * (v - sum / n));
            o[c].w = pin.w;
        }
        store_quad(dst, dst_pitch, xa, y, width, (quad_t)(o[0], o[1], o[2], o[3]));
#endif
    }
}
#elif QW
// Pixel x (clamped) of row y as its word.
inline pixw_t sh_pixw(__global const uchar* src, int pitch, int x, int y, int width) {
    return *(__global const pixw_t*)(src + (size_t)y * (size_t)pitch +
                                     (size_t)clamp_x(x, width) * sizeof(pix_t));
}

__kernel void sharpen_apply(__global const uchar* src, int src_pitch, __global uchar* dst,
                            int dst_pitch, int width, int height, float amount) {
    const int xa = (int)get_global_id(0) * 4;
    const int y0 = (int)get_global_id(1) * PY;
    if (xa >= width || y0 >= height) return;

    float4 h[PY + 2 * RADIUS][4];  // horizontal window sums of rows y0 - R ...
    quadw_t centre[PY];
#pragma unroll
    for (int j = 0; j < PY + 2 * RADIUS; ++j) {
        const int y = clamp_y(y0 - RADIUS + j, height);
        const quadw_t m = load_quadw(src, src_pitch, xa, y, width);
        if (j >= RADIUS && j < RADIUS + PY) centre[j - RADIUS] = m;
        float4 p[4 + 2 * RADIUS];  // pixels xa - R .. xa + 3 + R
#pragma unroll
        for (int t = 0; t < RADIUS; ++t) {
            p[t] = pixw_to_float(sh_pixw(src, src_pitch, xa - RADIUS + t, y, width));
            p[4 + RADIUS + t] = pixw_to_float(sh_pixw(src, src_pitch, xa + 4 + t, y, width));
        }
#pragma unroll
        for (int c = 0; c < 4; ++c) p[RADIUS + c] = pixw_to_float(QW_PIX(m, c));
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            float4 s = p[c];  // the same order as below: pixel xa + c - R first
#pragma unroll
            for (int k = 1; k <= 2 * RADIUS; ++k) s += p[c + k];
            h[j][c] = s;
        }
    }
    const float n = (float)((2 * RADIUS + 1) * (2 * RADIUS + 1));
#pragma unroll
    for (int i = 0; i < PY; ++i) {
        const int y = y0 + i;
        if (y >= height) break;
        pixw_t o[4];
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            float4 sum = h[i][c];
#pragma unroll
            for (int k = 1; k <= 2 * RADIUS; ++k) sum += h[i + k][c];
            const pixw_t pin = QW_PIX(centre[i], c);
            const float4 v = pixw_to_float(pin);
            o[c] = float_to_pixw(v + amount * (v - sum / n), pin);
        }
        store_quadw(dst, dst_pitch, xa, y, width, (quadw_t)(o[0], o[1], o[2], o[3]));
    }
}
#else
__kernel void sharpen_apply(__global const uchar* src, int src_pitch, __global uchar* dst,
                            int dst_pitch, int width, int height, float amount) {
    const int xa = (int)get_global_id(0) * 4;
    const int y0 = (int)get_global_id(1) * PY;
    if (xa >= width || y0 >= height) return;

    float4 h[PY + 2 * RADIUS][4];  // horizontal window sums of rows y0 - R ...
    quad_t centre[PY];
#pragma unroll
    for (int j = 0; j < PY + 2 * RADIUS; ++j) {
        const int y = clamp_y(y0 - RADIUS + j, height);
        const quad_t l = load_quad(src, src_pitch, xa - 4, y, width);
        const quad_t m = load_quad(src, src_pitch, xa, y, width);
        const quad_t r = load_quad(src, src_pitch, xa + 4, y, width);
        if (j >= RADIUS && j < RADIUS + PY) centre[j - RADIUS] = m;
        float4 p[12] = {convert_float4(l.lo.lo), convert_float4(l.lo.hi), convert_float4(l.hi.lo),
                        convert_float4(l.hi.hi), convert_float4(m.lo.lo), convert_float4(m.lo.hi),
                        convert_float4(m.hi.lo), convert_float4(m.hi.hi), convert_float4(r.lo.lo),
                        convert_float4(r.lo.hi), convert_float4(r.hi.lo), convert_float4(r.hi.hi)};
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            float4 s = p[4 + c - RADIUS];
#pragma unroll
            for (int k = 1 - RADIUS; k <= RADIUS; ++k) s += p[4 + c + k];
            h[j][c] = s;
        }
    }
    const float n = (float)((2 * RADIUS + 1) * (2 * RADIUS + 1));
#pragma unroll
    for (int i = 0; i < PY; ++i) {
        const int y = y0 + i;
        if (y >= height) break;
        pix_t o[4];
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            float4 sum = h[i][c];
#pragma unroll
            for (int k = 1; k <= 2 * RADIUS; ++k) sum += h[i + k][c];
            const pix_t pin = c == 0   ? centre[i].lo.lo
                              : c == 1 ? centre[i].lo.hi
                              : c == 2 ? centre[i].hi.lo
                                       : centre[i].hi.hi;
            const float4 v = pix_to_float(pin);
            o[c] = float_to_pix(v + amount * (v - sum / n));
            o[c].w = pin.w;
        }
        store_quad(dst, dst_pitch, xa, y, width, (quad_t)(o[0], o[1], o[2], o[3]));
    }
}
#endif  // LM
