// histogram: 256 bins each of R, G, B and BT.709 luma (the binning of Histogram in
// engine/compute/processor.hpp: 8-bit value v -> bin v, 16-bit -> (v + 128) / 257; luma =
// (13933 R + 46871 G + 4732 B + 32768) >> 16 of the bins). -DMONO=1: a mosaic, counted as
// R = G = B.
//   histogram: the `histogram` filter's copy form (dst != src); the frame passes unchanged.
//   histogram_count: counts only (the filter observing a chain's frame, dst == src, and the
//   processor's before/after histograms for the overlay).
// Both add into `counts` (4 x 256 words, R G B luma, zeroed by the host).
//
// Build options: -DHX, -DHY (the work-group shape, required), -DHR (rows per work-item),
// -DHU (rows loaded together; HR a multiple of HU). Work-item (gx, gy) takes the quad of 4
// pixels at x = 4 gx of rows HR gy .. HR gy + HR - 1: a warp's 32 work-items read 32 adjacent
// quads of a row, one aligned 16-byte (RGBA8) load each, HU rows of them before the first is
// counted.
//
// Counting without bank conflicts: the group's counts live in __local as bytes, one word per
// (bin, slot), slot = local id % 32 (a warp's lane on NVIDIA), its four bytes the counts of R,
// G, B and luma in that bin. A lane adds 1 << (8 c) to word (bin, its slot): the 32 lanes of
// a warp's add always reach 32 different banks, whatever the frame holds (a flat area, where
// every lane counts the same value, included). The adds are atomic because the group's warps
// share the slots. A byte holds 255 counts, so every FLUSH_ROWS rows (as many as the slot's
// work-items can count without reaching 256) the group folds the bytes into 32-bit totals held
// in registers, each work-item those of its own bins, and clears them; at the end each
// work-item adds its totals to `counts` with one global atomic per non-zero count.

#ifndef HX
#define HX 32
#endif
#ifndef HY
#define HY 4
#endif
#ifndef HR
#define HR 16
#endif
#ifndef HU
#define HU 4
#endif
#if HR % HU
#error "histogram: HR must be a multiple of HU"
#endif
#define HT (HX * HY)                    // work-items of a group
#define SLOTS 32
#define SHARE ((HT + SLOTS - 1) / SLOTS)  // work-items counting into one slot
#define FLUSH_ROWS (255 / (4 * SHARE))    // rows a work-item counts between flushes
#define FLUSH_CHUNKS (FLUSH_ROWS / HU)    // ... in loads of HU rows
#if FLUSH_CHUNKS < 1
#error "histogram: HU rows of 4 pixels overflow a slot's byte counts; lower HU or the group"
#endif
#define OWNED ((256 + HT - 1) / HT)  // bins whose totals a work-item keeps

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

inline void count_rgb(__local uint* slot, uint r, uint g, uint b) {
    const uint l = (13933u * r + 46871u * g + 4732u * b + 32768u) >> 16;
    atomic_add(slot + (r << 5), 1u);
    atomic_add(slot + (g << 5), 1u << 8);
    atomic_add(slot + (b << 5), 1u << 16);
    atomic_add(slot + (l << 5), 1u << 24);
}

// Pixel i (0..3) of quad q, counted into the slot's words.
inline void count_pixel(__local uint* slot, quadw_t q, int i) {
    const uint4 c = pixw_channels(QW_PIX(q, i));
    count_rgb(slot, bin_of(c.x), bin_of(c.y), bin_of(c.z));
}

