// median=radius=R (R = 1: 3x3, R = 2: 5x5): per-channel median of the clamp-to-edge window.
// Built with -DRADIUS=1 or -DRADIUS=2. R, G, B (and, unused, A) are sorted as one vector by a
// branch-free network of compare-exchanges (min/max only): 3x3 is the classic 19-exchange
// median network, 5x5 Devillard's 99-exchange network (Paeth / Smith); both verified
// exhaustively by the 0-1 principle. The window is read from a local-memory tile with a
// RADIUS-pixel apron, loaded cooperatively. Alpha is the centre pixel's.
// Arguments: src, src_pitch, width, height, dst, dst_pitch, tile ((lw + 2R) x (lh + 2R) pix_t).

#ifndef RADIUS
#define RADIUS 1
#endif
#if RADIUS != 1 && RADIUS != 2
#error "median: RADIUS must be 1 or 2"
#endif

// Compare-exchange: afterwards a <= b in every lane.
#define MED_CX(a, b)                  \
    {                                 \
        const pix_t lo_ = min(p[a], p[b]); \
        p[b] = max(p[a], p[b]);       \
        p[a] = lo_;                   \
    }

#define MED_NET9                                                                              \
    MED_CX(1, 2) MED_CX(4, 5) MED_CX(7, 8) MED_CX(0, 1) MED_CX(3, 4) MED_CX(6, 7) MED_CX(1, 2) \
    MED_CX(4, 5) MED_CX(7, 8) MED_CX(0, 3) MED_CX(5, 8) MED_CX(4, 7) MED_CX(3, 6) MED_CX(1, 4) \
    MED_CX(2, 5) MED_CX(4, 7) MED_CX(4, 2) MED_CX(6, 4) MED_CX(4, 2)

#define MED_NET25                                                                                \
    MED_CX(0, 1) MED_CX(3, 4) MED_CX(2, 4) MED_CX(2, 3) MED_CX(6, 7) MED_CX(5, 7) MED_CX(5, 6)   \
    MED_CX(9, 10) MED_CX(8, 10) MED_CX(8, 9) MED_CX(12, 13) MED_CX(11, 13) MED_CX(11, 12)        \
    MED_CX(15, 16) MED_CX(14, 16) MED_CX(14, 15) MED_CX(18, 19) MED_CX(17, 19) MED_CX(17, 18)    \
    MED_CX(21, 22) MED_CX(20, 22) MED_CX(20, 21) MED_CX(23, 24) MED_CX(2, 5) MED_CX(3, 6)        \
    MED_CX(0, 6) MED_CX(0, 3) MED_CX(4, 7) MED_CX(1, 7) MED_CX(1, 4) MED_CX(11, 14)              \
    MED_CX(8, 14) MED_CX(8, 11) MED_CX(12, 15) MED_CX(9, 15) MED_CX(9, 12) MED_CX(13, 16)        \
    MED_CX(10, 16) MED_CX(10, 13) MED_CX(20, 23) MED_CX(17, 23) MED_CX(17, 20) MED_CX(21, 24)    \
    MED_CX(18, 24) MED_CX(18, 21) MED_CX(19, 22) MED_CX(8, 17) MED_CX(9, 18) MED_CX(0, 18)       \
    MED_CX(0, 9) MED_CX(10, 19) MED_CX(1, 19) MED_CX(1, 10) MED_CX(11, 20) MED_CX(2, 20)         \
    MED_CX(2, 11) MED_CX(12, 21) MED_CX(3, 21) MED_CX(3, 12) MED_CX(13, 22) MED_CX(4, 22)        \
    MED_CX(4, 13) MED_CX(14, 23) MED_CX(5, 23) MED_CX(5, 14) MED_CX(15, 24) MED_CX(6, 24)        \
    MED_CX(6, 15) MED_CX(7, 16) MED_CX(7, 19) MED_CX(13, 21) MED_CX(15, 23) MED_CX(7, 13)        \
    MED_CX(7, 15) MED_CX(1, 9) MED_CX(3, 11) MED_CX(5, 17) MED_CX(11, 17) MED_CX(9, 17)          \
    MED_CX(4, 10) MED_CX(6, 12) MED_CX(7, 14) MED_CX(4, 6) MED_CX(4, 7) MED_CX(12, 14)           \
    MED_CX(10, 14) MED_CX(6, 7) MED_CX(10, 12) MED_CX(6, 10) MED_CX(6, 17) MED_CX(12, 17)        \
    MED_CX(7, 17) MED_CX(7, 10) MED_CX(12, 18) MED_CX(7, 12) MED_CX(10, 18) MED_CX(12, 20)       \
    MED_CX(10, 20) MED_CX(10, 12)

#define MED_D (2 * RADIUS + 1)
#define MED_N (MED_D * MED_D)

__kernel void median(__global const uchar* src, int src_pitch, int width, int height,
                     __global uchar* dst, int dst_pitch, __local pix_t* tile) {
    const int lx = (int)get_local_id(0);
    const int ly = (int)get_local_id(1);
    const int lw = (int)get_local_size(0);
    const int tw = lw + 2 * RADIUS;
    load_tile(src, src_pitch, width, height, tile, RADIUS);
    const int x = (int)get_global_id(0);
    const int y = (int)get_global_id(1);
    if (!in_frame(x, y, width, height)) return;

    pix_t p[MED_N];
    for (int dy = 0; dy < MED_D; ++dy)
        for (int dx = 0; dx < MED_D; ++dx) p[dy * MED_D + dx] = tile[(ly + dy) * tw + lx + dx];
#if RADIUS == 1
    MED_NET9
#else
    MED_NET25
#endif
    pix_t out = p[MED_N / 2];
    out.w = tile[(ly + RADIUS) * tw + lx + RADIUS].w;
    store_pix(dst, dst_pitch, x, y, out);
}
