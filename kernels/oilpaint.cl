// oilpaint=radius=R:levels=L: per pixel, the (2R+1)^2 clamp-to-edge window is binned by luma
// into L levels; the fullest bin wins (ties: the lower bin); the output is the mean R, G, B of
// that bin's pixels. Alpha passed through.
// Binning, exact in integers (the same on every device and in the test's reference):
//   Yi  = 2126 R + 7152 G + 722 B            (R, G, B the working values, 0..PIX_MAX)
//   bin = min(L - 1, floor(Yi * L / (10000 * PIX_MAX)))
// i.e. bin = min(L - 1, floor(Y * L)) with Y the BT.709 luma on 0..1, evaluated exactly.
// Mean: sum / count rounded to nearest, ties to even, in integers (exact).
// Each tile pixel's bin is computed once, at the cooperative load.
// Arguments: src, src_pitch, width, height, dst, dst_pitch, tile ((lw + 2R) x (lh + 2R) pix_t),
// bins (same count of uchar), r, levels.

#define OIL_MAX_LEVELS 64
#if WORK16
#define OIL_PIX_MAX 65535UL
#define oil_convert_pix convert_ushort4
#else
#define OIL_PIX_MAX 255UL
#define oil_convert_pix convert_uchar4
#endif

inline uchar oil_bin(pix_t p, int levels) {
    const ulong yi = 2126UL * (ulong)p.x + 7152UL * (ulong)p.y + 722UL * (ulong)p.z;
    const ulong b = yi * (ulong)levels / (10000UL * OIL_PIX_MAX);
    return (uchar)min(b, (ulong)(levels - 1));
}

__kernel void oilpaint(__global const uchar* src, int src_pitch, int width, int height,
                       __global uchar* dst, int dst_pitch, __local pix_t* tile,
                       __local uchar* bins, int r, int levels) {
    const int lx = (int)get_local_id(0);
    const int ly = (int)get_local_id(1);
    const int lw = (int)get_local_size(0);
    const int lh = (int)get_local_size(1);
    const int tw = lw + 2 * r;
    const int th = lh + 2 * r;
    load_tile(src, src_pitch, width, height, tile, r);
    for (int i = ly * lw + lx; i < tw * th; i += lw * lh) bins[i] = oil_bin(tile[i], levels);
    barrier(CLK_LOCAL_MEM_FENCE);
    const int x = (int)get_global_id(0);
    const int y = (int)get_global_id(1);
    if (!in_frame(x, y, width, height)) return;

    const int d = 2 * r + 1;
    int counts[OIL_MAX_LEVELS];
    for (int b = 0; b < levels; ++b) counts[b] = 0;
    for (int dy = 0; dy < d; ++dy) {
        __local const uchar* row = bins + (ly + dy) * tw + lx;
        for (int dx = 0; dx < d; ++dx) ++counts[row[dx]];
    }
    int best = 0;
    for (int b = 1; b < levels; ++b)
        if (counts[b] > counts[best]) best = b;  // strict: ties keep the lower bin

    uint4 sum = (uint4)(0);
    for (int dy = 0; dy < d; ++dy) {
        __local const uchar* brow = bins + (ly + dy) * tw + lx;
        __local const pix_t* prow = tile + (ly + dy) * tw + lx;
        for (int dx = 0; dx < d; ++dx)
            if (brow[dx] == best) sum += convert_uint4(prow[dx]);
    }
    const uint n = (uint)counts[best];  // >= 1
    const uint4 nn = (uint4)(n);
    uint4 q = sum / nn;
    const uint4 rem2 = (sum - q * nn) * 2u;
    const int4 up = (rem2 > nn) | ((rem2 == nn) & ((q & 1u) == 1u));
    q += select((uint4)(0), (uint4)(1), up);
    pix_t out = oil_convert_pix(q);  // q <= PIX_MAX
    out.w = tile[(ly + r) * tw + lx + r].w;
    store_pix(dst, dst_pitch, x, y, out);
}
