#include "core/format.hpp"

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

}  // namespace vfx
