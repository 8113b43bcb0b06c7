// gamma=curve={power,srgb}:value=G on normalised values x = in / PIX_MAX:
//   power: x^(1/G);  srgb: 12.92 x for x <= 0.0031308, else 1.055 x^(1/2.4) - 0.055.
// A function of one stored value, so a table lookup: `table` holds PIX_MAX + 1 entries, the
// stored value (rounded to nearest even, saturated) of the curve of each value, in the working
// depth's type (computed in double precision by the host, see engine/compute/filters_isp.cpp).
// A mosaic: every sample; RGBA: R, G, B (alpha copied). A point-wise operation
// (engine/compute/pointwise.hpp) that takes the stored values as they are (its table's
// indices) and gives stored values (exact).
inline float4 gamma_rgba(pix_t q, int x, int y, __global const mono_t* table) {
    return (float4)((float)table[q.x], (float)table[q.y], (float)table[q.z], 0.0f);
}
inline float gamma_mono(mono_t q, int x, int y, __global const mono_t* table) {
    return (float)table[q];
}
