// ccm=matrix=a|b|c|d|e|f|g|h|i: (R, G, B) <- M (R, G, B), M row-major, in pixel units. Alpha
// copied. Round to nearest even, saturate.

__kernel void ccm(__global const uchar* src, int src_pitch, __global uchar* dst, int dst_pitch,
                  int width, int height, float4 r0, float4 r1, float4 r2) {
    const int x = (int)get_global_id(0);
    const int y = (int)get_global_id(1);
    if (!in_frame(x, y, width, height)) return;
    const pix_t p = load_pix(src, src_pitch, x, y);
    const float4 v = pix_to_float(p);
    const float4 o = (float4)(r0.x * v.x + r0.y * v.y + r0.z * v.z,
                              r1.x * v.x + r1.y * v.y + r1.z * v.z,
                              r2.x * v.x + r2.y * v.y + r2.z * v.z, v.w);
    pix_t out = float_to_pix(o);
    out.w = p.w;
    store_pix(dst, dst_pitch, x, y, out);
}
