// bilateral=sigma_s=S:sigma_r=R: window radius r = ceil(2S), clamp to edge.
//   w(q) = exp(-d^2 / 2S^2) * exp(-dY^2 / 2R^2),   out = sum w(q) rgb(q) / sum w(q)
// d^2 = dx^2 + dy^2; dY = Y(q) - Y(centre), Y the BT.709 luma (0.2126 R + 0.7152 G + 0.0722 B)
// on 0..1. Evaluated as w = exp2(ls(dx, dy) - (Yq - Yc)^2 k2), with ls = log2 of the spatial
// weight (host, double precision: (2r+1)^2 floats, row-major) and k2 = log2(e) / (2 R^2
// PIX_MAX^2), Y in pixel units computed once per loaded pixel; the centre's weight is exactly
// 1, so the sum is never 0. Multiply-adds are explicit fma() (one correctly rounded operation). Sums are accumulated per window row, then added (keeps float error
// well under 1 LSB at r = 16). Alpha passed through.
//
// Build options: -DRADIUS=r -DPY=rows per work-item. Each work-item makes a block of 4 x PY
// pixels at (4 gx, PY gy): it walks down the PY + 2r rows its windows cover; per row the
// 4 + 2r pixels come in as aligned quads (vector loads, L1/L2 absorb the overlap between
// blocks), are converted once (R, G, B and Y), and serve every window of the block that holds
// that row. No local memory, no barriers. Global traffic: 1 pixel read + 1 written.
// Arguments: src, src_pitch, dst, dst_pitch, width, height, ls, k2.

#ifndef RADIUS
#define RADIUS 2
#endif
#ifndef PY
#define PY 1
#endif
#define BL_D (2 * RADIUS + 1)
#define BL_HALF ((RADIUS + 3) / 4)
#define BL_NQ (2 * BL_HALF + 1)
#define BL_OFF (4 * BL_HALF - RADIUS)  // index of pixel xa - r in a row's pixels

// R, G, B in pixel units and the luma Y (same units) in w.
inline float4 bl_pix(pix_t p) {
    const float4 v = convert_float4(p);
    return (float4)(v.x, v.y, v.z, 0.2126f * v.x + 0.7152f * v.y + 0.0722f * v.z);
}

__kernel void bilateral(__global const uchar* src, int src_pitch, __global uchar* dst,
                        int dst_pitch, int width, int height, __constant float* ls, float k2) {
    const int xa = (int)get_global_id(0) * 4;
    const int y0 = (int)get_global_id(1) * PY;
    if (xa >= width || y0 >= height) return;

    float yc[PY][4];
    float4 sum[PY][4];
    float wsum[PY][4];
#pragma unroll
    for (int i = 0; i < PY; ++i) {
        const quad_t q = load_quad(src, src_pitch, xa, clamp_y(y0 + i, height), width);
        yc[i][0] = bl_pix(q.lo.lo).w;
        yc[i][1] = bl_pix(q.lo.hi).w;
        yc[i][2] = bl_pix(q.hi.lo).w;
        yc[i][3] = bl_pix(q.hi.hi).w;
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            sum[i][c] = (float4)(0.0f);
            wsum[i][c] = 0.0f;
        }
    }

#pragma unroll 1
    for (int j = 0; j < PY + 2 * RADIUS; ++j) {
        const int y = clamp_y(y0 - RADIUS + j, height);
        float4 p[4 * BL_NQ];
#pragma unroll
        for (int q = 0; q < BL_NQ; ++q) {
            const quad_t v = load_quad(src, src_pitch, xa + 4 * (q - BL_HALF), y, width);
            p[4 * q] = bl_pix(v.lo.lo);
            p[4 * q + 1] = bl_pix(v.lo.hi);
            p[4 * q + 2] = bl_pix(v.hi.lo);
            p[4 * q + 3] = bl_pix(v.hi.hi);
        }
#pragma unroll
        for (int i = 0; i < PY; ++i) {
            const int dy = j - i;  // this row's index in output row i's window
            if (dy < 0 || dy >= BL_D) continue;
            __constant const float* lrow = ls + dy * BL_D;
#pragma unroll
            for (int c = 0; c < 4; ++c) {
                float4 rs = (float4)(0.0f);
                float rw = 0.0f;
#pragma unroll
                for (int dx = 0; dx < BL_D; ++dx) {
                    const float4 q = p[BL_OFF + c + dx];
                    const float dl = q.w - yc[i][c];
                    const float w = exp2(lrow[dx] - dl * dl * k2);
                    rs = fma((float4)(w), q, rs);
                    rw += w;
                }
                sum[i][c] += rs;
                wsum[i][c] += rw;
            }
        }
    }

#pragma unroll
    for (int i = 0; i < PY; ++i) {
        const int y = y0 + i;
        if (y >= height) break;
        const quad_t in = load_quad(src, src_pitch, xa, y, width);
        pix_t o[4];
#pragma unroll
        for (int c = 0; c < 4; ++c) o[c] = float_to_pix(sum[i][c] / wsum[i][c]);
        o[0].w = in.lo.lo.w;
        o[1].w = in.lo.hi.w;
        o[2].w = in.hi.lo.w;
        o[3].w = in.hi.hi.w;
        store_quad(dst, dst_pitch, xa, y, width, (quad_t)(o[0], o[1], o[2], o[3]));
    }
}
