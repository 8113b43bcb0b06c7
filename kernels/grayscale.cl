// grayscale: R = G = B = BT.709 luma 0.2126 R + 0.7152 G + 0.0722 B (of the stored values),
// rounded to nearest even. Alpha passed through. A point-wise operation
// (engine/compute/pointwise.hpp).
inline float4 grayscale_rgba(float4 v, int x, int y) {
    const float l = fma(0.2126f, v.x, fma(0.7152f, v.y, 0.0722f * v.z));  // the same everywhere
    return (float4)(l, l, l, 0.0f);
}
