// The color family: color, grayscale, sepia (kernels/color.cl, grayscale.cl, sepia.cl). All
// three are point-wise: one work-item per pixel, R, G, B transformed, alpha copied.
#include <array>
#include <cmath>
#include <functional>
#include <numbers>
#include <string>

#include "compute/builtin_filters.hpp"
#include "compute/chain.hpp"
#include "compute/cl_args.hpp"
#include "compute/filter.hpp"
#include "compute/pointwise.hpp"

namespace vfx {

namespace {

double work_max(WorkFormat f) {
    return f == WorkFormat::rgba16 ? 65535.0 : 255.0;
}

// The color filter's transform folded into out = A v + b (unorm values; see kernels/color.cl):
// A = Rot(H) * Sat(S) * C, b = 0.5 - 0.5 C + B on every channel (Sat and Rot keep (1,1,1)).
struct ColorAffine {
    std::array<std::array<double, 3>, 3> a{};
    double offset = 0;
};

ColorAffine color_affine(double brightness, double contrast, double saturation, double hue_deg) {
    constexpr double luma[3] = {0.2126, 0.7152, 0.0722};
    // Sat = S I + (1 - S) 1 l^T
    double sat[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            sat[i][j] = (i == j ? saturation : 0.0) + (1.0 - saturation) * luma[j];
    // Rodrigues about k = (1,1,1)/sqrt(3): R = cos I + sin [k]x + (1 - cos) k k^T.
    const double th = hue_deg * std::numbers::pi / 180.0;
    const double c = std::cos(th), s = std::sin(th) / std::sqrt(3.0), t = (1.0 - c) / 3.0;
    const double rot[3][3] = {{c + t, t - s, t + s}, {t + s, c + t, t - s}, {t - s, t + s, c + t}};
    ColorAffine out;
    for (size_t i = 0; i < 3; ++i)
        for (size_t j = 0; j < 3; ++j) {
            double v = 0;
            for (size_t m = 0; m < 3; ++m)
                v += rot[i][m] * sat[m][j];
            out.a[i][j] = v * contrast;
        }
    out.offset = 0.5 - 0.5 * contrast + brightness;
    return out;
}

std::unique_ptr<GpuFilter> make_color(const FilterInstance& f) {
    const ColorAffine m = color_affine(f.get_float("brightness"), f.get_float("contrast"),
                                       f.get_float("saturation"), f.get_float("hue"));
    PointwiseOp op{"color.cl",
                   "color",
                   false,
                   {"float4", "float4", "float4"},
                   [m](cl_kernel k, cl_uint first, WorkFormat wf, int) {
                       const double off = m.offset * work_max(wf);  // pixel units
                       for (size_t i = 0; i < 3; ++i) {
                           const cl_float4 row = {
                               {static_cast<cl_float>(m.a[i][0]), static_cast<cl_float>(m.a[i][1]),
                                static_cast<cl_float>(m.a[i][2]), static_cast<cl_float>(off)}};
                           set_arg(k, first + static_cast<cl_uint>(i), row);
                       }
                   }};
    return std::make_unique<PointwiseFilter>(std::vector<PointwiseOp>{std::move(op)});
}

// A point-wise operation without parameters.
std::unique_ptr<GpuFilter> make_plain(const char* file, const char* name) {
    return std::make_unique<PointwiseFilter>(
        std::vector<PointwiseOp>{PointwiseOp{file, name, false, {}, {}}});
}

}  // namespace

std::vector<FilterInfo> color_filters() {
    std::vector<FilterInfo> out;
    {
        FilterInfo f;
        f.name = "color";
        f.help =
            "brightness/contrast, then saturation (mix with BT.709 luma), then hue rotation about "
            "the grey axis; unclamped between steps, saturating at the end";
        f.params.push_back(float_param("brightness", 0, -1, 1,
                                       "added to every channel after contrast (1: full scale)"));
        f.params.push_back(
            float_param("contrast", 1, 0, 4, "per channel (v - 0.5) * contrast + 0.5 (1: none)"));
        f.params.push_back(float_param("saturation", 1, 0, 4,
                                       "luma + saturation * (v - luma), BT.709 luma (0: grey, "
                                       "1: none)"));
        f.params.push_back(float_param("hue", 0, -180, 180,
                                       "degrees of Rodrigues rotation of (R,G,B) about "
                                       "(1,1,1)/sqrt(3); positive turns red towards green"));
        f.pointwise = true;
        f.factory = [](ClContext&, const FilterInstance& inst) { return make_color(inst); };
        out.push_back(std::move(f));
    }
    {
        FilterInfo f;
        f.name = "grayscale";
        f.help = "R = G = B = BT.709 luma 0.2126 R + 0.7152 G + 0.0722 B";
        f.pointwise = true;
        f.factory = [](ClContext&, const FilterInstance&) -> std::unique_ptr<GpuFilter> {
            return make_plain("grayscale.cl", "grayscale");
        };
        out.push_back(std::move(f));
    }
    {
        FilterInfo f;
        f.name = "sepia";
        f.help =
            "sepia tone: rows (0.393 0.769 0.189) (0.349 0.686 0.168) (0.272 0.534 0.131), "
            "saturating";
        f.pointwise = true;
        f.factory = [](ClContext&, const FilterInstance&) -> std::unique_ptr<GpuFilter> {
            return make_plain("sepia.cl", "sepia");
        };
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace vfx
