// gamma=curve={power,srgb}:value=G on normalised values x = in / PIX_MAX:
//   power: x^(1/G);  srgb: 12.92 x for x <= 0.0031308, else 1.055 x^(1/2.4) - 0.055.
// A mosaic: every sample; RGBA: R, G, B (alpha copied). Round to nearest even, saturate.
// A point-wise operation (engine/compute/pointwise.hpp).

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
inline float4 gamma_rgba(float4 v, int x, int y, int curve, float inv) {
    return (float4)(gamma_of(v.x, curve, inv), gamma_of(v.y, curve, inv),
                    gamma_of(v.z, curve, inv), 0.0f);
}
inline float gamma_mono(float v, int x, int y, int curve, float inv) {
    return gamma_of(v, curve, inv);
}
