// sepia: the usual matrix on the stored R, G, B values, rounded to nearest even and saturated:
//   R' = 0.393 R + 0.769 G + 0.189 B
//   G' = 0.349 R + 0.686 G + 0.168 B
//   B' = 0.272 R + 0.534 G + 0.131 B
// Alpha passed through.

__kernel void sepia_apply(__global const uchar* src, int src_pitch, __global uchar* dst,
                          int dst_pitch, int width, int height) {
    const int x = (int)get_global_id(0);
    const int y = (int)get_global_id(1);
    if (!in_frame(x, y, width, height)) return;
    const pix_t p = load_pix(src, src_pitch, x, y);
    const float4 v = pix_to_float(p);
    float4 o;
    o.x = 0.393f * v.x + 0.769f * v.y + 0.189f * v.z;
    o.y = 0.349f * v.x + 0.686f * v.y + 0.168f * v.z;
    o.z = 0.272f * v.x + 0.534f * v.y + 0.131f * v.z;
    o.w = 0.0f;
    pix_t out = float_to_pix(o);
    out.w = p.w;
    store_pix(dst, dst_pitch, x, y, out);
}
