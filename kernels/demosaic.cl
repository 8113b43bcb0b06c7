// demosaic=method={mhc,bilinear}:pattern=P: a Bayer mosaic (mono8/mono16) -> RGBA of the same
// depth. mhc: Malvar-He-Cutler 5x5 linear filters (2004); bilinear: the average of the nearest
// 2 or 4 samples of the missing colour. Borders mirror without repeating the edge pixel
// (reflect-101: -1 -> 1, w -> w-2), which keeps the Bayer phase. The filter weights are
// multiples of 1/16 and the sums stay below 2^24, so the float sums are exact; the result is
// rounded to nearest even and saturated. Alpha = max.

inline int reflect101(int i, int n) {
    if (n == 1) return 0;
    const int period = 2 * (n - 1);
    i = (i < 0 ? -i : i) % period;
    return i < n ? i : period - i;
}

#define P(dx, dy) \
    load_mono(src, src_pitch, reflect101(x + (dx), width), reflect101(y + (dy), height))

// method: 0 mhc, 1 bilinear.
__kernel void demosaic(__global const uchar* src, int src_pitch, __global uchar* dst,
                       int dst_pitch, int width, int height, int cfa, int method) {
    const int x = (int)get_global_id(0);
    const int y = (int)get_global_id(1);
    if (!in_frame(x, y, width, height)) return;
    const int site = cfa_at(cfa, x, y);
    const float c = P(0, 0);
    const float cross1 = P(-1, 0) + P(1, 0) + P(0, -1) + P(0, 1);
    const float diag1 = P(-1, -1) + P(1, -1) + P(-1, 1) + P(1, 1);
    float r, g, b;
    if (site == 1) {  // green: one missing colour on the row, the other on the column
        float h, v;
        if (method == 0) {
            const float h2 = P(-2, 0) + P(2, 0);
            const float v2 = P(0, -2) + P(0, 2);
            const float h1 = P(-1, 0) + P(1, 0);
            const float v1 = P(0, -1) + P(0, 1);
            h = (5.0f * c + 4.0f * h1 - h2 - diag1 + 0.5f * v2) * 0.125f;
            v = (5.0f * c + 4.0f * v1 - v2 - diag1 + 0.5f * h2) * 0.125f;
        } else {
            h = (P(-1, 0) + P(1, 0)) * 0.5f;
            v = (P(0, -1) + P(0, 1)) * 0.5f;
        }
        g = c;
        if (cfa_at(cfa, x + 1, y) == 0) {
            r = h;
            b = v;
        } else {
            r = v;
            b = h;
        }
    } else {  // red or blue: green on the cross, the other colour on the diagonals
        float gg, o;
        if (method == 0) {
            const float cross2 = P(-2, 0) + P(2, 0) + P(0, -2) + P(0, 2);
            gg = (4.0f * c + 2.0f * cross1 - cross2) * 0.125f;
            o = (6.0f * c + 2.0f * diag1 - 1.5f * cross2) * 0.125f;
        } else {
            gg = cross1 * 0.25f;
            o = diag1 * 0.25f;
        }
        g = gg;
        if (site == 0) {
            r = c;
            b = o;
        } else {
            r = o;
            b = c;
        }
    }
    store_pix(dst, dst_pitch, x, y, float_to_pix((float4)(r, g, b, PIX_MAX)));
}
