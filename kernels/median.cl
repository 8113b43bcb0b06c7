// median=radius=R (R = 1: 3x3, R = 2: 5x5): per-channel median of the clamp-to-edge window.
// Built with -DRADIUS=1 or -DRADIUS=2 and -DPY=rows per work-item. R, G, B (and, unused, A)
// are handled as one vector by branch-free min/max networks; alpha is the centre pixel's.
//
// Each work-item makes a block of 4 x PY pixels at (4 gx, PY gy), sliding down its columns:
// per output row it sorts each of the 4 + 2R columns of the window rows once (shared by the
// up to 2R + 1 windows of the block that hold that column: 3 or 9 compare-exchanges), then
// each window's median comes from a selection network that assumes sorted columns
// (MED_SEL9: 12 min/max; MED_SEL25: 112 min/max, instead of the 19 / 99 compare-exchanges of
// the classic 3x3 network and Devillard's 5x5 one). The selection networks were derived from
// those classic networks by dropping every compare-exchange that is redundant on inputs with
// sorted columns and keeping only what the median needs, and checked exhaustively on every
// 0-1 input with sorted columns (the 0-1 principle holds for that input set, which monotone
// maps preserve); the derivation script is scripts/median_networks.py.
// Rows come in as aligned quads (vector loads; L1/L2 absorb the overlap between blocks); no
// local memory, no barriers. Global traffic: 1 pixel read + 1 written.
// -DQW=1|2 (common.h's quads as words): each quad is one 16 / 32-byte load or store of words.
// QW=1 sorts the channels as uint4 (pixw_channels / pixw_pack); QW=2 as ushort4 in 16-bit
// lanes (RGBA16: the words as they are; RGBA8: R B and G A spread to 16 bits by two masks), two
// channels per 32-bit register, which sm_90 can compare two at a time (min/max .u16x2). The
// medians are per channel, so every form gives the same frame.
// Arguments: src, src_pitch, dst, dst_pitch, width, height.

#ifndef RADIUS
#define RADIUS 1
#endif
#if RADIUS != 1 && RADIUS != 2
#error "median: RADIUS must be 1 or 2"
#endif
#ifndef PY
#define PY 2
#endif

// med_t: one pixel's channels as the selection networks sort them (alpha in .w); with QW,
// med_unpack / med_pack convert from / to the pixel word.
#if QW == 1
typedef uint4 med_t;
inline med_t med_unpack(pixw_t w) { return pixw_channels(w); }
inline pixw_t med_pack(med_t c) { return pixw_pack(c); }
#elif QW == 2
typedef ushort4 med_t;
#if WORK16
inline med_t med_unpack(pixw_t w) { return as_ushort4(w); }
inline pixw_t med_pack(med_t c) { return as_uint2(c); }
#else
inline med_t med_unpack(pixw_t w) {  // lanes R B G A
    return as_ushort4((uint2)(w & 0x00FF00FFu, (w >> 8) & 0x00FF00FFu));
}
inline pixw_t med_pack(med_t c) {
    const uint2 t = as_uint2(c);
    return t.x | (t.y << 8);
}
#endif
#else
typedef pix_t med_t;
#endif

#define MED_D (2 * RADIUS + 1)
#define MED_N (MED_D * MED_D)
#define MED_COLS (4 + 2 * RADIUS)

// On p[]: compare-exchange (afterwards p[a] <= p[b] in every lane), or only its min / max half.
#define MED_CX(a, b)                       \
    {                                      \
        const med_t lo_ = min(p[a], p[b]); \
        p[b] = max(p[a], p[b]);            \
        p[a] = lo_;                        \
    }
#define MED_MIN(a, b) p[a] = min(p[a], p[b]);
#define MED_MAX(a, b) p[b] = max(p[a], p[b]);

// The median p[MED_N / 2] of a window p[dy * MED_D + dx] whose columns are sorted (p[dx] <=
// p[MED_D + dx] <= ...).
#define MED_SEL9 \
    MED_CX(4, 5) MED_MIN(7, 8) MED_MAX(0, 1) MED_MAX(3, 4) MED_MIN(6, 7) MED_MAX(1, 2) \
    MED_MIN(4, 5) MED_CX(4, 2) MED_MAX(6, 4) MED_MIN(4, 2)

