// bilateral=sigma_s=S:sigma_r=R: window radius r = ceil(2S), clamp to edge.
//   w(q) = Ws(dx, dy) Wr(L(q) - L(centre)),   out = sum w(q) rgb(q) / sum w(q)
// Ws(dx, dy) = exp(-(dx^2 + dy^2) / 2S^2) and Wr(d) = exp(-(d / BL_STEPS)^2 / 2R^2) are tables
// the host computes in double precision and rounds to float (ws: (2r+1)^2 floats, row-major;
// rt: Wr(|d|) at |d| = 0 .. BL_STEPS, made 0 where Wr min(Ws) < 2 FLT_MIN, so that no weight
// and no sum is ever a subnormal, which a device may flush). L is the BT.709 luma in steps of
// 1 / BL_STEPS of the range (8 bits: 1/16 of a level; the host passes -DBL_STEPS):
// rint(fma(c0, R, fma(c1, G, c2 B))) with c = (0.2126, 0.7152, 0.0722) BL_STEPS / PIX_MAX as
// floats (host: lc), computed once per loaded pixel. w = Ws Wr (one rounding); the sums are
// fma() chains in a fixed order and the quotient is correctly rounded (the program is built with
// -cl-fp32-correctly-rounded-divide-sqrt where the device offers it: PoCL and NVIDIA do), then
// rounded to nearest even: every step is one correctly rounded IEEE operation, so every
// conforming device gives the same frame from the same tables (NVIDIA's exp2 and division are
// within a few ulp, and made 1-LSB differences before the tables; the tables come from the
// host's libm, whose exp may differ between hosts in a last bit). The centre's weight is
// exactly 1, so the sum is never 0. Sums are accumulated per window row,
// then added (keeps float error well under 1 LSB at r = 16). Alpha passed through.
//
// Build options: -DRADIUS=r -DPY=rows per work-item. Each work-item makes a block of 4 x PY
// pixels at (4 gx, PY gy): it walks down the PY + 2r rows its windows cover; per row the
// 4 + 2r pixels come in as aligned quads (vector loads, L1/L2 absorb the overlap between
// blocks), are converted once (R, G, B and L), and serve every window of the block that holds
// that row. The group first copies rt into __local (16 KB; one table lookup per tap, by the
// byte offset 4 |L(q) - L(centre)|: no conversion, no exp2). Global traffic: 1 pixel read + 1
// written (+ the table, from L2, once per group).
// Arguments: src, src_pitch, dst, dst_pitch, width, height, ws, rt, lc.

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

#ifndef BL_STEPS
#error "bilateral: the host passes -DBL_STEPS (the luma steps over the range, see L above)"
#endif
#define BL_RT ((BL_STEPS + 4) / 4 * 4)  // rt's floats: BL_STEPS + 1, padded to whole float4

// R, G, B in pixel units, and 4 (L + 2^23) mod 2^32 = 0x2C000000 + 4 L as the bits of w (the
// float 2^23 + L holds L in its low bits): the distance of two such is the byte offset of
// Wr(|L(q) - L(c)|) in rt.
inline float4 bl_pix(pix_t p, float4 lc) {
    const float4 v = convert_float4(p);
    const float l = fma(lc.x, v.x, fma(lc.y, v.y, lc.z * v.z));
    return (float4)(v.x, v.y, v.z, as_float(as_uint(l + 8388608.0f) << 2));
}

__kernel void bilateral(__global const uchar* src, int src_pitch, __global uchar* dst,
                        int dst_pitch, int width, int height, __constant float* ws,
                        __global const float4* rt, float4 lc) {
    __local float4 rtl[BL_RT / 4];
    const int lid = (int)(get_local_id(1) * get_local_size(0) + get_local_id(0));
    const int lsize = (int)(get_local_size(0) * get_local_size(1));
    for (int i = lid; i < BL_RT / 4; i += lsize)
        rtl[i] = rt[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    __local const uchar* wr0 = (__local const uchar*)rtl;  // Wr(d) at byte offset 4 d
    const int xa = (int)get_global_id(0) * 4;
    const int y0 = (int)get_global_id(1) * PY;
    if (xa >= width || y0 >= height) return;

    uint yc[PY][4];
    float3 sum[PY][4];
    float wsum[PY][4];
#pragma unroll
    for (int i = 0; i < PY; ++i) {
        const quad_t q = load_quad(src, src_pitch, xa, clamp_y(y0 + i, height), width);
        yc[i][0] = as_uint(bl_pix(q.lo.lo, lc).w);
        yc[i][1] = as_uint(bl_pix(q.lo.hi, lc).w);
        yc[i][2] = as_uint(bl_pix(q.hi.lo, lc).w);
        yc[i][3] = as_uint(bl_pix(q.hi.hi, lc).w);
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            sum[i][c] = (float3)(0.0f);
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
            p[4 * q] = bl_pix(v.lo.lo, lc);
            p[4 * q + 1] = bl_pix(v.lo.hi, lc);
            p[4 * q + 2] = bl_pix(v.hi.lo, lc);
            p[4 * q + 3] = bl_pix(v.hi.hi, lc);
        }
#pragma unroll
        for (int i = 0; i < PY; ++i) {
            const int dy = j - i;  // this row's index in output row i's window
            if (dy < 0 || dy >= BL_D) continue;
            __constant const float* srow = ws + dy * BL_D;
#pragma unroll
            for (int c = 0; c < 4; ++c) {
                float3 rs = (float3)(0.0f);
                float rw = 0.0f;
#pragma unroll
                for (int dx = 0; dx < BL_D; ++dx) {
                    const float4 q = p[BL_OFF + c + dx];
                    const float w =
                        srow[dx] * *(__local const float*)(wr0 + abs_diff(as_uint(q.w), yc[i][c]));
                    rs = fma((float3)(w), q.xyz, rs);
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
        for (int c = 0; c < 4; ++c)
            o[c] = float_to_pix((float4)(sum[i][c] / wsum[i][c], 0.0f));
        o[0].w = in.lo.lo.w;
        o[1].w = in.lo.hi.w;
        o[2].w = in.hi.lo.w;
        o[3].w = in.hi.hi.w;
        store_quad(dst, dst_pitch, xa, y, width, (quad_t)(o[0], o[1], o[2], o[3]));
    }
}
