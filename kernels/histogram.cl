// histogram: 256 bins each of R, G, B and BT.709 luma (the binning of Histogram in
// engine/compute/processor.hpp: 8-bit value v -> bin v, 16-bit -> (v + 128) / 257; luma =
// (13933 R + 46871 G + 4732 B + 32768) >> 16 of the bins). Counts go to a work-group's local
// histogram with local atomics, then to the global one (zeroed by the host) with one global
// atomic per non-zero bin. -DMONO=1: a mosaic, counted as R = G = B.
//   histogram: the `histogram` filter; the frame passes unchanged (copied to dst).
//   histogram_count: counts only (the processor's before/after histograms for the overlay).

inline uint bin_of(uint v) {
#if WORK16
    return (v + 128u) / 257u;
#else
    return v;
#endif
}

inline void zero_local_counts(__local uint* local_counts, int lid, int lsize) {
    for (int i = lid; i < 1024; i += lsize) local_counts[i] = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
}

inline void count_bins(__local uint* local_counts, uint r, uint g, uint b) {
    const uint l = (13933u * r + 46871u * g + 4732u * b + 32768u) >> 16;
    atomic_inc(&local_counts[r]);
    atomic_inc(&local_counts[256u + g]);
    atomic_inc(&local_counts[512u + b]);
    atomic_inc(&local_counts[768u + l]);
}

inline void merge_counts(__local uint* local_counts, __global uint* counts, int lid, int lsize) {
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = lid; i < 1024; i += lsize) {
        const uint c = local_counts[i];
        if (c != 0u) atomic_add(&counts[i], c);
    }
}

__kernel void histogram(__global const uchar* src, int src_pitch, __global uchar* dst,
                        int dst_pitch, int width, int height, __global uint* counts,
                        __local uint* local_counts) {
    const int x = (int)get_global_id(0);
    const int y = (int)get_global_id(1);
    const int lid = (int)(get_local_id(1) * get_local_size(0) + get_local_id(0));
    const int lsize = (int)(get_local_size(0) * get_local_size(1));
    zero_local_counts(local_counts, lid, lsize);
    if (in_frame(x, y, width, height)) {
        uint r, g, b;
#if MONO
        const mono_t m =
            *(__global const mono_t*)(src + (size_t)y * (size_t)src_pitch + (size_t)x * sizeof(mono_t));
        *(__global mono_t*)(dst + (size_t)y * (size_t)dst_pitch + (size_t)x * sizeof(mono_t)) = m;
        r = g = b = bin_of((uint)m);
#else
        const pix_t p = load_pix(src, src_pitch, x, y);
        store_pix(dst, dst_pitch, x, y, p);
        r = bin_of((uint)p.x);
        g = bin_of((uint)p.y);
        b = bin_of((uint)p.z);
#endif
        count_bins(local_counts, r, g, b);
    }
    merge_counts(local_counts, counts, lid, lsize);
}

__kernel void histogram_count(__global const uchar* src, int src_pitch, int width, int height,
                              __global uint* counts, __local uint* local_counts) {
    const int x = (int)get_global_id(0);
    const int y = (int)get_global_id(1);
    const int lid = (int)(get_local_id(1) * get_local_size(0) + get_local_id(0));
    const int lsize = (int)(get_local_size(0) * get_local_size(1));
    zero_local_counts(local_counts, lid, lsize);
    if (in_frame(x, y, width, height)) {
#if MONO
        const uint v = bin_of((uint)*(__global const mono_t*)(src + (size_t)y * (size_t)src_pitch +
                                                              (size_t)x * sizeof(mono_t)));
        count_bins(local_counts, v, v, v);
#else
        const pix_t p = load_pix(src, src_pitch, x, y);
        count_bins(local_counts, bin_of((uint)p.x), bin_of((uint)p.y), bin_of((uint)p.z));
#endif
    }
    merge_counts(local_counts, counts, lid, lsize);
}
