// bilateral=sigma_s=S:sigma_r=R: window radius r = ceil(2S), clamp to edge.
//   w(q) = exp(-d^2 / 2S^2) * exp(-dY^2 / 2R^2),   out = sum w(q) rgb(q) / sum w(q)
// d^2 = dx^2 + dy^2; dY = Y(q) - Y(centre), Y the BT.709 luma (0.2126 R + 0.7152 G + 0.0722 B)
// on 0..1. The spatial weights (unnormalised, centre 1) come from the host in `ws`
// ((2r+1)^2 floats, row-major); `k_range` = 1 / (2 R^2 PIX_MAX^2), so dY is taken in pixel
// units straight from the (exact) channel differences. One weight averages R, G and B; the
// centre's weight is 1, so the sum is never 0. Sums are accumulated per window row, then
// added (keeps float error well under 1 LSB at r = 16). Alpha passed through.
// Arguments: src, src_pitch, width, height, dst, dst_pitch, tile ((lw + 2r) x (lh + 2r) pix_t),
// ws, r, k_range.

__kernel void bilateral(__global const uchar* src, int src_pitch, int width, int height,
                        __global uchar* dst, int dst_pitch, __local pix_t* tile,
                        __constant float* ws, int r, float k_range) {
    const int lx = (int)get_local_id(0);
    const int ly = (int)get_local_id(1);
    const int lw = (int)get_local_size(0);
    const int tw = lw + 2 * r;
    load_tile(src, src_pitch, width, height, tile, r);
    const int x = (int)get_global_id(0);
    const int y = (int)get_global_id(1);
    if (!in_frame(x, y, width, height)) return;

    const pix_t cp = tile[(ly + r) * tw + lx + r];
    const float4 c = pix_to_float(cp);
    const int d = 2 * r + 1;
    float4 sum = (float4)(0.0f);
    float wsum = 0.0f;
    for (int dy = 0; dy < d; ++dy) {
        __local const pix_t* row = tile + (ly + dy) * tw + lx;
        __constant const float* wrow = ws + dy * d;
        float4 rsum = (float4)(0.0f);
        float rw = 0.0f;
        for (int dx = 0; dx < d; ++dx) {
            const float4 q = pix_to_float(row[dx]);
            const float4 t = q - c;  // exact: integers below 2^17
            const float dl = 0.2126f * t.x + 0.7152f * t.y + 0.0722f * t.z;
            const float w = wrow[dx] * exp(-(dl * dl) * k_range);
            rsum += w * q;
            rw += w;
        }
        sum += rsum;
        wsum += rw;
    }
    pix_t out = float_to_pix(sum / wsum);
    out.w = cp.w;
    store_pix(dst, dst_pitch, x, y, out);
}
