#pragma once
// A plain, obviously correct reference for the YUV -> working-format conversion contract in
// engine/core/format.hpp, in double precision, one pixel at a time. The OpenCL conversion kernel
// and the decoder tests are checked against it.
#include <cstdint>
#include <vector>

#include "core/format.hpp"
#include "decode/host_frame.hpp"

namespace vfx::test {

struct RefImage {
    int width = 0, height = 0;
    WorkFormat format;
    std::vector<uint16_t> rgba;  // 4 per pixel, working-format code values

    // Channel c (0 R, 1 G, 2 B, 3 A) of pixel (x, y).
    uint16_t at(int x, int y, int c) const {
        return rgba[(static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)) *
                        4 +
                    static_cast<size_t>(c)];
    }
};

RefImage reference_convert(const HostFrame& f);

// One YUV sample triple (code values of `bits` bits) to normalised R'G'B' in [0, 1], unclamped
// (exposed for hand-checked tests).
struct Rgb {
    double r = 0, g = 0, b = 0;
};
Rgb reference_yuv_to_rgb(double y, double cb, double cr, int bits, Matrix m, Range r);

}  // namespace vfx::test
