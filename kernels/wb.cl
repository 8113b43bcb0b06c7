// wb=r=R:g=G:b=B:pattern=P: white-balance gains. -DMONO=1: a mosaic, each sample times the gain
// of its Bayer site's colour; else RGBA, per channel (alpha copied). Round to nearest even,
// saturate.

__kernel void wb(__global const uchar* src, int src_pitch, __global uchar* dst, int dst_pitch,
                 int width, int height, float gr, float gg, float gb, int cfa) {
    const int x = (int)get_global_id(0);
    const int y = (int)get_global_id(1);
    if (!in_frame(x, y, width, height)) return;
#if MONO
    const int site = cfa_at(cfa, x, y);
    const float gain = site == 0 ? gr : site == 1 ? gg : gb;
    store_mono(dst, dst_pitch, x, y, load_mono(src, src_pitch, x, y) * gain);
#else
    const pix_t p = load_pix(src, src_pitch, x, y);
    pix_t out = float_to_pix(pix_to_float(p) * (float4)(gr, gg, gb, 1.0f));
    out.w = p.w;
    store_pix(dst, dst_pitch, x, y, out);
#endif
}
