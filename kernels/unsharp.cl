// unsharp=sigma=S:amount=A: out = in + A (in - gaussian_S(in)) per channel, saturated.
// The blur's horizontal pass is gaussian.cl's gaussian_h; this vertical pass finishes the blur
// and combines it with the input in one step (the blur never leaves float). Alpha passed through.

__kernel void unsharp_v(__global const float4* tmp, int width, int height, __constant float* wt,
                        int r, __local float4* tile, __global const uchar* src, int src_pitch,
                        __global uchar* dst, int dst_pitch, float amount) {
    const float4 blur = sep_pass_v(tmp, width, height, wt, r, tile);
    const int x = (int)get_global_id(0);
    const int y = (int)get_global_id(1);
    if (!in_frame(x, y, width, height)) return;
    const pix_t p = load_pix(src, src_pitch, x, y);
    const float4 v = pix_to_float(p);
    pix_t out = float_to_pix(v + amount * (v - blur));
    out.w = p.w;
    store_pix(dst, dst_pitch, x, y, out);
}
