// ccm=matrix=a|b|c|d|e|f|g|h|i: (R, G, B) <- M (R, G, B), M row-major, in pixel units. Alpha
// copied. Each row a chain of fused multiply-adds (each rounded once, the same on every device).
// Round to nearest even, saturate. A point-wise operation (engine/compute/pointwise.hpp).
inline float4 ccm_rgba(float4 v, int x, int y, float4 r0, float4 r1, float4 r2) {
    return (float4)(fma(r0.x, v.x, fma(r0.y, v.y, r0.z * v.z)),
                    fma(r1.x, v.x, fma(r1.y, v.y, r1.z * v.z)),
                    fma(r2.x, v.x, fma(r2.y, v.y, r2.z * v.z)), 0.0f);
}
