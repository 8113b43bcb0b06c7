// blacklevel=black=B:white=W: out = clamp((in - B) / (W - B), 0, 1), B and W in code values of
// the source's bit depth. The host gives them in pixel units of the working depth: black =
// B / (2^bits - 1) * PIX_MAX, scale = PIX_MAX / (W' - B'), so out = (in - black) * scale.
// -DMONO=1: a mosaic (every sample); else RGBA (R, G, B; alpha copied). Round to nearest even,
// saturate.

__kernel void blacklevel(__global const uchar* src, int src_pitch, __global uchar* dst,
                         int dst_pitch, int width, int height, float black, float scale) {
    const int x = (int)get_global_id(0);
    const int y = (int)get_global_id(1);
    if (!in_frame(x, y, width, height)) return;
#if MONO
    const float v = (load_mono(src, src_pitch, x, y) - black) * scale;
    store_mono(dst, dst_pitch, x, y, clamp(v, 0.0f, PIX_MAX));
#else
    const pix_t p = load_pix(src, src_pitch, x, y);
    float4 v = (pix_to_float(p) - (float4)(black)) * scale;
    v = clamp(v, 0.0f, PIX_MAX);
    pix_t out = float_to_pix(v);
    out.w = p.w;
    store_pix(dst, dst_pitch, x, y, out);
#endif
}
