// median, bilateral and oilpaint against plain C++ references written here (odd sizes, both
// working formats, each parameter's extremes, clamp-to-edge borders, random alpha untouched),
// and their chain text round-trip.
//   median: bit-exact (the reference sorts the window with std::nth_element).
//   bilateral: bit-exact against its float definition done on the CPU (ref_bilateral_exact:
//     the kernel's tables, products, fused multiply-adds and sums in its order, so the frame
//     every conforming device must give), which itself lies within 1 LSB of the formula in
//     double precision (ref_bilateral).
//   oilpaint: bit-exact. The reference builds the histogram literally; its bin is the exact
//     floor(Y * L) of the BT.709 luma (integers: Y * L = (2126 R + 7152 G + 722 B) L /
//     (10000 max)), the definition the kernel implements, so there is no float/double edge
//     case; the mean is rounded to nearest, ties to even.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "compute/chain.hpp"
#include "compute/filter.hpp"
#include "compute/stencil_variants.hpp"
#include "compute_test_util.hpp"
#include "core/error.hpp"

namespace vfx::test {
namespace {

int clampi(int v, int hi) {
    return std::clamp(v, 0, hi - 1);
}

// ---- references ----

Image ref_median(const Image& in, int r) {
    Image out = in;
    std::vector<uint16_t> win;
    for (int y = 0; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x)
            for (int c = 0; c < 3; ++c) {
                win.clear();
                for (int dy = -r; dy <= r; ++dy)
                    for (int dx = -r; dx <= r; ++dx)
                        win.push_back(
                            in.at(clampi(x + dx, in.width), clampi(y + dy, in.height), c));
                auto mid = win.begin() + static_cast<ptrdiff_t>(win.size() / 2);
                std::nth_element(win.begin(), mid, win.end());
                out.at(x, y, c) = *mid;
            }
    return out;
}

// bilateral.cl's L: the BT.709 luma in steps of 1/4080 of the range, from the same float
// operations (coefficients rounded to float once, two fused multiply-adds, ties to even).
int ref_bilateral_luma(const Image& img, int x, int y) {
    const double k = 4080.0 / img.max_value();
    const auto c0 = static_cast<float>(0.2126 * k), c1 = static_cast<float>(0.7152 * k),
               c2 = static_cast<float>(0.0722 * k);
    const float l = std::fma(c0, static_cast<float>(img.at(x, y, 0)),
                             std::fma(c1, static_cast<float>(img.at(x, y, 1)),
                                      c2 * static_cast<float>(img.at(x, y, 2))));
    return static_cast<int>(std::nearbyint(l));
}

Image ref_bilateral(const Image& in, double ss, double sr) {
    const int r = static_cast<int>(std::ceil(2 * ss));
    Image out = in;
    for (int y = 0; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x) {
            const int lc = ref_bilateral_luma(in, x, y);
            double sum[3] = {0, 0, 0}, wsum = 0;
            for (int dy = -r; dy <= r; ++dy)
                for (int dx = -r; dx <= r; ++dx) {
                    const int qx = clampi(x + dx, in.width), qy = clampi(y + dy, in.height);
                    const double dl = (ref_bilateral_luma(in, qx, qy) - lc) / 4080.0;
                    const double w = std::exp(-(dx * dx + dy * dy) / (2 * ss * ss)) *
                                     std::exp(-(dl * dl) / (2 * sr * sr));
                    wsum += w;
                    for (int c = 0; c < 3; ++c)
                        sum[c] += w * in.at(qx, qy, c);
                }
            for (int c = 0; c < 3; ++c)
                out.at(x, y, c) = ref_quantise(sum[c] / wsum, in.max_value());
        }
    return out;
}

// bilateral.cl's arithmetic on the CPU, operation for operation in IEEE single precision: the
// same tables (made as the filter makes them), the same products, fused multiply-adds and sums
// in the same order, a correctly rounded quotient, ties to even. This is the frame every
// conforming device must give, byte for byte.
Image ref_bilateral_exact(const Image& in, double ss, double sr) {
    constexpr int kSteps = 4080;
    const int r = static_cast<int>(std::ceil(2 * ss));
    const int d = 2 * r + 1;
    std::vector<float> ws;
    for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx)
            ws.push_back(static_cast<float>(
                std::exp(-static_cast<double>(dx * dx + dy * dy) / (2.0 * ss * ss))));
    // Wr(|d|), 0 where Wr min(Ws) < 2 FLT_MIN (no subnormal weights).
    const double ws_min = *std::min_element(ws.begin(), ws.end());
    std::vector<float> rt;
    for (int k = 0; k <= kSteps; ++k) {
        const double u = static_cast<double>(k) / kSteps;
        const auto w = static_cast<float>(std::exp(-u * u / (2.0 * sr * sr)));
        rt.push_back(w * ws_min >= 2.0 * std::numeric_limits<float>::min() ? w : 0.0f);
    }
    const auto max = static_cast<float>(in.max_value());
    Image out = in;
    for (int y = 0; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x) {
            const int lc = ref_bilateral_luma(in, x, y);
            float sum[3] = {0, 0, 0}, wsum = 0;
            for (int dy = -r; dy <= r; ++dy) {
                float rs[3] = {0, 0, 0}, rw = 0;
                for (int dx = -r; dx <= r; ++dx) {
                    const int qx = clampi(x + dx, in.width), qy = clampi(y + dy, in.height);
                    const float w =
                        ws[static_cast<size_t>((dy + r) * d + dx + r)] *
                        rt[static_cast<size_t>(std::abs(ref_bilateral_luma(in, qx, qy) - lc))];
                    for (int c = 0; c < 3; ++c)
                        rs[c] = std::fma(w, static_cast<float>(in.at(qx, qy, c)), rs[c]);
                    rw = rw + w;
                }
                for (int c = 0; c < 3; ++c)
                    sum[c] = sum[c] + rs[c];
                wsum = wsum + rw;
            }
            for (int c = 0; c < 3; ++c)
                out.at(x, y, c) =
                    static_cast<uint16_t>(std::clamp(std::nearbyint(sum[c] / wsum), 0.0f, max));
        }
    return out;
}

// floor(Y * L) clamped to L - 1, Y the BT.709 luma on 0..1, exactly.
int ref_bin(const Image& img, int x, int y, int levels) {
    const int64_t yi = 2126 * int64_t{img.at(x, y, 0)} + 7152 * int64_t{img.at(x, y, 1)} +
                       722 * int64_t{img.at(x, y, 2)};
    const auto max = static_cast<int64_t>(img.max_value());
    return static_cast<int>(std::min<int64_t>(levels - 1, yi * levels / (10000 * max)));
}

Image ref_oilpaint(const Image& in, int r, int levels) {
    Image out = in;
    for (int y = 0; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x) {
            std::vector<int> count(static_cast<size_t>(levels), 0);
            std::vector<std::array<int64_t, 3>> sum(static_cast<size_t>(levels), {0, 0, 0});
            for (int dy = -r; dy <= r; ++dy)
                for (int dx = -r; dx <= r; ++dx) {
                    const int qx = clampi(x + dx, in.width), qy = clampi(y + dy, in.height);
                    const auto b = static_cast<size_t>(ref_bin(in, qx, qy, levels));
                    ++count[b];
                    for (size_t c = 0; c < 3; ++c)
                        sum[b][c] += in.at(qx, qy, static_cast<int>(c));
                }
            size_t best = 0;  // the fullest bin; ties: the lower one
            for (size_t b = 1; b < count.size(); ++b)
                if (count[b] > count[best]) best = b;
            for (size_t c = 0; c < 3; ++c)
                out.at(x, y, static_cast<int>(c)) = static_cast<uint16_t>(std::nearbyint(
                    static_cast<double>(sum[best][c]) / static_cast<double>(count[best])));
        }
    return out;
}

// ---- inputs ----

// Uniform random R, G, B, A.
Image noise_image(int w, int h, WorkFormat f, uint32_t seed) {
    std::mt19937 rng(seed);
    return random_image(w, h, f, rng);
}

// A smooth gradient with small noise and a few hard edges (the bilateral's range weights and
// the oilpaint's bins then matter); random alpha.
Image structured_image(int w, int h, WorkFormat f, uint32_t seed) {
    std::mt19937 rng(seed);
    Image img = random_image(w, h, f, rng);  // keeps its random alpha
    const double max = img.max_value();
    std::normal_distribution<double> noise(0, 0.02 * max);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < 3; ++c) {
                double v = max * (0.2 + 0.5 * (x + 2 * y + 7 * c) / (w + 2 * h + 21.0));
                if ((x / 7 + y / 5) % 3 == 0) v += 0.25 * max;  // blocks: hard edges
                img.at(x, y, c) = ref_quantise(v + noise(rng), max);
            }
    return img;
}

