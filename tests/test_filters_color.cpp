// color, grayscale, sepia, box, sharpen, sobel against plain double-precision references written
// here (odd sizes, both working formats, parameter extremes, clamp-to-edge borders, random alpha
// that must come out untouched), their registrations, and chain text round-trips.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <map>
#include <numbers>
#include <set>
#include <string>

#include "compute/chain.hpp"
#include "compute/cl_args.hpp"
#include "compute/filter.hpp"
#include "compute/registry.hpp"
#include "compute/stencil_variants.hpp"
#include "compute_test_util.hpp"
#include "core/error.hpp"

namespace vfx::test {
namespace {

// ---- references (double precision, straight from the definitions) ----

constexpr double kLuma[3] = {0.2126, 0.7152, 0.0722};

// Applies `f(rgb in pixel units) -> rgb in pixel units` to every pixel, quantising the result.
template <typename F>
Image map_pixels(const Image& in, F f) {
    Image out = in;
    for (int y = 0; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x) {
            const std::array<double, 3> v = {static_cast<double>(in.at(x, y, 0)),
                                             static_cast<double>(in.at(x, y, 1)),
                                             static_cast<double>(in.at(x, y, 2))};
            const std::array<double, 3> o = f(v);
            for (int c = 0; c < 3; ++c)
                out.at(x, y, c) = ref_quantise(o[static_cast<size_t>(c)], in.max_value());
        }
    return out;
}

// color: contrast/brightness per channel, saturation against BT.709 luma, then the Rodrigues
// rotation v cos + (k x v) sin + k (k.v)(1 - cos) about k = (1,1,1)/sqrt(3), on unorm values.
Image ref_color(const Image& in, double b, double c, double s, double hue_deg) {
    const double max = in.max_value();
    return map_pixels(in, [&](std::array<double, 3> v) {
        for (double& e : v)
            e = (e / max - 0.5) * c + 0.5 + b;
        const double l = kLuma[0] * v[0] + kLuma[1] * v[1] + kLuma[2] * v[2];
        for (double& e : v)
            e = l + s * (e - l);
        const double th = hue_deg * std::numbers::pi / 180.0;
        const double k = 1.0 / std::sqrt(3.0);
        const std::array<double, 3> kxv = {k * v[2] - k * v[1], k * v[0] - k * v[2],
                                           k * v[1] - k * v[0]};
        const double kdv = k * (v[0] + v[1] + v[2]);
        std::array<double, 3> o{};
        for (size_t i = 0; i < 3; ++i)
            o[i] =
                (v[i] * std::cos(th) + kxv[i] * std::sin(th) + k * kdv * (1 - std::cos(th))) * max;
        return o;
    });
}

Image ref_grayscale(const Image& in) {
    return map_pixels(in, [](std::array<double, 3> v) {
        const double l = kLuma[0] * v[0] + kLuma[1] * v[1] + kLuma[2] * v[2];
        return std::array<double, 3>{l, l, l};
    });
}

Image ref_sepia(const Image& in) {
    return map_pixels(in, [](std::array<double, 3> v) {
        return std::array<double, 3>{0.393 * v[0] + 0.769 * v[1] + 0.189 * v[2],
                                     0.349 * v[0] + 0.686 * v[1] + 0.168 * v[2],
                                     0.272 * v[0] + 0.534 * v[1] + 0.131 * v[2]};
    });
}

int cx(const Image& in, int x) {
    return std::clamp(x, 0, in.width - 1);
}
int cy(const Image& in, int y) {
    return std::clamp(y, 0, in.height - 1);
}

// The unrounded mean of the (2r+1)^2 clamped window, literally.
double box_mean(const Image& in, int x, int y, int c, int r) {
    double s = 0;
    for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx)
            s += in.at(cx(in, x + dx), cy(in, y + dy), c);
    return s / ((2.0 * r + 1) * (2.0 * r + 1));
}

Image ref_box(const Image& in, int r) {
    Image out = in;
    for (int y = 0; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x)
            for (int c = 0; c < 3; ++c)
                out.at(x, y, c) = ref_quantise(box_mean(in, x, y, c, r), in.max_value());
    return out;
}

Image ref_sharpen(const Image& in, int r, double amount) {
    Image out = in;
    for (int y = 0; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x)
            for (int c = 0; c < 3; ++c) {
                const double v = in.at(x, y, c);
                out.at(x, y, c) =
                    ref_quantise(v + amount * (v - box_mean(in, x, y, c, r)), in.max_value());
            }
    return out;
}

Image ref_sobel(const Image& in) {
    auto luma = [&](int x, int y) {
        x = cx(in, x);
        y = cy(in, y);
        return kLuma[0] * in.at(x, y, 0) + kLuma[1] * in.at(x, y, 1) + kLuma[2] * in.at(x, y, 2);
    };
    Image out = in;
    for (int y = 0; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x) {
            const double gx = (luma(x + 1, y - 1) + 2 * luma(x + 1, y) + luma(x + 1, y + 1)) -
                              (luma(x - 1, y - 1) + 2 * luma(x - 1, y) + luma(x - 1, y + 1));
            const double gy = (luma(x - 1, y + 1) + 2 * luma(x, y + 1) + luma(x + 1, y + 1)) -
                              (luma(x - 1, y - 1) + 2 * luma(x, y - 1) + luma(x + 1, y - 1));
            const uint16_t m = ref_quantise(std::sqrt(gx * gx + gy * gy) / 4, in.max_value());
            for (int c = 0; c < 3; ++c)
                out.at(x, y, c) = m;
        }
    return out;
}

Image reference(const FilterInstance& f, const Image& in) {
    const std::string& n = f.name();
    if (n == "color")
        return ref_color(in, f.get_float("brightness"), f.get_float("contrast"),
                         f.get_float("saturation"), f.get_float("hue"));
    if (n == "grayscale") return ref_grayscale(in);
    if (n == "sepia") return ref_sepia(in);
    if (n == "box") return ref_box(in, static_cast<int>(f.get_int("radius")));
    if (n == "sharpen")
        return ref_sharpen(in, static_cast<int>(f.get_int("radius")), f.get_float("amount"));
    if (n == "sobel") return ref_sobel(in);
    ADD_FAILURE() << "no reference for " << n;
    return in;
}

// ---- running one filter ----

std::string describe(const std::string& chain, const Image& in) {
    return chain + " " + std::to_string(in.width) + "x" + std::to_string(in.height) + " " +
           std::string(to_string(in.format));
}

// R, G, B within `tol` LSB of the reference, alpha identical to the input. Returns the output.
Image check_image(const std::string& chain, const Image& in, int tol = 1) {
    Image got = run_filter(*test_cl(), chain, in);
    const Image ref = reference(parse_chain(chain).filters.front(), in);
    std::string where;
    EXPECT_LE(max_diff(got, ref, 0, 2, &where), tol)
        << describe(chain, in) << " worst at " << where;
    EXPECT_EQ(max_diff(got, in, 3, 3, &where), 0)
        << describe(chain, in) << ": alpha changed at " << where;
    return got;
}

Image check(const std::string& chain, int w, int h, WorkFormat f, uint32_t seed, int tol = 1) {
    std::mt19937 rng(seed);
    return check_image(chain, random_image(w, h, f, rng), tol);
}

// Outputs of the first tuned candidate, per case: every other candidate must give the same
// frame bit for bit (the tuner's choice may only change speed).
class SameAsFirst {
public:
    // check(), then the output against the first one recorded for this case (recorded here
    // when it is the first).
    void check(const std::string& chain, int w, int h, WorkFormat f, uint32_t seed,
               const std::string& label, int tol = 1) {
        Image got = ::vfx::test::check(chain, w, h, f, seed, tol);
        for (const auto& [kernel, chosen] : test_cl()->tuner().choices())
            if (chosen == label) ran_.insert(label);
        const std::string key = describe(chain, got) + " seed " + std::to_string(seed);
        if (auto it = first_.find(key); it != first_.end())
            EXPECT_EQ(got.px, it->second.px) << key << ": " << label << " differs from the first";
        else
            first_.emplace(key, std::move(got));
    }

