// mosaic=pattern=P: RGBA -> a one-channel Bayer mosaic of the same depth (sensor simulation):
// site (x, y) keeps the channel the pattern puts there. Exact (no arithmetic).

__kernel void mosaic(__global const uchar* src, int src_pitch, __global uchar* dst, int dst_pitch,
                     int width, int height, int cfa) {
    const int x = (int)get_global_id(0);
    const int y = (int)get_global_id(1);
    if (!in_frame(x, y, width, height)) return;
    const pix_t p = load_pix(src, src_pitch, x, y);
    const int site = cfa_at(cfa, x, y);
    const mono_t v = site == 0 ? p.x : site == 1 ? p.y : p.z;
    *(__global mono_t*)(dst + (size_t)y * (size_t)dst_pitch + (size_t)x * sizeof(mono_t)) = v;
}
