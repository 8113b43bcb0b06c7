// split_compose: the before/after split view of the overlay (engine/compute/processor.hpp,
// ViewOptions::split). `dst` already holds the chain's output; left of the divider it is
// replaced by the chain's input `before` (a mosaic, -DIN_MONO=1, shown as grey: R = G = B =
// the sample, alpha max), and the divider itself is a line of `line` pixels drawn in white,
// its columns [split_x - line / 2, split_x - line / 2 + line) clipped to the frame. Right of
// it `dst` is left as it is. Pixels are copied, never converted: the left part is exactly the
// chain's input.

__kernel void split_compose(__global const uchar* before, int before_pitch, __global uchar* dst,
                            int dst_pitch, int width, int height, int split_x, int line) {
    const int x = (int)get_global_id(0);
    const int y = (int)get_global_id(1);
    if (!in_frame(x, y, width, height)) return;
    const int line_start = split_x - line / 2;
    if (x >= line_start + line) return;
    pix_t p;
    if (x >= line_start) {
        p = (pix_t)((mono_t)PIX_MAX);
    } else {
#if IN_MONO
        const mono_t v = *(__global const mono_t*)(before + (size_t)y * (size_t)before_pitch +
                                                   (size_t)x * sizeof(mono_t));
        p = (pix_t)(v, v, v, (mono_t)PIX_MAX);
#else
        p = load_pix(before, before_pitch, x, y);
#endif
    }
    store_pix(dst, dst_pitch, x, y, p);
}
