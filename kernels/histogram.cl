// histogram: 256 bins each of R, G, B and BT.709 luma (the binning of Histogram in
// engine/compute/processor.hpp: 8-bit value v -> bin v, 16-bit -> (v + 128) / 257; luma =
// (13933 R + 46871 G + 4732 B + 32768) >> 16 of the bins). -DMONO=1: a mosaic, counted as
// R = G = B.
//   histogram: the `histogram` filter; the frame passes unchanged (copied to dst).
//   histogram_count: counts only (the processor's before/after histograms for the overlay).
//
// Launch: a fixed grid of work-groups (the host picks a few per compute unit, at most one per
// row; any 2D work-group shape), not one work-item per pixel. Group g takes rows g, g + G,
// g + 2G ...; its work-items walk each row 4 pixels at a time (one aligned vector load per
// quad: rows start on 256-byte boundaries). Counts go to HIST_COPIES interleaved local
// sub-histograms (bin b of copy k at b * HIST_COPIES + k, k = local id % HIST_COPIES: work-items
// of one warp that meet the same value mostly hit different words, in different banks), and
// once per group each bin's copies are summed and added to the global histogram (zeroed by the
// host) with one atomic per non-zero bin: G x 1024 global atomics a frame at most, instead of
// one group's worth per 256 pixels.

#ifndef HIST_COPIES
#define HIST_COPIES 4
#endif
#define HIST_WORDS (1024 * HIST_COPIES)
#if WORK16
typedef ushort4 mono4_t;
#else
typedef uchar4 mono4_t;
#endif

inline uint bin_of(uint v) {
#if WORK16
    return (v + 128u) / 257u;
#else
    return v;
#endif
}

inline void count_bins(__local uint* h, uint r, uint g, uint b) {
    const uint l = (13933u * r + 46871u * g + 4732u * b + 32768u) >> 16;
    atomic_inc(&h[r * HIST_COPIES]);
    atomic_inc(&h[(256u + g) * HIST_COPIES]);
    atomic_inc(&h[(512u + b) * HIST_COPIES]);
    atomic_inc(&h[(768u + l) * HIST_COPIES]);
}

inline void count_pix(__local uint* h, pix_t p) {
    count_bins(h, bin_of((uint)p.x), bin_of((uint)p.y), bin_of((uint)p.z));
}

inline void count_mono(__local uint* h, mono_t m) {
    const uint v = bin_of((uint)m);
    count_bins(h, v, v, v);
}

// Counts rows group, group + groups ... of the frame into `counts`; copies them to dst when
// `copy`.
inline void count_frame(__global const uchar* src, int src_pitch, __global uchar* dst,
                        int dst_pitch, int width, int height, __global uint* counts,
                        __local uint* local_counts, bool copy) {
    const int lid = (int)(get_local_id(1) * get_local_size(0) + get_local_id(0));
    const int lsize = (int)(get_local_size(0) * get_local_size(1));
    const int group = (int)(get_group_id(1) * get_num_groups(0) + get_group_id(0));
    const int groups = (int)(get_num_groups(0) * get_num_groups(1));
    for (int i = lid; i < HIST_WORDS; i += lsize) local_counts[i] = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    __local uint* h = local_counts + lid % HIST_COPIES;
    const int quads = (width + 3) / 4;
    for (int y = group; y < height; y += groups) {
        __global const uchar* srow = src + (size_t)y * (size_t)src_pitch;
        __global uchar* drow = dst + (size_t)y * (size_t)dst_pitch;
        for (int q = lid; q < quads; q += lsize) {
            const int xa = 4 * q;
#if MONO
            if (xa + 3 < width) {
                const size_t off = (size_t)xa * sizeof(mono_t);
                const mono4_t m = vload4(0, (__global const mono_t*)(srow + off));
                if (copy) vstore4(m, 0, (__global mono_t*)(drow + off));
                count_mono(h, m.x);
                count_mono(h, m.y);
                count_mono(h, m.z);
                count_mono(h, m.w);
            } else {
                for (int x = xa; x < width; ++x) {
                    const size_t off = (size_t)x * sizeof(mono_t);
                    const mono_t m = *(__global const mono_t*)(srow + off);
                    if (copy) *(__global mono_t*)(drow + off) = m;
                    count_mono(h, m);
                }
            }
#else
            const quad_t v = load_quad(src, src_pitch, xa, y, width);
            if (copy) store_quad(dst, dst_pitch, xa, y, width, v);
            count_pix(h, v.lo.lo);
            if (xa + 1 < width) count_pix(h, v.lo.hi);
            if (xa + 2 < width) count_pix(h, v.hi.lo);
            if (xa + 3 < width) count_pix(h, v.hi.hi);
#endif
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = lid; i < 1024; i += lsize) {
        uint c = 0u;
#pragma unroll
        for (int k = 0; k < HIST_COPIES; ++k) c += local_counts[i * HIST_COPIES + k];
        if (c != 0u) atomic_add(&counts[i], c);
    }
}

__kernel void histogram(__global const uchar* src, int src_pitch, __global uchar* dst,
                        int dst_pitch, int width, int height, __global uint* counts) {
    __local uint local_counts[HIST_WORDS];
    count_frame(src, src_pitch, dst, dst_pitch, width, height, counts, local_counts, true);
}

__kernel void histogram_count(__global const uchar* src, int src_pitch, int width, int height,
                              __global uint* counts) {
    __local uint local_counts[HIST_WORDS];
    count_frame(src, src_pitch, (__global uchar*)src, src_pitch, width, height, counts,
                local_counts, false);
}
