// sharpen=radius=R:amount=A (R = 1 or 2): out = in + A (in - box_R(in)) per channel, where
// box_R is the unrounded mean of the (2R+1)^2 window, clamp to edge. Rounded to nearest even,
// saturated; alpha passed through. One pass over a local tile with an R-pixel apron; the window
// sum is exact in float (at most 25 * 65535 < 2^24).

__kernel void sharpen_apply(__global const uchar* src, int src_pitch, __global uchar* dst,
                            int dst_pitch, int width, int height, int r, float amount,
                            __local float4* tile) {
    const int lx = (int)get_local_id(0);
    const int ly = (int)get_local_id(1);
    const int lw = (int)get_local_size(0);
    const int lh = (int)get_local_size(1);
    const int tw = lw + 2 * r;
    const int th = lh + 2 * r;
    const int x0 = (int)get_group_id(0) * lw - r;
    const int y0 = (int)get_group_id(1) * lh - r;
    for (int i = ly * lw + lx; i < tw * th; i += lw * lh) {
        const int ty = i / tw;
        const int tx = i - ty * tw;
        tile[i] = pix_to_float(
            load_pix(src, src_pitch, clamp_x(x0 + tx, width), clamp_y(y0 + ty, height)));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    float4 sum = (float4)(0.0f);
    for (int dy = 0; dy <= 2 * r; ++dy)
        for (int dx = 0; dx <= 2 * r; ++dx) sum += tile[(ly + dy) * tw + lx + dx];
    const int x = (int)get_global_id(0);
    const int y = (int)get_global_id(1);
    if (!in_frame(x, y, width, height)) return;
    const float n = (float)((2 * r + 1) * (2 * r + 1));
    const pix_t p = load_pix(src, src_pitch, x, y);
    const float4 v = pix_to_float(p);
    pix_t out = float_to_pix(v + amount * (v - sum / n));
    out.w = p.w;
    store_pix(dst, dst_pitch, x, y, out);
}