// Folds the byte counts into the work-item's totals (R, G, B, luma of bins lid, lid + HT ...)
// and clears them. Every work-item of the group calls it.
inline void flush(__local uint* words, int lid, uint4* totals) {
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int k = 0; k < OWNED; ++k) {
        const int bin = lid + k * HT;
        if (bin < 256) {
            // Each sum of 32 bytes fits 16 bits: R and B in the halves of `even`, G and luma
            // in those of `odd`. Slots in rotated order: a warp's 32 bins, 32 banks.
            uint even = 0u, odd = 0u;
            for (int s = 0; s < SLOTS; ++s) {
                __local uint* p = words + (bin << 5) + ((s + bin) & (SLOTS - 1));
                const uint w = *p;
                *p = 0u;
                even += w & 0x00FF00FFu;
                odd += (w >> 8) & 0x00FF00FFu;
            }
            totals[k] += (uint4)(even & 0xFFFFu, odd & 0xFFFFu, even >> 16, odd >> 16);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

inline void count_frame(__global const uchar* src, int src_pitch, __global uchar* dst,
                        int dst_pitch, int width, int height, __global uint* counts,
                        __local uint* words, bool copy) {
    const int lid = (int)(get_local_id(1) * HX + get_local_id(0));
    for (int i = lid; i < 256 * SLOTS; i += HT) words[i] = 0u;
    uint4 totals[OWNED];
#pragma unroll
    for (int k = 0; k < OWNED; ++k) totals[k] = (uint4)(0u);
    barrier(CLK_LOCAL_MEM_FENCE);
    __local uint* slot = words + (lid & (SLOTS - 1));
    const int xa = 4 * (int)get_global_id(0);
    const int y0 = HR * (int)get_global_id(1);
    const int n = min(width - xa, 4);  // pixels of the quad inside the frame (< 1: none)
    for (int chunk = 0; chunk < HR / HU; ++chunk) {
        const int y = y0 + chunk * HU;
#if MONO
#if WORK16
        ushort4 m[HU];
#else
        uchar4 m[HU];
#endif
#pragma unroll
        for (int u = 0; u < HU; ++u)
            if (n > 0 && y + u < height) {
                __global const mono_t* row =
                    (__global const mono_t*)(src + (size_t)(y + u) * (size_t)src_pitch) + xa;
                if (n == 4) {
                    m[u] = vload4(0, row);
                } else {
                    m[u] = (mono4_t)(row[0]);
                    if (n > 1) m[u].y = row[1];
                    if (n > 2) m[u].z = row[2];
                }
            }
#pragma unroll
        for (int u = 0; u < HU; ++u)
            if (n > 0 && y + u < height) {
                if (copy) {
                    __global mono_t* row =
                        (__global mono_t*)(dst + (size_t)(y + u) * (size_t)dst_pitch) + xa;
                    if (n == 4) {
                        vstore4(m[u], 0, row);
                    } else {
                        row[0] = m[u].x;
                        if (n > 1) row[1] = m[u].y;
                        if (n > 2) row[2] = m[u].z;
                    }
                }
                // R = G = B = luma = v: one add of a 1 to each byte of word (v, slot).
                atomic_add(slot + (bin_of(m[u].x) << 5), 0x01010101u);
                if (n > 1) atomic_add(slot + (bin_of(m[u].y) << 5), 0x01010101u);
                if (n > 2) atomic_add(slot + (bin_of(m[u].z) << 5), 0x01010101u);
                if (n > 3) atomic_add(slot + (bin_of(m[u].w) << 5), 0x01010101u);
            }
#else
        quadw_t q[HU];
#pragma unroll
        for (int u = 0; u < HU; ++u)
            if (n > 0 && y + u < height) q[u] = load_quadw(src, src_pitch, xa, y + u, width);
#pragma unroll
        for (int u = 0; u < HU; ++u)
            if (n > 0 && y + u < height) {
                if (copy) store_quadw(dst, dst_pitch, xa, y + u, width, q[u]);
                count_pixel(slot, q[u], 0);
                if (n > 1) count_pixel(slot, q[u], 1);
                if (n > 2) count_pixel(slot, q[u], 2);
                if (n > 3) count_pixel(slot, q[u], 3);
            }
#endif
        // The same for every work-item of the group (barriers inside).
        if ((chunk + 1) % FLUSH_CHUNKS == 0 || chunk + 1 == HR / HU) flush(words, lid, totals);
    }
#pragma unroll
    for (int k = 0; k < OWNED; ++k) {
        const int bin = lid + k * HT;
        if (bin < 256) {
            if (totals[k].x) atomic_add(counts + bin, totals[k].x);
            if (totals[k].y) atomic_add(counts + 256 + bin, totals[k].y);
            if (totals[k].z) atomic_add(counts + 512 + bin, totals[k].z);
            if (totals[k].w) atomic_add(counts + 768 + bin, totals[k].w);
        }
    }
}

__kernel __attribute__((reqd_work_group_size(HX, HY, 1))) void histogram(
    __global const uchar* src, int src_pitch, __global uchar* dst, int dst_pitch, int width,
    int height, __global uint* counts) {
    __local uint words[256 * SLOTS];
    count_frame(src, src_pitch, dst, dst_pitch, width, height, counts, words, true);
}

__kernel __attribute__((reqd_work_group_size(HX, HY, 1))) void histogram_count(
    __global const uchar* src, int src_pitch, int width, int height, __global uint* counts) {
    __local uint words[256 * SLOTS];
    count_frame(src, src_pitch, (__global uchar*)src, src_pitch, width, height, counts, words,
                false);
}
