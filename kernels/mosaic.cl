// mosaic=pattern=P: RGBA -> a one-channel Bayer mosaic of the same depth (sensor simulation):
// site (x, y) keeps the channel the pattern puts there. Exact (no arithmetic).

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

__kernel void mosaic(__global const uchar* src, int src_pitch, __global uchar* dst, int dst_pitch,
                     int width, int height, int cfa) {
    const int x = (int)get_global_id(0);
    const int y = (int)get_global_id(1);
    if (!in_frame(x, y, width, height)) return;
    const pix_t p = load_pix(src, src_pitch, x, y);
    const int site = cfa_at(cfa, x, y);
    const mono_t v = site == 0 ? p.x : site == 1 ? p.y : p.z;
    *(__global mono_t*)(dst + (size_t)y * (size_t)dst_pitch + (size_t)x * sizeof(mono_t)) = v;
}
