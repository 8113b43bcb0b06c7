// The conversion kernel against the double-precision reference of the contract in
// engine/core/format.hpp (tests/support/convert_ref), every layout, matrix, range, bit depth and
// awkward size, within 1 LSB of the working format.
#include <gtest/gtest.h>

#include "compute/processor.hpp"
#include "compute_test_util.hpp"
#include "core/error.hpp"
#include "support/convert_ref.hpp"

namespace vfx::test {
namespace {

using L = PlaneLayout;

const SourceCase kCases[] = {
    {"yuv420p", AV_PIX_FMT_YUV420P, make_sf(L::yuv_planar, 8, 1, 0, 1, 1)},
    {"yuv422p", AV_PIX_FMT_YUV422P, make_sf(L::yuv_planar, 8, 1, 0, 1, 0)},
    {"yuv444p", AV_PIX_FMT_YUV444P, make_sf(L::yuv_planar, 8, 1, 0, 0, 0)},
    {"yuv420p10", AV_PIX_FMT_YUV420P10LE, make_sf(L::yuv_planar, 10, 2, 0, 1, 1)},
    {"yuv422p10", AV_PIX_FMT_YUV422P10LE, make_sf(L::yuv_planar, 10, 2, 0, 1, 0)},
    {"yuv444p12", AV_PIX_FMT_YUV444P12LE, make_sf(L::yuv_planar, 12, 2, 0, 0, 0)},
    {"yuv420p16", AV_PIX_FMT_YUV420P16LE, make_sf(L::yuv_planar, 16, 2, 0, 1, 1)},
    {"nv12", AV_PIX_FMT_NV12, make_sf(L::yuv_semiplanar, 8, 1, 0, 1, 1)},
    {"p010", AV_PIX_FMT_P010LE, make_sf(L::yuv_semiplanar, 10, 2, 6, 1, 1)},
    {"p016", AV_PIX_FMT_P016LE, make_sf(L::yuv_semiplanar, 16, 2, 0, 1, 1)},
    {"yuyv422", AV_PIX_FMT_YUYV422, make_sf(L::yuyv, 8, 1, 0, 1, 0)},
    {"gray", AV_PIX_FMT_GRAY8, make_sf(L::gray, 8, 1, 0, 0, 0)},
    {"gray10", AV_PIX_FMT_GRAY10LE, make_sf(L::gray, 10, 2, 0, 0, 0)},
    {"gray16", AV_PIX_FMT_GRAY16LE, make_sf(L::gray, 16, 2, 0, 0, 0)},
    {"rgba", AV_PIX_FMT_RGBA, make_sf(L::rgba, 8, 1, 0, 0, 0)},
    {"rgba64", AV_PIX_FMT_RGBA64LE, make_sf(L::rgba, 16, 2, 0, 0, 0)},
};

bool is_yuv(const SourceFormat& f) {
    return f.layout != L::rgba && f.layout != L::gray;
}

// Converted output vs reference_convert; `what` names the case in failures.
void expect_matches_reference(const Image& got, const HostFrame& frame, const std::string& what) {
    const RefImage ref = reference_convert(frame);
    ASSERT_EQ(got.width, ref.width);
    ASSERT_EQ(got.height, ref.height);
    ASSERT_EQ(got.format, ref.format);
    int worst = 0;
    std::string where;
    for (int y = 0; y < ref.height; ++y)
        for (int x = 0; x < ref.width; ++x)
            for (int c = 0; c < 4; ++c) {
                const int d = std::abs(int{got.at(x, y, c)} - int{ref.at(x, y, c)});
                if (d > worst) {
                    worst = d;
                    where = "(" + std::to_string(x) + "," + std::to_string(y) + ") ch " +
                            std::to_string(c) + ": got " + std::to_string(got.at(x, y, c)) +
                            ", reference " + std::to_string(ref.at(x, y, c));
                }
                if (c == 3) {
                    ASSERT_EQ(got.at(x, y, c), ref.at(x, y, c)) << what << " alpha";
                }
            }
    EXPECT_LE(worst, 1) << what << " worst at " << where;
}

class Convert : public ::testing::TestWithParam<SourceCase> {
protected:
    void SetUp() override { VFX_REQUIRE_CL(); }
};

TEST_P(Convert, MatchesReferenceEveryMatrixRangeAndSize) {
    const SourceCase& c = GetParam();
    ClContext& cl = *test_cl();
    FrameProcessor proc(cl, Chain{});
    std::mt19937 rng(1234);
    const std::pair<int, int> sizes[] = {{1, 1}, {3, 5}, {17, 13}, {2, 2}, {641, 479}};
    const Matrix matrices[] = {Matrix::bt601, Matrix::bt709, Matrix::bt2020};
    const Range ranges[] = {Range::limited, Range::full};
    for (auto [w, h] : sizes) {
        for (Matrix m : matrices) {
            for (Range r : ranges) {
                // gray and rgba ignore the matrix and range: one pass is enough for them.
                if (!is_yuv(c.format) && (m != Matrix::bt601 || r != Range::limited)) continue;
                // The large size once per layout and range (the matrix is a kernel argument).
                if (w > 100 && m != Matrix::bt709) continue;
                ColorInfo color;
                color.matrix = m;
                color.range = r;
                HostFrame frame = random_frame(c, w, h, color, rng);
                ASSERT_TRUE(frame.av);
                const std::string what = std::string(c.name) + " " + std::to_string(w) + "x" +
                                         std::to_string(h) + " " + std::string(to_string(m)) + " " +
                                         std::string(to_string(r));
                expect_matches_reference(process(proc, cl, frame), frame, what);
                if (HasFatalFailure()) return;
            }
        }
    }
}

// Every tuned candidate gives the same frame, bit for bit (PX 4's word loads of 8-bit 4:2:x
// planes against the sample-at-a-time path), on widths that end in a partial quad.
TEST_P(Convert, EveryTunedVariantGivesTheSameFrame) {
    const SourceCase& c = GetParam();
    ClContext& cl = *test_cl();
    std::mt19937 rng(99);
    for (auto [w, h] : {std::pair{67, 9}, {64, 4}, {6, 3}}) {
        ColorInfo color;
        color.matrix = Matrix::bt709;
        color.range = Range::limited;
        const HostFrame frame = random_frame(c, w, h, color, rng);
        std::vector<uint16_t> first;
        for (const KernelVariant& v : FrameProcessor::convert_variants()) {
            cl.tuner().force(v.label());
            FrameProcessor proc(cl, Chain{});
            const Image got = process(proc, cl, frame);
            if (first.empty())
                first = got.px;
            else
                EXPECT_TRUE(got.px == first) << c.name << " " << w << "x" << h << " " << v.label();
        }
        cl.tuner().force("");
    }
}

INSTANTIATE_TEST_SUITE_P(Layouts, Convert, ::testing::ValuesIn(kCases),
                         [](const auto& p) { return std::string(p.param.name); });

TEST(ConvertLarge, Yuv420p1080p) {
    VFX_REQUIRE_CL();
    ClContext& cl = *test_cl();
    FrameProcessor proc(cl, Chain{});
    std::mt19937 rng(99);
    ColorInfo color;  // bt709 limited
    HostFrame frame = random_frame(kCases[0], 1920, 1080, color, rng);
    PendingFrame pending;
    const Image got = process(proc, cl, frame, &pending);
    expect_matches_reference(got, frame, "yuv420p 1920x1080");
    const auto t = pending.timings();
    ASSERT_EQ(t.size(), 2u);
    EXPECT_EQ(t[0].name, "upload");
    EXPECT_EQ(t[1].name, "convert");
    for (const auto& s : t)
        EXPECT_GE(s.ms, 0.0) << s.name;
}

TEST(ConvertLarge, CopyUploadPath) {
    // The discrete-GPU upload (staging buffer copied to a device buffer), forced on any device.
    VFX_REQUIRE_CL();
    ClContext& cl = *test_cl();
    FrameProcessor proc(cl, Chain{}, /*force_copy_upload=*/true);
    std::mt19937 rng(77);
    for (const SourceCase& c : {kCases[0], kCases[8], kCases[10], kCases[15]}) {
        for (auto [w, h] : {std::pair{17, 13}, {641, 479}, {3, 5}}) {
            ColorInfo color;
            HostFrame frame = random_frame(c, w, h, color, rng);
            expect_matches_reference(process(proc, cl, frame), frame,
                                     std::string(c.name) + " copy " + std::to_string(w));
        }
    }
}

TEST(ConvertLarge, HandComputedPixels) {
    // Independent of the reference: limited-range 8-bit black, white, and 50% grey.
    VFX_REQUIRE_CL();
    ClContext& cl = *test_cl();
    FrameProcessor proc(cl, Chain{});
    std::mt19937 rng(1);
    HostFrame frame = random_frame(kCases[2], 3, 1, ColorInfo{}, rng);  // yuv444p
    const uint8_t ys[3] = {16, 235, 126};                               // 126: (126-16)/219
    for (int x = 0; x < 3; ++x) {
        frame.av->data[0][x] = ys[x];
        frame.av->data[1][x] = 128;
        frame.av->data[2][x] = 128;
    }
    const Image got = process(proc, cl, frame);
    const uint16_t expect[3] = {0, 255, 128};  // 110/219*255 = 128.08 -> 128
    for (int x = 0; x < 3; ++x)
        for (int c = 0; c < 3; ++c)
            EXPECT_EQ(got.at(x, 0, c), expect[x]) << x << "," << c;
    for (int x = 0; x < 3; ++x)
        EXPECT_EQ(got.at(x, 0, 3), 255);
}

}  // namespace
}  // namespace vfx::test