// Few distinct values: many ties in medians and histograms.
Image few_values_image(int w, int h, WorkFormat f, uint32_t seed) {
    std::mt19937 rng(seed);
    Image img = random_image(w, h, f, rng);
    std::uniform_int_distribution<int> pick(0, 3);
    const double max = img.max_value();
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < 3; ++c)
                img.at(x, y, c) = static_cast<uint16_t>(max * pick(rng) / 3);
    return img;
}

std::string describe(const std::string& chain, const Image& in) {
    return chain + " " + std::to_string(in.width) + "x" + std::to_string(in.height) + " " +
           std::string(to_string(in.format));
}

// Runs `chain` on `in` and compares R, G, B with `ref` (at most `tol` LSB) and alpha with the
// input (identical).
void check(const std::string& chain, const Image& in, const Image& ref, int tol) {
    const Image got = run_filter(*test_cl(), chain, in);
    std::string where;
    EXPECT_LE(max_diff(got, ref, 0, 2, &where), tol)
        << describe(chain, in) << " worst at " << where;
    EXPECT_EQ(max_diff(got, in, 3, 3, &where), 0)
        << describe(chain, in) << ": alpha changed at " << where;
}

void check_median(const Image& in, int r) {
    check("median=radius=" + std::to_string(r), in, ref_median(in, r), 0);
}
// The bilateral's frame is its float definition's, exactly (so the same on every device), and
// within 1 LSB of the exact arithmetic's (double precision).
void check_bilateral(const Image& in, double ss, double sr) {
    const std::string chain = fmt::format("bilateral=sigma_s={}:sigma_r={}", ss, sr);
    const Image exact = ref_bilateral_exact(in, ss, sr);
    check(chain, in, exact, 0);
    std::string where;
    EXPECT_LE(max_diff(exact, ref_bilateral(in, ss, sr), 0, 2, &where), 1)
        << describe(chain, in) << " worst at " << where;
}
void check_oilpaint(const Image& in, int r, int levels) {
    check(fmt::format("oilpaint=radius={}:levels={}", r, levels), in, ref_oilpaint(in, r, levels),
          0);
}

