// grayscale: R = G = B = BT.709 luma 0.2126 R + 0.7152 G + 0.0722 B (of the stored values),
// rounded to nearest even. Alpha passed through.

__kernel void grayscale_apply(__global const uchar* src, int src_pitch, __global uchar* dst,
                              int dst_pitch, int width, int height) {
    const int x = (int)get_global_id(0);
    const int y = (int)get_global_id(1);
    if (!in_frame(x, y, width, height)) return;
    const pix_t p = load_pix(src, src_pitch, x, y);
    const float4 v = pix_to_float(p);
    const float l = 0.2126f * v.x + 0.7152f * v.y + 0.0722f * v.z;
    pix_t out = float_to_pix((float4)(l, l, l, 0.0f));
    out.w = p.w;
    store_pix(dst, dst_pitch, x, y, out);
}
