// gamma=curve={power,srgb}:value=G on normalised values x = in / PIX_MAX:
//   power: x^(1/G);  srgb: 12.92 x for x <= 0.0031308, else 1.055 x^(1/2.4) - 0.055.
// A function of one stored value, so a table lookup: `table` holds PIX_MAX + 1 entries, the
// stored value (rounded to nearest even, saturated) of the curve of each value, in the working
// depth's type (computed in double precision by the host, see engine/compute/filters_isp.cpp),
// in global memory or, 8-bit, its work-group's copy in __local memory (VFX_TABLE_AS: the
// generated kernel's LT, engine/compute/pointwise.cpp).
// A mosaic: every sample; RGBA: R, G, B (alpha copied). A point-wise operation
// (engine/compute/pointwise.hpp) from stored values (its table's indices) to stored values.
inline uint4 gamma_rgba(uint4 s, int x, int y, VFX_TABLE_AS const mono_t* table) {
    return (uint4)(table[s.x], table[s.y], table[s.z], 0u);
}
inline uint gamma_mono(uint s, int x, int y, VFX_TABLE_AS const mono_t* table) {
    return table[s];
}