#define MED_SEL25 \
    MED_CX(6, 7) MED_CX(5, 7) MED_CX(9, 10) MED_CX(8, 10) MED_CX(8, 9) MED_CX(12, 13) \
    MED_CX(11, 13) MED_CX(11, 12) MED_CX(15, 16) MED_CX(14, 16) MED_CX(14, 15) MED_CX(18, 19) \
    MED_CX(17, 18) MED_CX(20, 21) MED_CX(2, 5) MED_CX(3, 6) MED_CX(0, 6) MED_CX(4, 7) \
    MED_CX(1, 4) MED_CX(11, 14) MED_CX(12, 15) MED_CX(9, 15) MED_CX(9, 12) MED_CX(10, 16) \
    MED_MIN(10, 13) MED_CX(20, 23) MED_CX(17, 20) MED_CX(18, 24) MED_MIN(18, 21) MED_CX(19, 22) \
    MED_MAX(8, 17) MED_CX(0, 18) MED_MAX(0, 9) MED_CX(10, 19) MED_MAX(2, 11) MED_MIN(4, 22) \
    MED_CX(5, 14) MED_MIN(15, 24) MED_CX(6, 15) MED_MIN(7, 16) MED_MIN(7, 19) MED_MIN(15, 23) \
    MED_MIN(7, 15) MED_MAX(1, 9) MED_MAX(3, 11) MED_MAX(5, 17) MED_MAX(11, 17) MED_MAX(9, 17) \
    MED_CX(4, 10) MED_CX(6, 12) MED_CX(7, 14) MED_CX(4, 6) MED_MAX(4, 7) MED_CX(12, 14) \
    MED_MIN(10, 14) MED_CX(6, 7) MED_CX(10, 12) MED_CX(6, 10) MED_MAX(6, 17) MED_CX(12, 17) \
    MED_MIN(7, 17) MED_CX(7, 10) MED_CX(12, 18) MED_MAX(7, 12) MED_MIN(10, 18) MED_CX(12, 20) \
    MED_MIN(10, 20) MED_MAX(10, 12)

// Sorting networks for one column (3: 3 compare-exchanges; 5: 9).
#define MED_SORT3 MED_CX(0, 1) MED_CX(1, 2) MED_CX(0, 1)
#define MED_SORT5                                                                       \
    MED_CX(0, 1) MED_CX(3, 4) MED_CX(2, 4) MED_CX(2, 3) MED_CX(0, 3) MED_CX(0, 2) MED_CX(1, 4) \
    MED_CX(1, 3) MED_CX(1, 2)

__kernel void median(__global const uchar* src, int src_pitch, __global uchar* dst, int dst_pitch,
                     int width, int height) {
    const int xa = (int)get_global_id(0) * 4;
    const int y0 = (int)get_global_id(1) * PY;
    if (xa >= width || y0 >= height) return;

    med_t rows[PY + 2 * RADIUS][MED_COLS];  // pixels xa - R .. xa + 3 + R of rows y0 - R ...
#pragma unroll
    for (int j = 0; j < PY + 2 * RADIUS; ++j) {
        const int y = clamp_y(y0 - RADIUS + j, height);
#if QW
        const quadw_t l = load_quadw(src, src_pitch, xa - 4, y, width);
        const quadw_t m = load_quadw(src, src_pitch, xa, y, width);
        const quadw_t r = load_quadw(src, src_pitch, xa + 4, y, width);
#if RADIUS == 2
        rows[j][0] = med_unpack(QW_PIX(l, 2));
#endif
        rows[j][RADIUS - 1] = med_unpack(QW_PIX(l, 3));
#pragma unroll
        for (int c = 0; c < 4; ++c) rows[j][RADIUS + c] = med_unpack(QW_PIX(m, c));
        rows[j][RADIUS + 4] = med_unpack(QW_PIX(r, 0));
#if RADIUS == 2
        rows[j][7] = med_unpack(QW_PIX(r, 1));
#endif
#else
        const quad_t l = load_quad(src, src_pitch, xa - 4, y, width);
        const quad_t m = load_quad(src, src_pitch, xa, y, width);
        const quad_t r = load_quad(src, src_pitch, xa + 4, y, width);
#if RADIUS == 2
        rows[j][0] = l.hi.lo;
#endif
        rows[j][RADIUS - 1] = l.hi.hi;
        rows[j][RADIUS] = m.lo.lo;
        rows[j][RADIUS + 1] = m.lo.hi;
        rows[j][RADIUS + 2] = m.hi.lo;
        rows[j][RADIUS + 3] = m.hi.hi;
        rows[j][RADIUS + 4] = r.lo.lo;
#if RADIUS == 2
        rows[j][7] = r.lo.hi;
#endif
#endif
    }

#pragma unroll
    for (int i = 0; i < PY; ++i) {
        const int y = y0 + i;
        if (y >= height) break;
        med_t col[MED_COLS][MED_D];  // each column of the window rows, sorted
#pragma unroll
        for (int x = 0; x < MED_COLS; ++x) {
            med_t p[MED_D];
#pragma unroll
            for (int dy = 0; dy < MED_D; ++dy) p[dy] = rows[i + dy][x];
#if RADIUS == 1
            MED_SORT3
#else
            MED_SORT5
#endif
#pragma unroll
            for (int dy = 0; dy < MED_D; ++dy) col[x][dy] = p[dy];
        }
        med_t o[4];
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            med_t p[MED_N];
#pragma unroll
            for (int dy = 0; dy < MED_D; ++dy)
#pragma unroll
                for (int dx = 0; dx < MED_D; ++dx) p[dy * MED_D + dx] = col[c + dx][dy];
#if RADIUS == 1
            MED_SEL9
#else
            MED_SEL25
#endif
            o[c] = p[MED_N / 2];
            o[c].w = rows[i + RADIUS][RADIUS + c].w;
        }
#if QW
        store_quadw(dst, dst_pitch, xa, y, width,
                    (quadw_t)(med_pack(o[0]), med_pack(o[1]), med_pack(o[2]), med_pack(o[3])));
#else
        store_quad(dst, dst_pitch, xa, y, width, (quad_t)(o[0], o[1], o[2], o[3]));
#endif
    }
}
