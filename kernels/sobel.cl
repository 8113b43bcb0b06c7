// sobel: gradient magnitude of BT.709 luma L = 0.2126 R + 0.7152 G + 0.0722 B (unrounded),
// 3x3 Sobel kernels, clamp to edge:
//   gx = (L(x+1,y-1) + 2 L(x+1,y) + L(x+1,y+1)) - (L(x-1,y-1) + 2 L(x-1,y) + L(x-1,y+1))
//   gy = (L(x-1,y+1) + 2 L(x,y+1) + L(x+1,y+1)) - (L(x-1,y-1) + 2 L(x,y-1) + L(x+1,y-1))
//   R = G = B = sqrt(gx^2 + gy^2) / 4, rounded to nearest even, saturated; alpha passed through.
// One pass over a local tile of luma with a 1-pixel apron.

__kernel void sobel_apply(__global const uchar* src, int src_pitch, __global uchar* dst,
                          int dst_pitch, int width, int height, __local float* tile) {
    const int lx = (int)get_local_id(0);
    const int ly = (int)get_local_id(1);
    const int lw = (int)get_local_size(0);
    const int lh = (int)get_local_size(1);
    const int tw = lw + 2;
    const int th = lh + 2;
    const int x0 = (int)get_group_id(0) * lw - 1;
    const int y0 = (int)get_group_id(1) * lh - 1;
    for (int i = ly * lw + lx; i < tw * th; i += lw * lh) {
        const int ty = i / tw;
        const int tx = i - ty * tw;
        const float4 v = pix_to_float(
            load_pix(src, src_pitch, clamp_x(x0 + tx, width), clamp_y(y0 + ty, height)));
        tile[i] = 0.2126f * v.x + 0.7152f * v.y + 0.0722f * v.z;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    __local const float* t = tile + ly * tw + lx;  // top-left of this pixel's 3x3
    const float z00 = t[0], z01 = t[1], z02 = t[2];
    const float z10 = t[tw], z12 = t[tw + 2];
    const float z20 = t[2 * tw], z21 = t[2 * tw + 1], z22 = t[2 * tw + 2];
    const float gx = (z02 + 2.0f * z12 + z22) - (z00 + 2.0f * z10 + z20);
    const float gy = (z20 + 2.0f * z21 + z22) - (z00 + 2.0f * z01 + z02);
    const float m = sqrt(gx * gx + gy * gy) * 0.25f;
    const int x = (int)get_global_id(0);
    const int y = (int)get_global_id(1);
    if (!in_frame(x, y, width, height)) return;
    const pix_t p = load_pix(src, src_pitch, x, y);
    pix_t out = float_to_pix((float4)(m, m, m, 0.0f));
    out.w = p.w;
    store_pix(dst, dst_pitch, x, y, out);
}