    // Whether candidate `label` (forced) was what ran in any check so far: a forced candidate
    // that does not fit the device or applies to no case runs nowhere, and its checks test
    // another one.
    bool ran(const std::string& label) const { return ran_.count(label) != 0; }

private:
    std::map<std::string, Image> first_;
    std::set<std::string> ran_;
};

constexpr WorkFormat kFormats[] = {WorkFormat::rgba8, WorkFormat::rgba16};
constexpr std::pair<int, int> kSmallSizes[] = {{1, 1}, {2, 3}, {17, 13}, {3, 1}, {1, 5}};

class ColorFilters : public ::testing::Test {
protected:
    void SetUp() override { VFX_REQUIRE_CL(); }
};

// ---- colour ----

TEST_F(ColorFilters, PointwiseOddSizesBothFormats) {
    for (WorkFormat wf : kFormats) {
        uint32_t seed = 100;
        for (auto [w, h] : kSmallSizes)
            for (const char* chain :
                 {"color", "color=brightness=0.1:contrast=1.3:saturation=1.7:hue=33", "grayscale",
                  "sepia"})
                check(chain, w, h, wf, ++seed);
        for (const char* chain :
             {"color=brightness=-0.05:contrast=0.8:saturation=0.6:hue=-75", "grayscale", "sepia"})
            check(chain, 640, 480, wf, ++seed);
    }
}

TEST_F(ColorFilters, ColorParameterExtremes) {
    const char* chains[] = {
        "color=contrast=0",
        "color=contrast=4",
        "color=brightness=-1",
        "color=brightness=1",
        "color=saturation=0",
        "color=saturation=4",
        "color=hue=180",
        "color=hue=-180",
        "color=hue=90",
        "color=hue=-120",
        "color=hue=1",
        "color=brightness=0.3:contrast=0.25",
        "color=brightness=-1:contrast=4:saturation=4:hue=-180",
        "color=brightness=1:contrast=0:saturation=0:hue=180",
        "color=brightness=0.2:contrast=2:saturation=3:hue=150",
    };
    uint32_t seed = 200;
    for (WorkFormat wf : kFormats)
        for (const char* chain : chains)
            check(chain, 17, 13, wf, ++seed);
}

TEST_F(ColorFilters, HueDirectionAndIdentity) {
    // Pure red turned by +120 degrees about the grey axis is pure green, by -120 pure blue;
    // the defaults are the identity. Pins the sign convention independently of the reference.
    ClContext& cl = *test_cl();
    for (WorkFormat wf : kFormats) {
        Image red{3, 2, wf, {}};
        const auto m = static_cast<uint16_t>(red.max_value());
        for (int i = 0; i < 6; ++i)
            red.px.insert(red.px.end(), {m, 0, 0, static_cast<uint16_t>(i * 7)});
        const Image g = run_filter(cl, "color=hue=120", red);
        const Image b = run_filter(cl, "color=hue=-120", red);
        for (int i = 0; i < 6; ++i) {
            const auto k = static_cast<size_t>(i) * 4;
            EXPECT_LE(g.px[k], 1);
            EXPECT_GE(g.px[k + 1], m - 1);
            EXPECT_LE(g.px[k + 2], 1);
            EXPECT_LE(b.px[k], 1);
            EXPECT_LE(b.px[k + 1], 1);
            EXPECT_GE(b.px[k + 2], m - 1);
            EXPECT_EQ(g.px[k + 3], i * 7);
        }
        std::mt19937 rng(7);
        const Image in = random_image(31, 7, wf, rng);
        std::string where;
        EXPECT_EQ(max_diff(run_filter(cl, "color", in), in, 0, 3, &where), 0) << where;
        // Grey stays grey under any hue and saturation.
        Image grey{1, 1, wf, {100, 100, 100, 5}};
        const Image gg = run_filter(cl, "color=hue=77:saturation=3", grey);
        EXPECT_LE(std::abs(int{gg.px[0]} - int{grey.px[0]}), 1);
        EXPECT_EQ(gg.px[0], gg.px[1]);
        EXPECT_EQ(gg.px[1], gg.px[2]);
    }
}

// ---- convolution ----

TEST_F(ColorFilters, BoxOddSizesAndRadiusExtremes) {
    uint32_t seed = 300;
    for (WorkFormat wf : kFormats) {
        for (auto [w, h] : kSmallSizes)
            for (int r : {1, 2, 64})
                check("box=radius=" + std::to_string(r), w, h, wf, ++seed);
        check("box=radius=1", 17, 13, wf, ++seed);
        check("box=radius=64", 17, 13, wf, ++seed);  // window far larger than the frame
        check("box=radius=7", 67, 35, wf, ++seed);
        check("box=radius=64", 300, 41, wf, ++seed);  // rows longer than one scan chunk
        check("box=radius=3", 640, 480, wf, ++seed);
    }
}

TEST_F(ColorFilters, BoxIsExactMean) {
    // Integer window sums and integer rounding: identical to the double reference, and the
    // 32-bit prefix sums wrap on this tall 16-bit frame (600 * 129 * 65535 > 2^32).
    check("box=radius=64", 7, 600, WorkFormat::rgba16, 401, 0);
    check("box=radius=5", 61, 29, WorkFormat::rgba8, 402, 0);
    ClContext& cl = *test_cl();
    Image full{1920, 1080, WorkFormat::rgba16, {}};
    full.px.assign(size_t{1920} * 1080 * 4, 65535);
    std::string where;
    EXPECT_EQ(max_diff(run_filter(cl, "box=radius=64", full), full, 0, 3, &where), 0) << where;
}

// Every tuned candidate (forced in turn), bit-exact, on sizes that are not multiples of a
// work-item's block and on frames smaller than the window. Radii 1 and 5 (the ones the
// candidates were picked for) in both formats; 6 and 64 (other quad / pixel splits of the
// horizontal window) on RGBA16, 3, 4 and 7 on RGBA8.
TEST_F(ColorFilters, BoxEveryTunedVariant) {
    ClContext& cl = *test_cl();
    SameAsFirst same;
    for (const KernelVariant& v : stencil::box_variants()) {
        cl.tuner().force(v.label());
        SCOPED_TRACE(v.label());
        uint32_t seed = 350;
        for (auto [w, h] : {std::pair{67, 29}, {1, 1}, {3, 200}, {130, 7}, {5, 37}}) {
            for (WorkFormat wf : kFormats) {
                same.check("box=radius=1", w, h, wf, ++seed, v.label(), 0);
                same.check("box=radius=5", w, h, wf, ++seed, v.label(), 0);
            }
            same.check("box=radius=6", w, h, WorkFormat::rgba16, ++seed, v.label(), 0);
            same.check("box=radius=64", w, h, WorkFormat::rgba16, ++seed, v.label(), 0);
            // The largest radius of the two-channels-per-register (SW) candidates, and 3 and 4
            // (single words only / whole quads only beside the block's; the ring of CR=1 fits
            // the NVIDIA device's __local memory only up to radius 3 or 4).
            same.check("box=radius=7", w, h, WorkFormat::rgba8, ++seed, v.label(), 0);
            same.check("box=radius=3", w, h, WorkFormat::rgba8, ++seed, v.label(), 0);
            same.check("box=radius=4", w, h, WorkFormat::rgba8, ++seed, v.label(), 0);
            // 2 and 6 on RGBA8: box.cl's SH reaches its neighbours 1 and 2 work-items away.
            same.check("box=radius=2", w, h, WorkFormat::rgba8, ++seed, v.label(), 0);
            same.check("box=radius=6", w, h, WorkFormat::rgba8, ++seed, v.label(), 0);
        }
        // A frame with whole work-groups inside it and partial ones at its right and bottom
        // edges (32x4 work-items of 4 x 32 pixels: 128 x 128 pixels a group): blocks walking
        // their full length beside blocks cut short by the frame.
        for (int r : {1, 3, 5, 7})
            same.check("box=radius=" + std::to_string(r), 300, 290, WorkFormat::rgba8, ++seed,
                       v.label(), 0);
        // Tall enough for groups of 8 walks of 18 rows with whole groups above and below them
        // (box.cl's SH takes its edge-free walk there), and 85 quads wide: SH's groups of 28
        // output quads need 4 across, so a launch grid that miscounts them (group_px) leaves
        // the last column of pixels unwritten.
        for (int r : {1, 3, 5, 7})
            same.check("box=radius=" + std::to_string(r), 338, 620, WorkFormat::rgba8, ++seed,
                       v.label(), 0);
        // A white frame at radius 7: every 16-bit lane at its largest sum (225 * 255).
        Image full{37, 21, WorkFormat::rgba8, {}};
        full.px.assign(size_t{37} * 21 * 4, 255);
        std::string where;
        EXPECT_EQ(max_diff(run_filter(cl, "box=radius=7", full), full, 0, 3, &where), 0) << where;
        EXPECT_TRUE(same.ran(v.label())) << v.label() << " ran in none of the checks";
    }
    cl.tuner().force("");
}

TEST_F(ColorFilters, SharpenSizesAndExtremes) {
    uint32_t seed = 500;
    for (WorkFormat wf : kFormats) {
        for (auto [w, h] : kSmallSizes)
            for (const char* chain : {"sharpen", "sharpen=radius=2:amount=2.5"})
                check(chain, w, h, wf, ++seed);
        check("sharpen=radius=1:amount=0", 17, 13, wf, ++seed);  // identity
        check("sharpen=radius=1:amount=5", 17, 13, wf, ++seed);  // heavy saturation
        check("sharpen=radius=2:amount=5", 17, 13, wf, ++seed);
        check("sharpen=radius=2:amount=0.3", 45, 71, wf, ++seed);
        check("sharpen=radius=1:amount=1.2", 640, 480, wf, ++seed);
    }
}

// common.h's vfx_sqrt_cr (sobel's magnitude), built as sobel builds it
// (ClDeviceInfo::sqrt_cr_options()): equal to the program's correctly rounded sqrt() on every
// float of its domain (0 and 2^-101 .. FLT_MAX: 1.9 billion values, counted on the device) where
// its inline-PTX step is compiled (-DVFX_SQRT_STEP=1: NVIDIA sm_90), on 0 and every 4099th
// elsewhere (where both are sqrt()); and both equal to the host's std::sqrt (IEEE: correctly
// rounded) on 0, every 7th float of [1, 4) and every 4099th of the domain.
TEST(CorrectlyRoundedSqrt, MatchesSqrtOnItsDomain) {
    VFX_REQUIRE_CL();
    ClContext& cl = *test_cl();
    if (cl.info().correctly_rounded_option().empty())
        GTEST_SKIP() << "the device does not build with -cl-fp32-correctly-rounded-divide-sqrt";
    cl.add_source("test-sqrt-cr.cl", R"CL(
// Floats lo + stride i, i < n (bits), each work-item `per` of them, and work-item 0 also 0:
// mismatches counted.
__kernel void sqrt_domain(uint lo, uint stride, uint n, uint per, __global uint* wrong,
                          __global uint* first) {
    uint bad = 0;
    if (get_global_id(0) == 0 && as_uint(vfx_sqrt_cr(0.0f)) != as_uint(sqrt(0.0f))) {
        ++bad;
        atomic_min(first, 0u);
    }
    for (uint k = 0; k < per; ++k) {
        const uint i = (uint)get_global_id(0) * per + k;
        if (i >= n) break;
        const uint b = lo + stride * i;
        if (as_uint(vfx_sqrt_cr(as_float(b))) != as_uint(sqrt(as_float(b)))) {
            ++bad;
            atomic_min(first, b);
        }
    }
    if (bad) atomic_add(wrong, bad);
}
__kernel void sqrt_list(__global const uint* x, uint n, __global uint* fast, __global uint* plain) {
    const uint i = (uint)get_global_id(0);
    if (i >= n) return;
    fast[i] = as_uint(vfx_sqrt_cr(as_float(x[i])));
    plain[i] = as_uint(sqrt(as_float(x[i])));
}
)CL");
    const std::string options = cl.info().sqrt_cr_options();
    const auto read_uint = [&](const ClMem& m) {
        uint32_t v = 0;
        VFX_CL(clEnqueueReadBuffer(cl.queue(), m.get(), CL_TRUE, 0, sizeof v, &v, 0, nullptr,
                                   nullptr));
        return v;
    };

    // The domain, on the device: all of it where the step is compiled (milliseconds on the GPUs
    // that compile it), by steps elsewhere.
    const bool step = options.find("-DVFX_SQRT_STEP=1") != std::string::npos;
    const uint32_t lo = 0x0D000000u, hi = 0x7F7FFFFFu, stride = step ? 1u : 4099u;
    const uint32_t n = (hi - lo) / stride + 1, per = 256;
    uint32_t zero = 0, none = 0xFFFFFFFFu;
    ClMem wrong = cl.buffer(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero, &zero);
    ClMem first = cl.buffer(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof none, &none);
    ClKernel dk = cl.kernel("test-sqrt-cr.cl", "sqrt_domain", options);
    set_args(dk.get(), cl_uint{lo}, cl_uint{stride}, cl_uint{n}, cl_uint{per}, wrong.get(),
             first.get());
    enqueue_2d(cl.queue(), dk.get(), (n + per - 1) / per, 1,
               fit_local_2d(dk.get(), cl.device(), 64, 1));
    EXPECT_EQ(read_uint(wrong), 0u)
        << "of " << n << " floats from 0x" << std::hex << lo << " in steps of " << std::dec
        << stride << "; the first wrong one: 0x" << std::hex << read_uint(first);

    // Against the host, on a sample.
    std::vector<uint32_t> bits{0u};
    for (uint32_t b = 0x3F800000u; b < 0x40800000u; b += 7)
        bits.push_back(b);
    for (uint32_t b = lo; b <= hi; b += 4099)
        bits.push_back(b);
    bits.push_back(hi);
    const size_t bytes = bits.size() * sizeof(uint32_t);
    ClMem x = cl.buffer(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, bits.data());
    ClMem fast = cl.buffer(CL_MEM_WRITE_ONLY, bytes);
    ClMem plain = cl.buffer(CL_MEM_WRITE_ONLY, bytes);
    ClKernel k = cl.kernel("test-sqrt-cr.cl", "sqrt_list", options);
    set_args(k.get(), x.get(), static_cast<cl_uint>(bits.size()), fast.get(), plain.get());
    enqueue_2d(cl.queue(), k.get(), bits.size(), 1, fit_local_2d(k.get(), cl.device(), 64, 1));
    std::vector<uint32_t> f(bits.size()), p(bits.size());
    VFX_CL(clEnqueueReadBuffer(cl.queue(), fast.get(), CL_TRUE, 0, bytes, f.data(), 0, nullptr,
                               nullptr));
    VFX_CL(clEnqueueReadBuffer(cl.queue(), plain.get(), CL_TRUE, 0, bytes, p.data(), 0, nullptr,
                               nullptr));
    int reported = 0;
    for (size_t i = 0; i < bits.size() && reported < 10; ++i) {
        const uint32_t want = std::bit_cast<uint32_t>(std::sqrt(std::bit_cast<float>(bits[i])));
        if (f[i] != want || p[i] != want) {
            ++reported;
            ADD_FAILURE() << std::hex << "sqrt of 0x" << bits[i] << ": 0x" << f[i]
                          << " (vfx_sqrt_cr), 0x" << p[i] << " (sqrt()), want 0x" << want;
        }
    }
}

TEST_F(ColorFilters, SobelSizesAndBorders) {
    uint32_t seed = 600;
    for (WorkFormat wf : kFormats) {
        for (auto [w, h] : kSmallSizes)
            check("sobel", w, h, wf, ++seed);
        check("sobel", 45, 71, wf, ++seed);
        check("sobel", 640, 480, wf, ++seed);
        // A flat frame has no edges anywhere, borders included; a vertical step has gx only.
        ClContext& cl = *test_cl();
        Image flat{9, 5, wf, {}};
        flat.px.assign(9 * 5 * 4, 200);
        const Image z = run_filter(cl, "sobel", flat);
        for (size_t i = 0; i < z.px.size(); ++i)
            EXPECT_EQ(z.px[i], i % 4 == 3 ? 200 : 0) << i;
        Image step{6, 4, wf, {}};
        for (int y = 0; y < 4; ++y)
            for (int x = 0; x < 6; ++x) {
                const auto v = static_cast<uint16_t>(x < 3 ? 0 : 40);
                step.px.insert(step.px.end(), {v, v, v, 1});
            }
        const Image e = run_filter(cl, "sobel", step);
        // Columns 2 and 3 see the step: gx = 4 * 40, magnitude 40; the others see none.
        for (int y = 0; y < 4; ++y)
            for (int x = 0; x < 6; ++x)
                EXPECT_EQ(e.at(x, y, 0), (x == 2 || x == 3) ? 40 : 0) << x << "," << y;
    }
}

// Every tuned candidate of sharpen and sobel (forced in turn), on sizes that are not multiples
// of a work-item's block: within 1 LSB of the reference and bit-identical to the first.
TEST_F(ColorFilters, SharpenSobelEveryTunedVariant) {
    ClContext& cl = *test_cl();
    SameAsFirst same;
    for (const KernelVariant& v : stencil::sharpen_box_variants()) {
        cl.tuner().force(v.label());
        SCOPED_TRACE(v.label());
        uint32_t seed = 550;
        for (auto [w, h] : {std::pair{67, 29}, {1, 1}, {3, 200}, {130, 7}, {5, 37}})
            for (WorkFormat wf : kFormats) {
                same.check("sharpen=radius=1:amount=1.5", w, h, wf, ++seed, v.label());
                same.check("sharpen=radius=2:amount=0.7", w, h, wf, ++seed, v.label());
            }
        // Whole work-groups inside the frame and partial ones at its edges (as in the box test).
        same.check("sharpen=radius=1:amount=1.5", 300, 290, WorkFormat::rgba8, ++seed, v.label());
        // The amount's extremes: saturation at both ends everywhere, and none at all.
        same.check("sharpen=radius=1:amount=5", 67, 29, WorkFormat::rgba8, ++seed, v.label());
        same.check("sharpen=radius=2:amount=0", 67, 29, WorkFormat::rgba8, ++seed, v.label());
        EXPECT_TRUE(same.ran(v.label())) << v.label() << " ran in none of the checks";
    }
    for (const KernelVariant& v : stencil::sobel_variants()) {
        cl.tuner().force(v.label());
        SCOPED_TRACE(v.label());
        uint32_t seed = 650;
        for (auto [w, h] : {std::pair{67, 29}, {1, 1}, {3, 200}, {130, 7}, {5, 37}})
            for (WorkFormat wf : kFormats)
                same.check("sobel", w, h, wf, ++seed, v.label());
        same.check("sobel", 300, 290, WorkFormat::rgba8, ++seed, v.label());
    }
    cl.tuner().force("");
}

TEST_F(ColorFilters, FullHd) {
    check("sobel", 1920, 1080, WorkFormat::rgba8, 701);
    check("box=radius=2", 1920, 1080, WorkFormat::rgba16, 702);
    check("color=brightness=0.1:contrast=1.5:saturation=2:hue=45", 1920, 1080, WorkFormat::rgba8,
          703);
}

TEST_F(ColorFilters, ProcessorRunsChainOfThem) {
    // Through the processor (rgba source, identity conversion, ping-pong buffers): the chain's
    // output equals the filters run one after another, and each is a named stage.
    ClContext& cl = *test_cl();
    for (WorkFormat wf : kFormats) {
        std::mt19937 rng(801);
        Image in = random_image(37, 21, wf, rng);
        for (int y = 0; y < in.height; ++y)
            for (int x = 0; x < in.width; ++x)
                in.at(x, y, 3) = static_cast<uint16_t>(in.max_value());  // conversion sets alpha
        const bool deep = wf == WorkFormat::rgba16;
        const SourceCase sc =
            deep ? SourceCase{"rgba64", AV_PIX_FMT_RGBA64LE,
                              make_sf(PlaneLayout::rgba, 16, 2, 0, 0, 0)}
                 : SourceCase{"rgba", AV_PIX_FMT_RGBA, make_sf(PlaneLayout::rgba, 8, 1, 0, 0, 0)};
        HostFrame frame = random_frame(sc, in.width, in.height, ColorInfo{}, rng);
        for (int y = 0; y < in.height; ++y) {
            uint8_t* row = frame.av->data[0] + static_cast<ptrdiff_t>(y) * frame.av->linesize[0];
            for (int x = 0; x < in.width; ++x)
                for (int c = 0; c < 4; ++c) {
                    const uint16_t v = in.at(x, y, c);
                    if (deep)
                        std::memcpy(row + 8 * x + 2 * c, &v, 2);
                    else
                        row[4 * x + c] = static_cast<uint8_t>(v);
                }
        }
        const std::vector<std::string> stages = {"color=contrast=1.2:hue=30", "box=radius=2",
                                                 "sharpen=radius=2:amount=0.7", "sepia"};
        std::string text;
        Image expect = in;
        for (const std::string& s : stages) {
            text += (text.empty() ? "" : ",") + s;
            expect = run_filter(cl, s, expect);
        }
        FrameProcessor proc(cl, parse_chain(text));
        PendingFrame pend;
        const Image got = process(proc, cl, frame, &pend);
        std::string where;
        EXPECT_LE(max_diff(got, expect, 0, 3, &where), 1) << text << " " << where;
        const auto t = pend.timings();
        ASSERT_EQ(t.size(), 2 + stages.size());
        const char* names[] = {"upload", "convert", "color", "box", "sharpen", "sepia"};
        for (size_t i = 0; i < t.size(); ++i)
            EXPECT_EQ(t[i].name, names[i]);
    }
}

// ---- registration and chain text (no device needed) ----

TEST(ColorRegistry, FlagsRangesDefaults) {
    for (const char* n : {"color", "grayscale", "sepia"}) {
        const FilterInfo* f = find_filter(n);
        ASSERT_NE(f, nullptr) << n;
        EXPECT_TRUE(f->pointwise) << n;
        EXPECT_FALSE(f->help.empty()) << n;
    }
    for (const char* n : {"box", "sharpen", "sobel"}) {
        const FilterInfo* f = find_filter(n);
        ASSERT_NE(f, nullptr) << n;
        EXPECT_FALSE(f->pointwise) << n;
        EXPECT_FALSE(f->help.empty()) << n;
    }
    const FilterInfo* c = find_filter("color");
    ASSERT_EQ(c->params.size(), 4u);
    const char* names[] = {"brightness", "contrast", "saturation", "hue"};
    const double mins[] = {-1, 0, 0, -180}, maxs[] = {1, 4, 4, 180}, defs[] = {0, 1, 1, 0};
    for (size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(c->params[i].name, names[i]);
        EXPECT_EQ(c->params[i].min, mins[i]);
        EXPECT_EQ(c->params[i].max, maxs[i]);
        EXPECT_EQ(std::get<double>(c->params[i].default_value), defs[i]);
        EXPECT_FALSE(c->params[i].help.empty());
    }
    const FilterInstance box = make_filter("box");
    EXPECT_EQ(box.get_int("radius"), 2);
    const FilterInstance sh = make_filter("sharpen");
    EXPECT_EQ(sh.get_int("radius"), 1);
    EXPECT_EQ(sh.get_float("amount"), 1.0);
    EXPECT_TRUE(find_filter("sobel")->params.empty());
    EXPECT_TRUE(find_filter("grayscale")->params.empty());
    EXPECT_TRUE(find_filter("sepia")->params.empty());
}

TEST(ColorRegistry, ChainRoundTripAndErrors) {
    for (const char* text :
         {"color", "grayscale", "sepia", "box", "sharpen", "sobel",
          "color=brightness=-0.25:contrast=3.75:saturation=0.1:hue=-179.5,grayscale,sepia",
          "box=radius=64,sharpen=radius=2:amount=4.5,sobel,box=radius=1",
          "color=hue=180,box=radius=1,gaussian=sigma=2,sharpen=amount=0,color=brightness=1"}) {
        const Chain c = parse_chain(text);
        const std::string printed = format_chain(c);
        EXPECT_EQ(parse_chain(printed), c) << text << " -> " << printed;
        EXPECT_EQ(format_chain(parse_chain(printed)), printed);
    }
    EXPECT_EQ(format_chain(parse_chain("box,sobel,sharpen,grayscale,sepia")),
              "box=radius=2,sobel,sharpen=radius=1:amount=1,grayscale,sepia");
    EXPECT_EQ(format_chain(parse_chain("color")),
              "color=brightness=0:contrast=1:saturation=1:hue=0");
    auto error_of = [](const char* text) -> std::string {
        try {
            parse_chain(text);
        } catch (const Error& e) {
            return e.what();
        }
        return "(no error)";
    };
    EXPECT_EQ(error_of("box=radius=0"), "box: radius=0 is out of range [1, 64]");
    EXPECT_EQ(error_of("box=radius=65"), "box: radius=65 is out of range [1, 64]");
    EXPECT_EQ(error_of("sharpen=radius=3"), "sharpen: radius=3 is out of range [1, 2]");
    EXPECT_EQ(error_of("sharpen=amount=5.5"), "sharpen: amount=5.5 is out of range [0, 5]");
    EXPECT_EQ(error_of("color=hue=181"), "color: hue=181 is out of range [-180, 180]");
    EXPECT_EQ(error_of("color=contrast=-0.1"), "color: contrast=-0.1 is out of range [0, 4]");
    EXPECT_NE(error_of("box=radius=1.5"), "(no error)");
    EXPECT_NE(error_of("sobel=radius=1"), "(no error)");
}

}  // namespace
}  // namespace vfx::test
