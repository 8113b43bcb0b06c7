// gamma=curve={power,srgb}:value=G on normalised values x = in / PIX_MAX:
//   power: x^(1/G);  srgb: 12.92 x for x <= 0.0031308, else 1.055 x^(1/2.4) - 0.055.
// -DMONO=1: a mosaic; else RGBA (R, G, B; alpha copied). Round to nearest even, saturate.

// curve: 0 power, 1 srgb. inv = 1/G (power) or 1/2.4 (srgb).
inline float gamma_of(float v, int curve, float inv) {
    const float x = clamp(v * (1.0f / PIX_MAX), 0.0f, 1.0f);
    float o;
    if (curve == 1)
        o = x <= 0.0031308f ? 12.92f * x : 1.055f * powr(x, inv) - 0.055f;
    else
        o = powr(x, inv);
    return o * PIX_MAX;
}

__kernel void gamma_curve(__global const uchar* src, int src_pitch, __global uchar* dst,
                          int dst_pitch, int width, int height, int curve, float inv) {
    const int x = (int)get_global_id(0);
    const int y = (int)get_global_id(1);
    if (!in_frame(x, y, width, height)) return;
#if MONO
    store_mono(dst, dst_pitch, x, y, gamma_of(load_mono(src, src_pitch, x, y), curve, inv));
#else
    const pix_t p = load_pix(src, src_pitch, x, y);
    const float4 v = pix_to_float(p);
    pix_t out = float_to_pix((float4)(gamma_of(v.x, curve, inv), gamma_of(v.y, curve, inv),
                                      gamma_of(v.z, curve, inv), 0.0f));
    out.w = p.w;
    store_pix(dst, dst_pitch, x, y, out);
#endif
}
