// The processor's mosaic path (engine/compute/processor.cpp), not a filter:
//   gray_to_mono: a one-channel source plane -> mono working format (mono8/mono16, see
//     core/format.hpp), computed exactly as convert.cl's gray layout computes R (= G = B).
//   mono_to_rgba: mono -> RGBA working format of the same depth as grey (R = G = B, alpha max),
//     for a mosaic still at the end of a chain.
// -DSRC16: 2-byte source samples. -DWORK16: 16-bit working depth.

#if SRC16
typedef ushort gsample_t;
#else
typedef uchar gsample_t;
#endif

__kernel void gray_to_mono(__global const uchar* src, uint off, int pitch, __global uchar* dst,
                           int dst_pitch, int width, int height, int shift, float yscale) {
    const int x = (int)get_global_id(0);
    const int y = (int)get_global_id(1);
    if (!in_frame(x, y, width, height)) return;
    __global const gsample_t* row =
        (__global const gsample_t*)(src + (size_t)off + (size_t)y * (size_t)pitch);
    const float l = clamp((float)((uint)row[x] >> shift) * yscale, 0.0f, 1.0f);
    *(__global mono_t*)(dst + (size_t)y * (size_t)dst_pitch + (size_t)x * sizeof(mono_t)) =
        convert_mono_sat_rte(l * PIX_MAX);
}

__kernel void mono_to_rgba(__global const uchar* src, int src_pitch, __global uchar* dst,
                           int dst_pitch, int width, int height) {
    const int x = (int)get_global_id(0);
    const int y = (int)get_global_id(1);
    if (!in_frame(x, y, width, height)) return;
    const mono_t v =
        *(__global const mono_t*)(src + (size_t)y * (size_t)src_pitch + (size_t)x * sizeof(mono_t));
    pix_t p;
    p.x = v;
    p.y = v;
    p.z = v;
    p.w = (mono_t)PIX_MAX;
    store_pix(dst, dst_pitch, x, y, p);
}
