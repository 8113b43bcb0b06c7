// wb=r=R:g=G:b=B:pattern=P: white-balance gains. A mosaic: each sample times the gain of its
// Bayer site's colour; RGBA: per channel (alpha copied). Round to nearest even, saturate.
// A point-wise operation (engine/compute/pointwise.hpp).
inline float4 wb_rgba(float4 v, int x, int y, float gr, float gg, float gb, int cfa) {
    return v * (float4)(gr, gg, gb, 1.0f);
}
inline float wb_mono(float v, int x, int y, float gr, float gg, float gb, int cfa) {
    const int site = cfa_at(cfa, x, y);
    const float gain = site == 0 ? gr : site == 1 ? gg : gb;
    return v * gain;
}
