// blend=mode=M:opacity=A: the current frame (top, t) over the chain's input frame (base, b),
// normalised: m = t (normal), min(b + t, 1) (add), b t (multiply), 1 - (1 - b)(1 - t) (screen);
// out = b + A (m - b). Alpha of the current frame. -DBASE_MONO=1: the chain's input is a mosaic
// (mono of the same depth), used as grey (b = the sample for R, G and B). Round to nearest
// even, saturate.

// mode: 0 normal, 1 add, 2 multiply, 3 screen.
__kernel void blend(__global const uchar* src, int src_pitch, __global uchar* dst, int dst_pitch,
                    int width, int height, __global const uchar* base, int base_pitch, int mode,
                    float opacity) {
    const int x = (int)get_global_id(0);
    const int y = (int)get_global_id(1);
    if (!in_frame(x, y, width, height)) return;
    const pix_t p = load_pix(src, src_pitch, x, y);
    const float4 t = pix_to_unorm(p);
#if BASE_MONO
    const float4 b = (float4)(load_mono(base, base_pitch, x, y) * (1.0f / PIX_MAX));
#else
    const float4 b = pix_to_unorm(load_pix(base, base_pitch, x, y));
#endif
    float4 m;
    if (mode == 0)
        m = t;
    else if (mode == 1)
        m = min(b + t, 1.0f);
    else if (mode == 2)
        m = b * t;
    else
        m = 1.0f - (1.0f - b) * (1.0f - t);
    const float4 o = b + opacity * (m - b);
    pix_t out = unorm_to_pix(o);
    out.w = p.w;
    store_pix(dst, dst_pitch, x, y, out);
}
