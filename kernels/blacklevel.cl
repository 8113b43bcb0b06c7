// blacklevel=black=B:white=W: out = clamp((in - B) / (W - B), 0, 1), B and W in code values of
// the source's bit depth. The host gives them in pixel units of the working depth: black =
// B / (2^bits - 1) * PIX_MAX, scale = PIX_MAX / (W' - B'), so out = (in - black) * scale.
// -DMONO=1: a mosaic (every sample); else RGBA (R, G, B; alpha copied). Round to nearest even,
// saturate.

// One-channel (mosaic) working format, the depth of WORK16 (core/format.hpp: mono8/mono16).
#if WORK16
typedef ushort mono_t;
#define convert_mono_sat_rte convert_ushort_sat_rte
#else
typedef uchar mono_t;
#define convert_mono_sat_rte convert_uchar_sat_rte
#endif
inline float load_mono(__global const uchar* base, int pitch, int x, int y) {
    return (float)*(__global const mono_t*)(base + (size_t)y * (size_t)pitch +
                                            (size_t)x * sizeof(mono_t));
}
inline void store_mono(__global uchar* base, int pitch, int x, int y, float v) {
    *(__global mono_t*)(base + (size_t)y * (size_t)pitch + (size_t)x * sizeof(mono_t)) =
        convert_mono_sat_rte(v);
}
// Colour (0 R, 1 G, 2 B) of Bayer site (x, y): `cfa` packs the 2x2 pattern, 2 bits per site,
// site (x & 1) + 2 (y & 1) (rggb: 0 | 1 << 2 | 1 << 4 | 2 << 6).
inline int cfa_at(int cfa, int x, int y) { return (cfa >> (2 * ((x & 1) + 2 * (y & 1)))) & 3; }

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
