#include "core/format.hpp"

#include <cstring>

namespace vfx {

std::string_view to_string(Matrix m) {
    switch (m) {
        case Matrix::bt601:
            return "bt601";
        case Matrix::bt709:
            return "bt709";
        case Matrix::bt2020:
            return "bt2020";
    }
    return "?";
}

std::string_view to_string(Range r) {
    return r == Range::full ? "full" : "limited";
}

std::string_view to_string(WorkFormat f) {
    switch (f) {
        case WorkFormat::rgba8:
            return "rgba8";
        case WorkFormat::rgba16:
            return "rgba16";
        case WorkFormat::mono8:
            return "mono8";
        case WorkFormat::mono16:
            return "mono16";
    }
    return "?";
}

FrameGeometry make_geometry(uint32_t width, uint32_t height, WorkFormat format) {
    FrameGeometry g;
    g.width = width;
    g.height = height;
    g.format = format;
    const size_t row = size_t{width} * bytes_per_pixel(format);
    g.pitch = (row + 255) / 256 * 256;
    return g;
}

FrameGeometry turn_upright(const uint8_t* pixels, const FrameGeometry& g, int rotation,
                           std::vector<uint8_t>& out) {
    rotation = ((rotation % 360) + 360) % 360;
    const size_t bpp = bytes_per_pixel(g.format);
    const bool side = rotation % 180 == 90;
    const FrameGeometry o =
        make_geometry(side ? g.height : g.width, side ? g.width : g.height, g.format);
    out.assign(o.size_bytes(), 0);
    const uint32_t w = g.width, h = g.height;
    for (uint32_t y = 0; y < o.height; ++y) {
        uint8_t* row = &out[y * o.pitch];
        for (uint32_t x = 0; x < o.width; ++x) {
            uint32_t sx = x, sy = y;  // where display pixel (x, y) is stored
            if (rotation == 90) sx = y, sy = h - 1 - x;
            if (rotation == 180) sx = w - 1 - x, sy = h - 1 - y;
            if (rotation == 270) sx = w - 1 - y, sy = x;
            std::memcpy(row + x * bpp, pixels + sy * g.pitch + sx * bpp, bpp);
        }
    }
    return o;
}

}  // namespace vfx
