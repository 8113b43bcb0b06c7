#pragma once
// Pixel formats and colour description shared by decode, compute, interop and render.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace vfx {

// YUV -> RGB conversion contract (the OpenCL kernel and the C++ test reference both follow it):
//   b = significant bits, s = 2^(b-8)
//   limited: y = (Y - 16 s) / (219 s),        c = (C - 128 s) / (224 s)
//   full:    y = Y / (2^b - 1),               c = (C - 2^(b-1)) / (2^b - 1)
//   (Kr, Kb) = BT.601 (0.299, 0.114), BT.709 (0.2126, 0.0722), BT.2020 (0.2627, 0.0593); Kg =
//   1-Kr-Kb R = y + 2(1-Kr) cr G = y - (2 Kb (1-Kb) / Kg) cb - (2 Kr (1-Kr) / Kg) cr B = y +
//   2(1-Kb) cb Chroma of pixel (x, y) is the sample at (x >> chroma_w_log2, y >> chroma_h_log2).
//   Out = round-to-nearest-even(clamp(v, 0, 1) * (2^16-1 or 2^8-1)), alpha = max.
//   `gray` and `rgba` layouts are full-range samples scaled to the working format the same way.
// YUV -> RGB matrix coefficients.
enum class Matrix : uint8_t { bt601, bt709, bt2020 };
enum class Range : uint8_t { limited, full };

struct ColorInfo {
    Matrix matrix = Matrix::bt709;
    Range range = Range::limited;
    bool matrix_tagged = false;  // false: chosen by the untagged rule (height <= 576 -> BT.601)
    bool range_tagged = false;
};

std::string_view to_string(Matrix m);
std::string_view to_string(Range r);

// Working format of every buffer between conversion and display: packed RGBA, unsigned
// normalised, 8 bits per channel for sources of <= 8 bits, 16 above. Values stay in the
// source's transfer curve. Alpha is 1 and passes through every filter.
// mono8/mono16: one channel, the same depth rule: a sensor mosaic (raw Bayer or a one-channel
// still) inside a filter chain, before `demosaic`. Mono values are full range like the colour
// ones: code value c of a b-bit source is round-to-nearest-even(c / (2^b - 1) * (2^8 or 2^16
// - 1)), exactly what the gray -> RGBA conversion writes into each of R, G, B. Mono buffers
// never leave the processor: what it writes to a caller's target is always rgba8/rgba16.
enum class WorkFormat : uint8_t { rgba8, rgba16, mono8, mono16 };

constexpr size_t bytes_per_pixel(WorkFormat f) {
    switch (f) {
        case WorkFormat::rgba8:
            return 4;
        case WorkFormat::rgba16:
            return 8;
        case WorkFormat::mono8:
            return 1;
        case WorkFormat::mono16:
            return 2;
    }
    return 4;
}
constexpr bool is_mono(WorkFormat f) {
    return f == WorkFormat::mono8 || f == WorkFormat::mono16;
}
constexpr bool is_deep(WorkFormat f) {  // 16 bits per channel
    return f == WorkFormat::rgba16 || f == WorkFormat::mono16;
}
// The format of the same depth with one channel (mono_of) or four (rgba_of).
constexpr WorkFormat mono_of(WorkFormat f) {
    return is_deep(f) ? WorkFormat::mono16 : WorkFormat::mono8;
}
constexpr WorkFormat rgba_of(WorkFormat f) {
    return is_deep(f) ? WorkFormat::rgba16 : WorkFormat::rgba8;
}
std::string_view to_string(WorkFormat f);

// Geometry of a working-format frame in a linear buffer. Rows are `pitch` bytes apart;
// pitch is a multiple of the pixel size and of 256 (good for both APIs' row alignment).
struct FrameGeometry {
    uint32_t width = 0;
    uint32_t height = 0;
    WorkFormat format = WorkFormat::rgba8;
    size_t pitch = 0;  // bytes per row

    size_t size_bytes() const { return pitch * height; }
    bool operator==(const FrameGeometry&) const = default;
};

FrameGeometry make_geometry(uint32_t width, uint32_t height, WorkFormat format);

// The picture as the viewer sees it: pixels of geometry `g` turned `rotation` degrees clockwise
// (0, 90, 180 or 270: a stream's display matrix), moved whole, nothing resampled. `out` receives
// them in the returned geometry (make_geometry's pitch).
FrameGeometry turn_upright(const uint8_t* pixels, const FrameGeometry& g, int rotation,
                           std::vector<uint8_t>& out);

// How a decoded frame's samples lie in host memory: the layouts the OpenCL conversion kernel
// reads directly. Anything else is brought to `rgba` (8- or 16-bit) by libswscale first.
enum class PlaneLayout : uint8_t {
    yuv_planar,      // Y, U, V planes (yuv420p, yuv422p, yuv444p, their 10/12/16-bit forms, yuvj*)
    yuv_semiplanar,  // Y plane + interleaved UV plane (nv12, p010, p016)
    yuyv,            // packed Y0 U Y1 V (yuyv422)
    rgba,            // packed R G B A, 8-bit or 16-bit native-endian (swscale fallback, PNG)
    gray,            // one channel (grey stills; raw Bayer mosaics enter here)
};

struct SourceFormat {
    PlaneLayout layout = PlaneLayout::rgba;
    uint8_t bits = 8;           // significant bits per sample, 8..16
    uint8_t bytes = 1;          // bytes per sample container: 1 or 2
    uint8_t shift = 0;          // right shift that brings a sample to its value (p010: 6)
    uint8_t chroma_w_log2 = 0;  // horizontal chroma subsampling (4:2:0 and 4:2:2: 1)
    uint8_t chroma_h_log2 = 0;  // vertical chroma subsampling (4:2:0: 1)

    WorkFormat work_format() const { return bits <= 8 ? WorkFormat::rgba8 : WorkFormat::rgba16; }
    bool operator==(const SourceFormat&) const = default;
};

}  // namespace vfx
