#include "support/convert_ref.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace vfx::test {

namespace {

// Sample n of a row (1 or 2 bytes, native-endian container), shifted down to its value.
double sample(const uint8_t* row, int n, const SourceFormat& f) {
    if (f.bytes == 1) return static_cast<double>(row[n] >> f.shift);
    uint16_t v = 0;
    std::memcpy(&v, row + static_cast<ptrdiff_t>(n) * 2, 2);
    return static_cast<double>(v >> f.shift);
}

const uint8_t* row_of(const Plane& p, int y) {
    if (!p.data) throw std::logic_error("reference_convert: missing plane");
    return p.data + static_cast<ptrdiff_t>(y) * p.stride;
}

uint16_t quantise(double v, WorkFormat wf) {
    const double max = wf == WorkFormat::rgba8 ? 255.0 : 65535.0;
    return static_cast<uint16_t>(std::nearbyint(std::clamp(v, 0.0, 1.0) * max));
}

}  // namespace

Rgb reference_yuv_to_rgb(double Y, double Cb, double Cr, int bits, Matrix m, Range range) {
    const double s = std::pow(2.0, bits - 8);
    double y = 0, cb = 0, cr = 0;
    if (range == Range::limited) {
        y = (Y - 16 * s) / (219 * s);
        cb = (Cb - 128 * s) / (224 * s);
        cr = (Cr - 128 * s) / (224 * s);
    } else {
        const double max = std::pow(2.0, bits) - 1;
        const double mid = std::pow(2.0, bits - 1);
        y = Y / max;
        cb = (Cb - mid) / max;
        cr = (Cr - mid) / max;
    }
    double kr = 0, kb = 0;
    switch (m) {
        case Matrix::bt601:
            kr = 0.299, kb = 0.114;
            break;
        case Matrix::bt709:
            kr = 0.2126, kb = 0.0722;
            break;
        case Matrix::bt2020:
            kr = 0.2627, kb = 0.0593;
            break;
    }
    const double kg = 1 - kr - kb;
    Rgb o;
    o.r = y + 2 * (1 - kr) * cr;
    o.g = y - (2 * kb * (1 - kb) / kg) * cb - (2 * kr * (1 - kr) / kg) * cr;
    o.b = y + 2 * (1 - kb) * cb;
    return o;
}

RefImage reference_convert(const HostFrame& f) {
    const SourceFormat& sf = f.format;
    RefImage img;
    img.width = f.width;
    img.height = f.height;
    img.format = sf.work_format();
    img.rgba.resize(static_cast<size_t>(f.width) * static_cast<size_t>(f.height) * 4);
    const uint16_t alpha = img.format == WorkFormat::rgba8 ? 255 : 65535;
    const double full = std::pow(2.0, sf.bits) - 1;

    for (int y = 0; y < f.height; ++y) {
        for (int x = 0; x < f.width; ++x) {
            const int cx = x >> sf.chroma_w_log2;
            const int cy = y >> sf.chroma_h_log2;
            double r = 0, g = 0, b = 0;
            bool yuv = true;
            double Y = 0, U = 0, V = 0;
            switch (sf.layout) {
                case PlaneLayout::yuv_planar:
                    Y = sample(row_of(f.plane(0), y), x, sf);
                    U = sample(row_of(f.plane(1), cy), cx, sf);
                    V = sample(row_of(f.plane(2), cy), cx, sf);
                    break;
                case PlaneLayout::yuv_semiplanar:
                    Y = sample(row_of(f.plane(0), y), x, sf);
                    U = sample(row_of(f.plane(1), cy), 2 * cx, sf);
                    V = sample(row_of(f.plane(1), cy), 2 * cx + 1, sf);
                    break;
                case PlaneLayout::yuyv: {
                    const uint8_t* row = row_of(f.plane(0), y);
                    Y = sample(row, 2 * x, sf);
                    U = sample(row, 4 * cx + 1, sf);
                    V = sample(row, 4 * cx + 3, sf);
                    break;
                }
                case PlaneLayout::gray: {
                    yuv = false;
                    r = g = b = sample(row_of(f.plane(0), y), x, sf) / full;
                    break;
                }
                case PlaneLayout::rgba: {
                    yuv = false;
                    const uint8_t* row = row_of(f.plane(0), y);
                    r = sample(row, 4 * x + 0, sf) / full;
                    g = sample(row, 4 * x + 1, sf) / full;
                    b = sample(row, 4 * x + 2, sf) / full;
                    break;
                }
            }
            if (yuv) {
                const Rgb c = reference_yuv_to_rgb(Y, U, V, sf.bits, f.color.matrix, f.color.range);
                r = c.r, g = c.g, b = c.b;
            }
            const size_t o =
                (static_cast<size_t>(y) * static_cast<size_t>(f.width) + static_cast<size_t>(x)) *
                4;
            img.rgba[o + 0] = quantise(r, img.format);
            img.rgba[o + 1] = quantise(g, img.format);
            img.rgba[o + 2] = quantise(b, img.format);
            img.rgba[o + 3] = alpha;
        }
    }
    return img;
}

}  // namespace vfx::test
