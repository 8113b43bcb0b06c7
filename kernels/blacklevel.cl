// blacklevel=black=B:white=W: out = clamp((in - B) / (W - B), 0, 1), B and W in code values of
// the source's bit depth. The host gives them in pixel units of the working depth: black =
// B / (2^bits - 1) * PIX_MAX, scale = PIX_MAX / (W' - B'), so out = (in - black) * scale.
// A mosaic: every sample; RGBA: R, G, B (alpha copied). Round to nearest even, saturate.
// A point-wise operation (engine/compute/pointwise.hpp).
inline float4 blacklevel_rgba(float4 v, int x, int y, float black, float scale) {
    return clamp((v - (float4)(black)) * scale, 0.0f, PIX_MAX);
}
inline float blacklevel_mono(float v, int x, int y, float black, float scale) {
    return clamp((v - black) * scale, 0.0f, PIX_MAX);
}