const std::pair<int, int> kSmallSizes[] = {{1, 1}, {2, 3}, {3, 2}, {17, 13}, {33, 19}};
constexpr WorkFormat kFormats[] = {WorkFormat::rgba8, WorkFormat::rgba16};

class NoiseFilters : public ::testing::Test {
protected:
    void SetUp() override { VFX_REQUIRE_CL(); }
};

// ---- median ----

TEST_F(NoiseFilters, MedianOddSizesBothRadiiBothFormats) {
    uint32_t seed = 100;
    for (WorkFormat wf : kFormats)
        for (int r : {1, 2})
            for (auto [w, h] : kSmallSizes) {
                check_median(noise_image(w, h, wf, ++seed), r);
                check_median(few_values_image(w, h, wf, ++seed), r);  // ties
            }
}

TEST_F(NoiseFilters, MedianLarge) {
    for (WorkFormat wf : kFormats)
        for (int r : {1, 2})
            check_median(noise_image(640, 480, wf, 200 + static_cast<uint32_t>(r)), r);
    check_median(noise_image(1920, 1080, WorkFormat::rgba8, 210), 2);
}

TEST_F(NoiseFilters, MedianRemovesImpulseAtBorders) {
    // A lone outlier in a flat image disappears, corners and edges included (clamp to edge).
    for (WorkFormat wf : kFormats)
        for (int r : {1, 2}) {
            Image in = noise_image(9, 7, wf, 220);
            for (int y = 0; y < in.height; ++y)
                for (int x = 0; x < in.width; ++x)
                    for (int c = 0; c < 3; ++c)
                        in.at(x, y, c) = 100;
            for (auto [x, y] : {std::pair{0, 0}, {8, 6}, {4, 0}, {0, 3}, {4, 3}})
                in.at(x, y, 1) = static_cast<uint16_t>(in.max_value());
            Image flat = in;
            for (int y = 0; y < in.height; ++y)
                for (int x = 0; x < in.width; ++x)
                    flat.at(x, y, 1) = 100;
            check("median=radius=" + std::to_string(r), in, flat, 0);
        }
}

