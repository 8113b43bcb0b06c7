// wb=r=R:g=G:b=B:pattern=P: white-balance gains. -DMONO=1: a mosaic, each sample times the gain
// of its Bayer site's colour; else RGBA, per channel (alpha copied). Round to nearest even,
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

__kernel void wb(__global const uchar* src, int src_pitch, __global uchar* dst, int dst_pitch,
                 int width, int height, float gr, float gg, float gb, int cfa) {
    const int x = (int)get_global_id(0);
    const int y = (int)get_global_id(1);
    if (!in_frame(x, y, width, height)) return;
#if MONO
    const int site = cfa_at(cfa, x, y);
    const float gain = site == 0 ? gr : site == 1 ? gg : gb;
    store_mono(dst, dst_pitch, x, y, load_mono(src, src_pitch, x, y) * gain);
#else
    const pix_t p = load_pix(src, src_pitch, x, y);
    pix_t out = float_to_pix(pix_to_float(p) * (float4)(gr, gg, gb, 1.0f));
    out.w = p.w;
    store_pix(dst, dst_pitch, x, y, out);
#endif
}
