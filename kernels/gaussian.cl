// gaussian=sigma=S: separable Gaussian blur, radius ceil(3S), taps exp(-x^2 / 2S^2) normalised
// (computed on the host), clamp to edge. R, G, B filtered; alpha passed through.
// Pass 1 (gaussian_h): working format -> float4 scratch (width elements per row).
// Pass 2 (gaussian_v): scratch -> working format, rounded to nearest even, saturated.

__kernel void gaussian_h(__global const uchar* src, int src_pitch, int width, int height,
                         __constant float* wt, int r, __local float4* tile,
                         __global float4* dst) {
    const float4 sum = sep_pass_h(src, src_pitch, width, height, wt, r, tile);
    const int x = (int)get_global_id(0);
    const int y = (int)get_global_id(1);
    if (in_frame(x, y, width, height)) dst[(size_t)y * (size_t)width + (size_t)x] = sum;
}

__kernel void gaussian_v(__global const float4* tmp, int width, int height, __constant float* wt,
                         int r, __local float4* tile, __global const uchar* src, int src_pitch,
                         __global uchar* dst, int dst_pitch) {
    const float4 sum = sep_pass_v(tmp, width, height, wt, r, tile);
    const int x = (int)get_global_id(0);
    const int y = (int)get_global_id(1);
    if (!in_frame(x, y, width, height)) return;
    pix_t out = float_to_pix(sum);
    out.w = load_pix(src, src_pitch, x, y).w;
    store_pix(dst, dst_pitch, x, y, out);
}