// Every tuned candidate (forced in turn), bit-exact, on sizes that are not multiples of a
// work-item's block, with ties.
TEST_F(NoiseFilters, MedianEveryTunedVariant) {
    ClContext& cl = *test_cl();
    for (const KernelVariant& v : stencil::median_variants()) {
        cl.tuner().force(v.label());
        SCOPED_TRACE(v.label());
        uint32_t seed = 250;
        for (auto [w, h] : {std::pair{67, 29}, {1, 1}, {3, 200}, {130, 7}, {6, 5}})
            for (WorkFormat wf : kFormats)
                for (int r : {1, 2}) {
                    check_median(noise_image(w, h, wf, ++seed), r);
                    check_median(few_values_image(w, h, wf, ++seed), r);
                }
    }
    cl.tuner().force("");
}

// ---- bilateral ----

TEST_F(NoiseFilters, BilateralOddSizesBothFormats) {
    uint32_t seed = 300;
    for (WorkFormat wf : kFormats)
        for (auto [w, h] : kSmallSizes) {
            check_bilateral(noise_image(w, h, wf, ++seed), 2, 0.1);
            check_bilateral(structured_image(w, h, wf, ++seed), 2, 0.1);
        }
}

TEST_F(NoiseFilters, BilateralParameterExtremes) {
    uint32_t seed = 400;
    for (WorkFormat wf : kFormats) {
        for (double ss : {0.5, 8.0})  // radius 1 and 16 (16 > the image: all borders)
            for (double sr : {0.01, 1.0}) {
                check_bilateral(structured_image(37, 29, wf, ++seed), ss, sr);
                check_bilateral(noise_image(23, 11, wf, ++seed), ss, sr);
            }
        check_bilateral(structured_image(45, 38, wf, ++seed), 3.3, 0.05);
    }
}

TEST_F(NoiseFilters, BilateralLarge) {
    for (WorkFormat wf : kFormats)
        check_bilateral(structured_image(640, 480, wf, 500), 1, 0.1);
    check_bilateral(structured_image(1920, 1080, WorkFormat::rgba8, 501), 0.5, 0.1);
}

// Every tuned candidate (forced in turn): the exact frame, on sizes that are not multiples of a
// work-item's block.
TEST_F(NoiseFilters, BilateralEveryTunedVariant) {
    ClContext& cl = *test_cl();
    for (const KernelVariant& v : stencil::bilateral_variants()) {
        cl.tuner().force(v.label());
        SCOPED_TRACE(v.label());
        uint32_t seed = 450;
        for (auto [w, h] : {std::pair{67, 29}, {1, 1}, {3, 200}, {130, 7}})
            for (auto [wf, ss] : {std::pair{WorkFormat::rgba8, 2.0}, {WorkFormat::rgba16, 1.2}}) {
                const Image in = structured_image(w, h, wf, ++seed);
                const std::string chain = fmt::format("bilateral=sigma_s={}:sigma_r=0.1", ss);
                check(chain, in, ref_bilateral_exact(in, ss, 0.1), 0);
            }
    }
    cl.tuner().force("");
}

// ---- oilpaint ----

TEST_F(NoiseFilters, OilpaintOddSizesBothFormats) {
    uint32_t seed = 600;
    for (WorkFormat wf : kFormats)
        for (auto [w, h] : kSmallSizes) {
            check_oilpaint(noise_image(w, h, wf, ++seed), 4, 16);
            check_oilpaint(structured_image(w, h, wf, ++seed), 4, 16);
        }
}

TEST_F(NoiseFilters, OilpaintParameterExtremes) {
    uint32_t seed = 700;
    for (WorkFormat wf : kFormats)
        for (int r : {1, 8})
            for (int levels : {2, 64}) {
                check_oilpaint(structured_image(37, 29, wf, ++seed), r, levels);
                check_oilpaint(noise_image(23, 11, wf, ++seed), r, levels);  // many count ties
                check_oilpaint(few_values_image(19, 17, wf, ++seed), r, levels);
            }
}

