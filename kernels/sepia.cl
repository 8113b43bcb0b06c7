// sepia: the usual matrix on the stored R, G, B values, rounded to nearest even and saturated:
//   R' = 0.393 R + 0.769 G + 0.189 B
//   G' = 0.349 R + 0.686 G + 0.168 B
//   B' = 0.272 R + 0.534 G + 0.131 B
// Each row a chain of fused multiply-adds (each rounded once, the same on every device). Alpha
// passed through. A point-wise operation (engine/compute/pointwise.hpp).
inline float4 sepia_rgba(float4 v, int x, int y) {
    float4 o;
    o.x = fma(0.393f, v.x, fma(0.769f, v.y, 0.189f * v.z));
    o.y = fma(0.349f, v.x, fma(0.686f, v.y, 0.168f * v.z));
    o.z = fma(0.272f, v.x, fma(0.534f, v.y, 0.131f * v.z));
    o.w = 0.0f;
    return o;
}
