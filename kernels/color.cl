// color=brightness=B:contrast=C:saturation=S:hue=H, point-wise on R, G, B (alpha passed through).
// In unorm values v (0..1), with no clamping between the steps:
//   1. v1 = (v - 0.5) C + 0.5 + B                                   per channel
//   2. v2 = L + S (v1 - L),  L = 0.2126 R1 + 0.7152 G1 + 0.0722 B1   (BT.709 luma)
//   3. v3 = Rodrigues rotation of v2 by H degrees about k = (1,1,1)/sqrt(3):
//        v3 = v2 cos(H) + (k x v2) sin(H) + k (k . v2)(1 - cos(H))     (H > 0 turns red to green)
// then stored rounded to nearest even and saturated. All three steps are affine and each keeps
// grey (R = G = B) on the grey axis, so the host folds them into out = A v + b with one offset
// b = 0.5 - 0.5 C + B for every channel; here in pixel units: row_i = (A_i0, A_i1, A_i2, b*max).
// Each row as a chain of fused multiply-adds (each one rounded once, as IEEE fma is on every
// device, so the same frames everywhere; half the instructions of separate multiplies and adds).
// A point-wise operation (see engine/compute/pointwise.hpp).
inline float4 color_rgba(float4 v, int x, int y, float4 row_r, float4 row_g, float4 row_b) {
    float4 o;
    o.x = fma(row_r.x, v.x, fma(row_r.y, v.y, fma(row_r.z, v.z, row_r.w)));
    o.y = fma(row_g.x, v.x, fma(row_g.y, v.y, fma(row_g.z, v.z, row_g.w)));
    o.z = fma(row_b.x, v.x, fma(row_b.y, v.y, fma(row_b.z, v.z, row_b.w)));
    o.w = 0.0f;
    return o;
}