TEST_F(NoiseFilters, OilpaintBinEdgesAndTies) {
    // Pixels exactly on bin edges (grey g with g * L / max an integer) and windows split
    // evenly between two bins: the edge belongs to the upper bin, the tie to the lower one.
    for (WorkFormat wf : kFormats) {
        Image in = noise_image(12, 10, wf, 800);
        const auto max = static_cast<int>(in.max_value());
        const int levels = wf == WorkFormat::rgba8 ? 5 : 3;
        for (int y = 0; y < in.height; ++y)
            for (int x = 0; x < in.width; ++x) {
                // Grey g has Y = g / max exactly: 8-bit 51 k is edge k of 5 levels, 16-bit
                // 21845 k edge k of 3 (odd columns one above the edge).
                const int k = (x + y) % 3;
                const int v = wf == WorkFormat::rgba8 ? 51 * k : 21845 * k;
                for (int c = 0; c < 3; ++c)
                    in.at(x, y, c) = static_cast<uint16_t>(std::min(v + (x % 2), max));
            }
        check_oilpaint(in, 1, levels);
        check_oilpaint(in, 1, 3);
        check_oilpaint(in, 2, 2);
    }
}

// Every tuned candidate (forced in turn), bit-exact, on sizes that are not multiples of a
// work-group's block, with both packed-count widths (radius 7: 8-bit fields; 8: 16-bit).
TEST_F(NoiseFilters, OilpaintEveryTunedVariant) {
    ClContext& cl = *test_cl();
    for (const KernelVariant& v : stencil::oilpaint_variants()) {
        cl.tuner().force(v.label());
        SCOPED_TRACE(v.label());
        uint32_t seed = 950;
        for (auto [w, h] : {std::pair{67, 29}, {1, 1}, {3, 70}, {130, 7}})
            for (WorkFormat wf : kFormats) {
                check_oilpaint(noise_image(w, h, wf, ++seed), 4, 16);
                check_oilpaint(structured_image(w, h, wf, ++seed), 2, 5);
            }
        check_oilpaint(few_values_image(41, 37, WorkFormat::rgba8, ++seed), 7, 64);
        check_oilpaint(noise_image(41, 37, WorkFormat::rgba16, ++seed), 8, 3);
    }
    cl.tuner().force("");
}

TEST_F(NoiseFilters, OilpaintLarge) {
    for (WorkFormat wf : kFormats)
        check_oilpaint(structured_image(640, 480, wf, 900), 2, 16);
    check_oilpaint(structured_image(1920, 1080, WorkFormat::rgba8, 901), 1, 8);
}

// ---- chain text ----

TEST(NoiseFilterChain, ParseFormatRoundTrip) {
    for (const char* text :
         {"median,bilateral,oilpaint", "median=radius=2,bilateral=sigma_s=0.5:sigma_r=0.01",
          "bilateral=sigma_s=8:sigma_r=1,oilpaint=radius=8:levels=64",
          "oilpaint=radius=1:levels=2,median=radius=1,bilateral=sigma_s=3.3:sigma_r=0.05"}) {
        const Chain c = parse_chain(text);
        EXPECT_EQ(parse_chain(format_chain(c)), c) << text;
    }
    EXPECT_EQ(format_chain(parse_chain("median,bilateral,oilpaint")),
              "median=radius=1,bilateral=sigma_s=2:sigma_r=0.1,oilpaint=radius=4:levels=16");
    const Chain c = parse_chain("bilateral=sigma_s=0.75:sigma_r=0.3");
    EXPECT_EQ(c.filters[0].get_float("sigma_s"), 0.75);
    EXPECT_EQ(c.filters[0].get_float("sigma_r"), 0.3);
}

TEST(NoiseFilterChain, RangesAreEnforced) {
    for (const char* bad :
         {"median=radius=0", "median=radius=3", "median=radius=1.5", "bilateral=sigma_s=0.4",
          "bilateral=sigma_s=8.5", "bilateral=sigma_r=0.009", "bilateral=sigma_r=1.1",
          "oilpaint=radius=0", "oilpaint=radius=9", "oilpaint=levels=1", "oilpaint=levels=65",
          "median=size=3"})
        EXPECT_THROW(parse_chain(bad), Error) << bad;
}

}  // namespace
}  // namespace vfx::test
