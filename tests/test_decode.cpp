// engine/decode: sources, pixel formats, colour description, errors, queue, and the C++ reference
// conversion the OpenCL kernel is tested against.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

extern "C" {
#include <libavutil/frame.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
}

#include <atomic>
#include <memory>

#include "core/error.hpp"
#include "decode/frame_allocator.hpp"
#include "decode/source.hpp"
#include "support/convert_ref.hpp"
#include "support/media.hpp"
#include "support/numbered.hpp"

namespace fs = std::filesystem;
using namespace vfx;
using vfx::test::direct_clips;
using vfx::test::DirectClip;
using vfx::test::make_media;
using vfx::test::reference_convert;
using vfx::test::RefImage;

namespace {

using Clock = std::chrono::steady_clock;

// A folder of its own for the running test (tests may run in parallel under ctest -j).
std::string test_dir() {
    const auto* t = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(t->test_suite_name()) + "." + t->name();
    std::replace(name.begin(), name.end(), '/', '_');
    const fs::path d = fs::path(vfx::test::media_dir()) / ".." / "scratch" / "decode" / name;
    fs::remove_all(d);
    fs::create_directories(d);
    return d.string();
}

SourceOptions input(const std::string& path, const std::string& format = "") {
    SourceOptions o;
    o.input = path;
    o.format = format;
    return o;
}

std::vector<HostFrame> decode_all(const SourceOptions& o, size_t limit = 10000) {
    auto src = Source::open(o);
    std::vector<HostFrame> frames;
    while (frames.size() < limit) {
        std::optional<HostFrame> f = src->next();
        if (!f) break;
        frames.push_back(std::move(*f));
    }
    return frames;
}

std::vector<HostFrame> decode_all(const std::string& path) {
    SourceOptions o;
    o.input = path;
    return decode_all(o);
}

// Runs `fn`, expects a vfx::Error whose message is one line containing every piece of `parts`.
void expect_error(const std::function<void()>& fn, const std::vector<std::string>& parts) {
    try {
        fn();
        ADD_FAILURE() << "no vfx::Error thrown";
    } catch (const vfx::Error& e) {
        const std::string msg = e.what();
        std::printf("vfx::Error: %s\n", msg.c_str());
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
        for (const auto& p : parts)
            EXPECT_NE(msg.find(p), std::string::npos) << msg << " / " << p;
    }
}

SourceFormat sf(PlaneLayout layout, int bits, int bytes, int shift = 0, int cw = 0, int ch = 0) {
    SourceFormat f;
    f.layout = layout;
    f.bits = static_cast<uint8_t>(bits);
    f.bytes = static_cast<uint8_t>(bytes);
    f.shift = static_cast<uint8_t>(shift);
    f.chroma_w_log2 = static_cast<uint8_t>(cw);
    f.chroma_h_log2 = static_cast<uint8_t>(ch);
    return f;
}

ColorInfo ci(Matrix m, bool mt, Range r, bool rt) {
    ColorInfo c;
    c.matrix = m;
    c.matrix_tagged = mt;
    c.range = r;
    c.range_tagged = rt;
    return c;
}

// --- flat colour test patterns -------------------------------------------------------------

struct Rgb8 {
    int r, g, b;
};
// Top-left, top-right, bottom-left, bottom-right.
constexpr Rgb8 kQuads[4] = {{192, 64, 32}, {32, 160, 96}, {48, 80, 192}, {176, 176, 176}};

std::string hex(const Rgb8& c) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%02X%02X%02X", c.r, c.g, c.b);
    return buf;
}

// A -filter_complex graph of four flat quadrants made in RGB, then converted to `pix_fmt` by
// the scale filter with `scale_opts` (out_color_matrix, out_range): the YUV values follow the
// matrix we ask for, not the BT.601 that drawbox or color would use.
std::string quad_args(int w, int h, const std::string& scale_opts, const std::string& pix_fmt,
                      int frames) {
    const int lw = (w + 1) / 2, rw = w - lw, th = (h + 1) / 2, bh = h - th;
    const int ws[4] = {lw, rw, lw, rw}, hs[4] = {th, th, bh, bh};
    std::string g;
    const char* labels[4] = {"a", "b", "c", "d"};
    for (int i = 0; i < 4; ++i)
        g += "color=c=" + hex(kQuads[i]) + ":s=" + std::to_string(ws[i]) + "x" +
             std::to_string(hs[i]) + ":r=25,format=rgb24[" + labels[i] + "];";
    g += "[a][b]hstack[t];[c][d]hstack[u];[t][u]vstack";
    if (!scale_opts.empty()) g += ",scale=" + scale_opts;
    g += ",format=" + pix_fmt;
    return "-filter_complex \"" + g + "\" -frames:v " + std::to_string(frames);
}

// The reference conversion of `f` at the centre of each quadrant is the colour that went in,
// within `tol` of 255.
void expect_quads(const HostFrame& f, int tol = 6) {
    const RefImage img = reference_convert(f);
    const double scale = img.format == WorkFormat::rgba8 ? 1.0 : 257.0;
    const int xs[2] = {f.width / 4, f.width * 3 / 4}, ys[2] = {f.height / 4, f.height * 3 / 4};
    for (int q = 0; q < 4; ++q) {
        const int x = xs[q % 2], y = ys[q / 2];
        const int want[3] = {kQuads[q].r, kQuads[q].g, kQuads[q].b};
        for (int c = 0; c < 3; ++c) {
            const double got = img.at(x, y, c) / scale;
            EXPECT_NEAR(got, want[c], tol) << "quadrant " << q << " channel " << c << " at " << x
                                           << "," << y << " (" << f.pixel_format << ")";
        }
        EXPECT_EQ(img.at(x, y, 3), img.format == WorkFormat::rgba8 ? 255 : 65535);
    }
}

// --- the clip matrix ---------------------------------------------------------------------------

struct ClipCase {
    std::string name;  // test name; the clip is <name>.<ext>
    std::string ext;
    std::string args;  // ffmpeg arguments
    int width = 0, height = 0, frames = 0;
    std::string pixel_format;
    SourceFormat format;
    ColorInfo color;
    bool quads = true;  // the clip shows kQuads
    bool fallback = false;
    std::string raw_pix_fmt =
        "";  // non-empty: a headerless .yuv file read with the rawvideo demuxer
};

void PrintTo(const ClipCase& c, std::ostream* os) {
    *os << c.name;
}

const std::string kBt709Tv = "out_color_matrix=bt709:out_range=tv";
const std::string kBt601Tv = "out_color_matrix=bt601:out_range=tv";
const std::string kTag709 = " -colorspace bt709 -color_range tv";
const std::string kX264 = " -c:v libx264 -preset ultrafast";
constexpr auto P = PlaneLayout::yuv_planar;
constexpr auto SP = PlaneLayout::yuv_semiplanar;

std::vector<ClipCase> clip_cases() {
    std::vector<ClipCase> v;
    auto add = [&](ClipCase c) { v.push_back(std::move(c)); };
    add({"h264_bt709_tagged", "mp4", quad_args(320, 240, kBt709Tv, "yuv420p", 5) + kX264 + kTag709,
         320, 240, 5, "yuv420p", sf(P, 8, 1, 0, 1, 1),
         ci(Matrix::bt709, true, Range::limited, true)});
    add({"h264_untagged_sd", "mp4", quad_args(320, 240, kBt601Tv, "yuv420p", 5) + kX264, 320, 240,
         5, "yuv420p", sf(P, 8, 1, 0, 1, 1), ci(Matrix::bt601, false, Range::limited, false)});
    add({"h264_untagged_hd", "mkv", quad_args(1280, 720, kBt709Tv, "yuv420p", 3) + kX264, 1280, 720,
         3, "yuv420p", sf(P, 8, 1, 0, 1, 1),
         // Matroska stores the range the encoder was given: only the matrix is untagged.
         ci(Matrix::bt709, false, Range::limited, true)});
    add({"h264_422", "mp4", quad_args(320, 240, kBt709Tv, "yuv422p", 4) + kX264 + kTag709, 320, 240,
         4, "yuv422p", sf(P, 8, 1, 0, 1, 0), ci(Matrix::bt709, true, Range::limited, true)});
    add({"h264_444_smpte170m", "mp4",
         quad_args(320, 240, kBt601Tv, "yuv444p", 4) + kX264 +
             " -colorspace smpte170m -color_range tv",
         320, 240, 4, "yuv444p", sf(P, 8, 1, 0, 0, 0),
         ci(Matrix::bt601, true, Range::limited, true)});
    add({"h264_444_odd", "mp4", quad_args(321, 241, kBt601Tv, "yuv444p", 3) + kX264, 321, 241, 3,
         "yuv444p", sf(P, 8, 1, 0, 0, 0), ci(Matrix::bt601, false, Range::limited, false)});
    add({"vp9_odd_hd", "webm",
         quad_args(1279, 719, kBt709Tv, "yuv420p", 3) +
             " -c:v libvpx-vp9 -deadline realtime -cpu-used 8 -b:v 2M",
         1279, 719, 3, "yuv420p", sf(P, 8, 1, 0, 1, 1),
         // VP9 always codes the range; its colour space is "unknown" here.
         ci(Matrix::bt709, false, Range::limited, true)});
    add({"hevc_10bit_bt2020", "mkv",
         quad_args(320, 240, "out_color_matrix=bt2020:out_range=tv", "yuv420p10le", 4) +
             " -c:v libx265 -preset ultrafast -x265-params log-level=error -colorspace bt2020nc "
             "-color_range tv",
         320, 240, 4, "yuv420p10le", sf(P, 10, 2, 0, 1, 1),
         ci(Matrix::bt2020, true, Range::limited, true)});
    add({"av1_bt709", "mkv",
         quad_args(320, 240, kBt709Tv, "yuv420p", 4) +
             " -c:v libaom-av1 -cpu-used 8 -usage realtime" + kTag709,
         320, 240, 4, "yuv420p", sf(P, 8, 1, 0, 1, 1),
         ci(Matrix::bt709, true, Range::limited, true)});
    add({"mjpeg_full", "avi",
         quad_args(320, 240, "out_color_matrix=bt601:out_range=pc", "yuvj420p", 3) +
             " -c:v mjpeg -q:v 2",
         320, 240, 3, "yuvj420p", sf(P, 8, 1, 0, 1, 1),
         ci(Matrix::bt601, true, Range::full, true)});
    // Raw video in NUT carries no colour tags: the untagged rules apply.
    // NUT cannot tell yuvj420p from yuv420p, nor p010/p016 from other formats: those are
    // headerless files read through the rawvideo demuxer, which carries no colour tags.
    add({"raw_yuvj420p_untagged", "yuv",
         quad_args(64, 48, "out_color_matrix=bt601:out_range=pc", "yuvj420p", 2) +
             " -c:v rawvideo -f rawvideo",
         64, 48, 2, "yuvj420p", sf(P, 8, 1, 0, 1, 1), ci(Matrix::bt601, false, Range::full, false),
         true, false, "yuvj420p"});
    add({"raw_p010", "yuv",
         quad_args(320, 240, kBt601Tv, "p010le", 3) + " -c:v rawvideo -f rawvideo", 320, 240, 3,
         "p010le", sf(SP, 10, 2, 6, 1, 1), ci(Matrix::bt601, false, Range::limited, false), true,
         false, "p010le"});
    add({"raw_p016", "yuv", quad_args(64, 48, kBt601Tv, "p016le", 2) + " -c:v rawvideo -f rawvideo",
         64, 48, 2, "p016le", sf(SP, 16, 2, 0, 1, 1),
         ci(Matrix::bt601, false, Range::limited, false), true, false, "p016le"});
    add({"raw_nv12", "nut", quad_args(64, 48, kBt601Tv, "nv12", 2) + " -c:v rawvideo", 64, 48, 2,
         "nv12", sf(SP, 8, 1, 0, 1, 1), ci(Matrix::bt601, false, Range::limited, false)});
    add({"raw_yuyv422", "nut", quad_args(64, 48, kBt601Tv, "yuyv422", 2) + " -c:v rawvideo", 64, 48,
         2, "yuyv422", sf(PlaneLayout::yuyv, 8, 1, 0, 1, 0),
         ci(Matrix::bt601, false, Range::limited, false)});
    add({"raw_yuv444p12", "nut", quad_args(64, 48, kBt601Tv, "yuv444p12le", 2) + " -c:v rawvideo",
         64, 48, 2, "yuv444p12le", sf(P, 12, 2, 0, 0, 0),
         ci(Matrix::bt601, false, Range::limited, false)});
    add({"raw_yuv422p16", "nut", quad_args(64, 48, kBt601Tv, "yuv422p16le", 2) + " -c:v rawvideo",
         64, 48, 2, "yuv422p16le", sf(P, 16, 2, 0, 1, 0),
         ci(Matrix::bt601, false, Range::limited, false)});
    add({"raw_gray10", "nut",
         "-f lavfi -i color=c=0x808080:s=64x48:r=25,format=gray10le -frames:v 2 -c:v rawvideo", 64,
         48, 2, "gray10le", sf(PlaneLayout::gray, 10, 2),
         ci(Matrix::bt601, false, Range::full, false), false});
    add({"png_gray8", "png", "-f lavfi -i color=c=0x808080:s=64x48,format=gray -frames:v 1", 64, 48,
         1, "gray", sf(PlaneLayout::gray, 8, 1), ci(Matrix::bt601, false, Range::full, true),
         false});
    add({"png_rgba", "png", quad_args(64, 48, "", "rgba", 1), 64, 48, 1, "rgba",
         sf(PlaneLayout::rgba, 8, 1), ci(Matrix::bt601, false, Range::full, true)});
    // Not read directly: libswscale brings them to rgba / rgba64le.
    add({"png_rgb24_fallback", "png", quad_args(64, 48, "", "rgb24", 1), 64, 48, 1, "rgb24",
         sf(PlaneLayout::rgba, 8, 1), ci(Matrix::bt601, false, Range::full, true), true, true});
    add({"png_rgb48_fallback", "png", quad_args(64, 48, "", "rgb48be", 1), 64, 48, 1, "rgb48be",
         sf(PlaneLayout::rgba, 16, 2), ci(Matrix::bt601, false, Range::full, true), true, true});
    // 16-bit grey PNG is big-endian: byte-swapped on the CPU, it stays grey (a mosaic), like 8-bit.
    add({"png_gray16", "png", "-f lavfi -i color=c=0x808080:s=64x48,format=gray16be -frames:v 1",
         64, 48, 1, "gray16be", sf(PlaneLayout::gray, 16, 2),
         ci(Matrix::bt601, false, Range::full, true), false});
    add({"ffv1_yuv440p_fallback", "mkv",
         quad_args(64, 48, kBt709Tv, "yuv440p", 2) + " -c:v ffv1" + kTag709, 64, 48, 2, "yuv440p",
         sf(PlaneLayout::rgba, 8, 1), ci(Matrix::bt709, true, Range::limited, true), true, true});
    add({"raw_yuv420p10_untagged_fallback_free", "nut",
         quad_args(64, 48, kBt601Tv, "yuv420p10le", 2) + " -c:v rawvideo", 64, 48, 2, "yuv420p10le",
         sf(P, 10, 2, 0, 1, 1), ci(Matrix::bt601, false, Range::limited, false)});
    return v;
}

class DecodeClip : public ::testing::TestWithParam<ClipCase> {
protected:
    void SetUp() override { VFX_REQUIRE_FFMPEG_CLI(); }
};

TEST_P(DecodeClip, FormatColourTimestampsAndPixels) {
    const ClipCase& c = GetParam();
    const std::string path = make_media("clip_" + c.name + "." + c.ext, c.args);
    ASSERT_FALSE(path.empty());
    SourceOptions o;
    o.input = path;
    if (!c.raw_pix_fmt.empty()) {
        o.format = "rawvideo";
        o.options = {{"pixel_format", c.raw_pix_fmt},
                     {"video_size", std::to_string(c.width) + "x" + std::to_string(c.height)},
                     {"framerate", "25"}};
    }
    auto src = Source::open(o);
    EXPECT_EQ(src->info().width, c.width);
    EXPECT_EQ(src->info().height, c.height);
    EXPECT_FALSE(src->info().live);
    std::vector<HostFrame> frames;
    while (auto f = src->next())
        frames.push_back(std::move(*f));
    ASSERT_EQ(static_cast<int>(frames.size()), c.frames);
    const SourceStats st = src->stats();
    EXPECT_EQ(st.frames_decoded, c.frames);
    EXPECT_EQ(st.packets_corrupt, 0);
    EXPECT_EQ(st.frames_fallback, c.fallback ? c.frames : 0);

    for (size_t i = 0; i < frames.size(); ++i) {
        const HostFrame& f = frames[i];
        SCOPED_TRACE("frame " + std::to_string(i));
        EXPECT_EQ(f.index, static_cast<int64_t>(i));
        EXPECT_EQ(f.width, c.width);
        EXPECT_EQ(f.height, c.height);
        EXPECT_EQ(f.pixel_format, c.pixel_format);
        EXPECT_EQ(f.format, c.format);
        EXPECT_EQ(f.swscale_fallback, c.fallback);
        EXPECT_EQ(f.color.matrix, c.color.matrix) << to_string(f.color.matrix);
        EXPECT_EQ(f.color.range, c.color.range) << to_string(f.color.range);
        EXPECT_EQ(f.color.matrix_tagged, c.color.matrix_tagged);
        EXPECT_EQ(f.color.range_tagged, c.color.range_tagged);
        EXPECT_EQ(f.sar_num, 1);
        EXPECT_EQ(f.sar_den, 1);
        EXPECT_EQ(f.rotation, 0);
        EXPECT_GE(f.decode_ms, 0.0);
        ASSERT_TRUE(f.av);
        const int planes = f.format.layout == P ? 3 : f.format.layout == SP ? 2 : 1;
        for (int p = 0; p < 3; ++p) {
            EXPECT_EQ(f.plane(p).data != nullptr, p < planes) << "plane " << p;
            if (p < planes) {
                EXPECT_GT(f.plane(p).stride, 0);
            }
        }
        if (i == 0) {
            EXPECT_NEAR(f.time_s, 0.0, 1e-9);
        } else {
            EXPECT_GT(f.pts, frames[i - 1].pts);
            EXPECT_NEAR(f.time_s - frames[i - 1].time_s, 0.04, 0.002);  // 25 fps
        }
        EXPECT_GE(f.ready_at.time_since_epoch().count(), 0);
    }
    if (c.quads) {
        for (const HostFrame& f : frames)
            expect_quads(f);
    } else {  // flat 0x808080 grey: 128 of 255 through whichever grey conversion made it
        const RefImage img = reference_convert(frames[0]);
        const double scale = img.format == WorkFormat::rgba8 ? 1.0 : 257.0;
        for (int ch = 0; ch < 3; ++ch)
            EXPECT_NEAR(img.at(c.width / 2, c.height / 2, ch) / scale, 128, 6);
    }
}

INSTANTIATE_TEST_SUITE_P(Clips, DecodeClip, ::testing::ValuesIn(clip_cases()),
                         [](const auto& param_info) { return param_info.param.name; });

// --- the reference conversion on hand-computed values -------------------------------------------

struct FrameFree {
    void operator()(AVFrame* f) const { av_frame_free(&f); }
};

// A HostFrame of one flat colour in a planar/semi-planar/packed pixel format.
HostFrame flat_frame(AVPixelFormat pf, SourceFormat fmt, ColorInfo color, int Y, int U, int V,
                     int w = 4, int h = 4) {
    AVFrame* av = av_frame_alloc();
    av->format = pf;
    av->width = w;
    av->height = h;
    EXPECT_EQ(av_frame_get_buffer(av, 0), 0);
    auto put = [&](int plane, int x, int y, int value) {
        uint8_t* row = av->data[plane] + static_cast<ptrdiff_t>(y) * av->linesize[plane];
        if (fmt.bytes == 1) {
            row[x] = static_cast<uint8_t>(value);
        } else {
            const auto v = static_cast<uint16_t>(value << fmt.shift);
            std::memcpy(row + 2 * x, &v, 2);
        }
    };
    const int cw = (w + (1 << fmt.chroma_w_log2) - 1) >> fmt.chroma_w_log2;
    const int ch = (h + (1 << fmt.chroma_h_log2) - 1) >> fmt.chroma_h_log2;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            if (fmt.layout == PlaneLayout::yuyv) {
                put(0, 2 * x, y, Y);
                put(0, 2 * x + 1, y, (x % 2) ? V : U);
            } else {
                put(0, x, y, Y);
            }
        }
    for (int y = 0; y < ch; ++y)
        for (int x = 0; x < cw; ++x) {
            if (fmt.layout == PlaneLayout::yuv_planar) {
                put(1, x, y, U);
                put(2, x, y, V);
            } else if (fmt.layout == PlaneLayout::yuv_semiplanar) {
                put(1, 2 * x, y, U);
                put(1, 2 * x + 1, y, V);
            }
        }
    HostFrame f;
    f.av = std::shared_ptr<AVFrame>(av, FrameFree{});
    f.format = fmt;
    f.color = color;
    f.width = w;
    f.height = h;
    return f;
}

std::array<int, 4> ref_pixel(const HostFrame& f) {
    const RefImage img = reference_convert(f);
    EXPECT_EQ(img.width, f.width);
    EXPECT_EQ(img.height, f.height);
    // Flat frames: every pixel is the same.
    for (int y = 0; y < f.height; ++y)
        for (int x = 0; x < f.width; ++x)
            for (int c = 0; c < 4; ++c)
                EXPECT_EQ(img.at(x, y, c), img.at(0, 0, c));
    return {img.at(0, 0, 0), img.at(0, 0, 1), img.at(0, 0, 2), img.at(0, 0, 3)};
}

const ColorInfo kLim709 = ci(Matrix::bt709, true, Range::limited, true);
const ColorInfo kLim601 = ci(Matrix::bt601, true, Range::limited, true);
const ColorInfo kFull601 = ci(Matrix::bt601, true, Range::full, true);
using Px = std::array<int, 4>;

TEST(ReferenceConvert, LimitedBt709WhiteBlackAndRed) {
    const SourceFormat f8 = sf(P, 8, 1, 0, 1, 1);
    EXPECT_EQ(ref_pixel(flat_frame(AV_PIX_FMT_YUV420P, f8, kLim709, 235, 128, 128)),
              (Px{255, 255, 255, 255}));
    EXPECT_EQ(ref_pixel(flat_frame(AV_PIX_FMT_YUV420P, f8, kLim709, 16, 128, 128)),
              (Px{0, 0, 0, 255}));
    // Red in BT.709 limited: Y = 16 + 219 * 0.2126 = 62.56 -> 63, Cb = 128 - 112 * 0.2126 /
    // 0.9278 = 102.34 -> 102, Cr = 240. By hand: y = 47/219, cb = -26/224, cr = 0.5:
    //   R = 0.21461 + 1.5748 * 0.5 = 1.0020 -> 255
    //   G = 0.21461 + 0.18732 * 0.11607 - 0.46812 * 0.5 = 0.00229 -> 0.58 -> 1
    //   B = 0.21461 - 1.8556 * 0.11607 = -0.00077 -> 0
    EXPECT_EQ(ref_pixel(flat_frame(AV_PIX_FMT_YUV420P, f8, kLim709, 63, 102, 240)),
              (Px{255, 1, 0, 255}));
    // Same samples through BT.601: R = 0.21461 + 1.402 * 0.5 = 0.91561 -> 233.48 -> 233.
    EXPECT_EQ(ref_pixel(flat_frame(AV_PIX_FMT_YUV420P, f8, kLim601, 63, 102, 240))[0], 233);
    // Mid grey: y = (126 - 16) / 219 = 0.50228 -> 128.08 -> 128.
    EXPECT_EQ(ref_pixel(flat_frame(AV_PIX_FMT_YUV420P, f8, kLim709, 126, 128, 128)),
              (Px{128, 128, 128, 255}));
}

TEST(ReferenceConvert, FullRangeAndDeepFormats) {
    // Full range 8-bit: Y/255; chroma at 128 is exactly neutral.
    EXPECT_EQ(
        ref_pixel(flat_frame(AV_PIX_FMT_YUVJ420P, sf(P, 8, 1, 0, 1, 1), kFull601, 128, 128, 128)),
        (Px{128, 128, 128, 255}));
    EXPECT_EQ(ref_pixel(flat_frame(AV_PIX_FMT_YUVJ444P, sf(P, 8, 1), kFull601, 255, 128, 128)),
              (Px{255, 255, 255, 255}));
    // 10-bit limited: 940 is white, 64 black, in the 16-bit working format.
    const SourceFormat f10 = sf(P, 10, 2, 0, 1, 1);
    EXPECT_EQ(ref_pixel(flat_frame(AV_PIX_FMT_YUV420P10LE, f10, kLim709, 940, 512, 512)),
              (Px{65535, 65535, 65535, 65535}));
    EXPECT_EQ(ref_pixel(flat_frame(AV_PIX_FMT_YUV420P10LE, f10, kLim709, 64, 512, 512)),
              (Px{0, 0, 0, 65535}));
    // 10-bit mid grey: (502 - 64) / 876 = 0.5 exactly -> 32767.5 -> ties to even -> 32768.
    EXPECT_EQ(ref_pixel(flat_frame(AV_PIX_FMT_YUV420P10LE, f10, kLim709, 502, 512, 512))[1], 32768);
    // p010: samples in the top 10 bits (shift 6).
    EXPECT_EQ(
        ref_pixel(flat_frame(AV_PIX_FMT_P010LE, sf(SP, 10, 2, 6, 1, 1), kLim709, 940, 512, 512)),
        (Px{65535, 65535, 65535, 65535}));
    // nv12 and yuyv carry the same red as the planar case.
    EXPECT_EQ(ref_pixel(flat_frame(AV_PIX_FMT_NV12, sf(SP, 8, 1, 0, 1, 1), kLim709, 63, 102, 240)),
              (Px{255, 1, 0, 255}));
    EXPECT_EQ(ref_pixel(flat_frame(AV_PIX_FMT_YUYV422, sf(PlaneLayout::yuyv, 8, 1, 0, 1, 0),
                                   kLim709, 63, 102, 240)),
              (Px{255, 1, 0, 255}));
    // BT.2020 10-bit limited, pure-ish blue: Cb = 960 (cb = 0.5), y = 0.0593:
    //   B = 0.0593 + 2 * 0.9407 * 0.5 = 1.0 -> 65535.
    const int y2020 = static_cast<int>(std::lround(64 + 876 * 0.0593));  // 116
    const auto blue =
        ref_pixel(flat_frame(AV_PIX_FMT_YUV420P10LE, f10,
                             ci(Matrix::bt2020, true, Range::limited, true), y2020, 960, 512));
    //   R = y = 52 / 876 = 0.059361 -> 3890.2 -> 3890
    //   G = y - (2 * 0.0593 * 0.9407 / 0.678) * 0.5 = 0.059361 - 0.082276 < 0 -> 0
    EXPECT_EQ(blue, (Px{3890, 0, 65535, 65535}));
}

TEST(ReferenceConvert, GrayAndRgbaLayouts) {
    // Grey 10-bit: 512 / 1023 * 65535 = 32799.99 -> 32800; 1023 -> 65535.
    HostFrame g =
        flat_frame(AV_PIX_FMT_GRAY10LE, sf(PlaneLayout::gray, 10, 2), kFull601, 512, 0, 0);
    EXPECT_EQ(ref_pixel(g), (Px{32800, 32800, 32800, 65535}));
    HostFrame g8 = flat_frame(AV_PIX_FMT_GRAY8, sf(PlaneLayout::gray, 8, 1), kFull601, 77, 0, 0);
    EXPECT_EQ(ref_pixel(g8), (Px{77, 77, 77, 255}));
    // RGBA 8-bit passes through, alpha forced to max.
    AVFrame* av = av_frame_alloc();
    av->format = AV_PIX_FMT_RGBA;
    av->width = 2;
    av->height = 1;
    ASSERT_EQ(av_frame_get_buffer(av, 0), 0);
    const uint8_t px[8] = {10, 20, 30, 40, 250, 128, 0, 255};
    std::memcpy(av->data[0], px, 8);
    HostFrame f;
    f.av = std::shared_ptr<AVFrame>(av, FrameFree{});
    f.format = sf(PlaneLayout::rgba, 8, 1);
    f.width = 2;
    f.height = 1;
    const RefImage img = reference_convert(f);
    EXPECT_EQ(img.format, WorkFormat::rgba8);
    EXPECT_EQ((Px{img.at(0, 0, 0), img.at(0, 0, 1), img.at(0, 0, 2), img.at(0, 0, 3)}),
              (Px{10, 20, 30, 255}));
    EXPECT_EQ((Px{img.at(1, 0, 0), img.at(1, 0, 1), img.at(1, 0, 2), img.at(1, 0, 3)}),
              (Px{250, 128, 0, 255}));
}

// --- other properties ------------------------------------------------------------------------

TEST(DecodeSource, StreamInfo) {
    VFX_REQUIRE_FFMPEG_CLI();
    const std::string path = make_media(
        "info_h264_25fps.mp4",
        "-f lavfi -i testsrc2=size=160x120:rate=25 -frames:v 10 -c:v libx264 -preset ultrafast "
        "-pix_fmt yuv420p");
    auto src = Source::open(input(path));
    const StreamInfo& i = src->info();
    EXPECT_EQ(i.url, path);
    EXPECT_NE(i.demuxer.find("mp4"), std::string::npos) << i.demuxer;
    EXPECT_EQ(i.codec, "h264");
    EXPECT_EQ(i.pixel_format, "yuv420p");
    EXPECT_EQ(i.width, 160);
    EXPECT_EQ(i.height, 120);
    EXPECT_NEAR(i.fps, 25.0, 1e-6);
    EXPECT_NEAR(i.duration_s, 0.4, 0.05);
    EXPECT_FALSE(i.live);
    EXPECT_EQ(src->stats().queue_capacity, 4u);
}

TEST(DecodeSource, BundledSample) {
    const std::string path = vfx::test::source_dir() + "/assets/sample.mp4";
    ASSERT_TRUE(fs::exists(path));
    EXPECT_LT(fs::file_size(path), 1500u * 1000u);
    auto src = Source::open(input(path));
    EXPECT_EQ(src->info().codec, "h264");
    EXPECT_EQ(src->info().width, 1280);
    EXPECT_EQ(src->info().height, 720);
    EXPECT_NEAR(src->info().fps, 25.0, 1e-6);
    EXPECT_NEAR(src->info().duration_s, 8.0, 0.1);
    int n = 0;
    while (auto f = src->next()) {
        if (n == 0) {
            EXPECT_EQ(f->pixel_format, "yuv420p");
            EXPECT_EQ(f->color.matrix, Matrix::bt709);
            EXPECT_TRUE(f->color.matrix_tagged);
            EXPECT_EQ(f->color.range, Range::limited);
            EXPECT_TRUE(f->color.range_tagged);
        }
        ++n;
    }
    EXPECT_EQ(n, 200);
}

TEST(DecodeSource, SampleAspectRatioAndRotation) {
    VFX_REQUIRE_FFMPEG_CLI();
    const std::string base = make_media(
        "sar43.mp4",
        "-f lavfi -i testsrc2=size=160x120:rate=25 -frames:v 3 -vf setsar=4/3 -c:v libx264 "
        "-preset ultrafast -pix_fmt yuv420p");
    ASSERT_FALSE(base.empty());
    auto frames = decode_all(base);
    ASSERT_EQ(frames.size(), 3u);
    EXPECT_EQ(frames[0].sar_num, 4);
    EXPECT_EQ(frames[0].sar_den, 3);
    EXPECT_EQ(frames[0].rotation, 0);

    // FFmpeg 5.1's `-metadata:s:v rotate=R` (stream copy) stores a display matrix of R degrees
    // counter-clockwise (ffprobe: rotation=R); the frame wants degrees clockwise.
    const std::pair<int, int> cases[] = {{90, 270}, {270, 90}, {180, 180}};
    for (const auto& [tag, want] : cases) {
        const std::string rotated =
            make_media("rotate" + std::to_string(tag) + ".mp4",
                       "-i '" + base + "' -c copy -metadata:s:v rotate=" + std::to_string(tag));
        auto rf = decode_all(rotated);
        ASSERT_EQ(rf.size(), 3u);
        EXPECT_EQ(rf[0].rotation, want) << "rotate=" << tag;
        EXPECT_EQ(rf[0].width, 160);  // pixels are not rotated, only described
    }
}

TEST(DecodeSource, StillImageIsOneFrame) {
    VFX_REQUIRE_FFMPEG_CLI();
    const std::string path =
        make_media("still.png", "-f lavfi -i testsrc2=size=64x48 -frames:v 1 -pix_fmt rgba");
    auto src = Source::open(input(path));
    auto f = src->next();
    ASSERT_TRUE(f);
    EXPECT_EQ(f->format.layout, PlaneLayout::rgba);
    EXPECT_EQ(f->time_s, 0.0);
    EXPECT_FALSE(src->next());
    EXPECT_FALSE(src->next());  // stays at the end
}

TEST(DecodeSource, FrameThreadsAndExplicitThreadCount) {
    VFX_REQUIRE_FFMPEG_CLI();
    const std::string path = make_media(
        "threads_h264.mp4",
        "-f lavfi -i testsrc2=size=160x120:rate=25 -frames:v 20 -c:v libx264 -preset ultrafast "
        "-bf 2 -pix_fmt yuv420p");
    for (int threads : {0, 1, 2}) {
        SourceOptions o;
        o.input = path;
        o.threads = threads;
        auto frames = decode_all(o);
        ASSERT_EQ(frames.size(), 20u) << threads;
        for (size_t i = 1; i < frames.size(); ++i)
            EXPECT_GT(frames[i].pts, frames[i - 1].pts);
    }
}

TEST(DecodeSource, LoopRestartsWithIncreasingTime) {
    VFX_REQUIRE_FFMPEG_CLI();
    const std::string path = make_media(
        "loop5.mp4",
        "-f lavfi -i testsrc2=size=96x64:rate=25 -frames:v 5 -c:v libx264 -preset ultrafast "
        "-pix_fmt yuv420p");
    SourceOptions o;
    o.input = path;
    o.loop = true;
    auto frames = decode_all(o, 13);
    ASSERT_EQ(frames.size(), 13u);
    for (size_t i = 0; i < frames.size(); ++i) {
        EXPECT_EQ(frames[i].index, static_cast<int64_t>(i));
        EXPECT_NEAR(frames[i].time_s, 0.04 * static_cast<double>(i), 1e-6) << i;
        if (i) {
            EXPECT_GT(frames[i].pts, frames[i - 1].pts);
        }
    }
}

TEST(DecodeSource, LoopedStill) {
    VFX_REQUIRE_FFMPEG_CLI();
    const std::string path =
        make_media("loopstill.png", "-f lavfi -i testsrc2=size=64x48 -frames:v 1");
    SourceOptions o;
    o.input = path;
    o.loop = true;
    auto frames = decode_all(o, 4);
    ASSERT_EQ(frames.size(), 4u);
    for (size_t i = 1; i < frames.size(); ++i)
        EXPECT_GT(frames[i].time_s, frames[i - 1].time_s);
}

TEST(DecodeSource, LavfiIsLiveWithQueueOfOne) {
    VFX_REQUIRE_LAVFI();
    SourceOptions o;
    o.input = "lavfi:testsrc2=size=160x120:rate=25";
    o.queue_depth = 8;
    auto src = Source::open(o);
    EXPECT_TRUE(src->info().live);
    EXPECT_EQ(src->info().demuxer, "lavfi");
    EXPECT_EQ(src->info().url, "testsrc2=size=160x120:rate=25");
    for (int i = 0; i < 5; ++i) {
        auto f = src->next();
        ASSERT_TRUE(f);
        EXPECT_EQ(f->width, 160);
        EXPECT_EQ(f->index, i);
        const SourceStats st = src->stats();
        EXPECT_EQ(st.queue_capacity, 1u);
        EXPECT_LE(st.queue_depth, 1u);
    }
}

// --- seeking and looping ---------------------------------------------------------------------

using vfx::test::frame_number;
using vfx::test::numbered_clip;

// The next frame, which must exist.
HostFrame take(Source& src) {
    std::optional<HostFrame> f = src.next();
    if (!f) throw std::runtime_error("no frame");
    return std::move(*f);
}

TEST(DecodeSeek, FirstFrameAfterASeekIsTheOneAtOrAfterTheTarget) {
    VFX_REQUIRE_FFMPEG_CLI();
    const std::string path = numbered_clip();
    ASSERT_FALSE(path.empty());
    SourceOptions o = input(path);
    auto src = Source::open(o);
    HostFrame f = take(*src);
    EXPECT_EQ(frame_number(f), 0);
    EXPECT_EQ(f.generation, 0u);
    // Let the decoder fill its queue with frames that the seek must throw away.
    const auto t0 = Clock::now();
    while (src->stats().queue_depth < 4 && Clock::now() - t0 < std::chrono::seconds(5))
        std::this_thread::sleep_for(std::chrono::milliseconds(2));

    struct Case {
        double target;
        int frame;
    };
    // 2.0 s is a keyframe's neighbour; 1.01 s falls between frames 25 and 26; 3.32 s is a
    // B-frame's time, 0.44 s just after a keyframe; 0 goes back to the start.
    uint64_t gen = 0;
    for (const Case c : {Case{2.0, 50}, Case{1.01, 26}, Case{3.32, 83}, Case{0.44, 11},
                         Case{0.0, 0}, Case{3.96, 99}}) {
        SCOPED_TRACE(c.target);
        ASSERT_TRUE(src->seek(c.target));
        ++gen;
        f = take(*src);
        EXPECT_EQ(f.generation, gen);
        EXPECT_EQ(frame_number(f), c.frame);
        EXPECT_NEAR(f.position_s, 0.04 * c.frame, 1e-9);
        EXPECT_NEAR(f.time_s, 0.04 * c.frame, 1e-9);
        // And playback goes on from there, frame by frame.
        for (int k = 1; k <= 3 && c.frame + k < 100; ++k) {
            HostFrame g = take(*src);
            EXPECT_EQ(frame_number(g), c.frame + k);
            EXPECT_EQ(g.generation, gen);
        }
    }
    const SourceStats st = src->stats();
    EXPECT_EQ(st.seeks, 6);
    EXPECT_GT(st.frames_discarded, 0);  // decoded from the keyframe up to each target
}

TEST(DecodeSeek, RepeatedSeeksWithoutReadingOnlyTheLastCounts) {
    VFX_REQUIRE_FFMPEG_CLI();
    auto src = Source::open(input(numbered_clip()));
    take(*src);
    for (double t : {3.0, 0.5, 2.2, 1.6})
        ASSERT_TRUE(src->seek(t));
    HostFrame f = take(*src);
    EXPECT_EQ(f.generation, 4u);
    EXPECT_EQ(frame_number(f), 40);
}

TEST(DecodeSeek, AfterTheEndAndBeyondIt) {
    VFX_REQUIRE_FFMPEG_CLI();
    auto src = Source::open(input(numbered_clip()));
    int n = 0;
    while (src->next())
        ++n;
    ASSERT_EQ(n, 100);
    EXPECT_FALSE(src->next());
    // The end is not final: a seek goes back into the clip.
    ASSERT_TRUE(src->seek(1.0));
    HostFrame f = take(*src);
    EXPECT_EQ(frame_number(f), 25);
    // A target past the last frame shows the last frame, then the end.
    ASSERT_TRUE(src->seek(60.0));
    f = take(*src);
    EXPECT_EQ(frame_number(f), 99);
    EXPECT_FALSE(src->next());
}

TEST(DecodeSeek, LiveSourceRefusesToSeek) {
    VFX_REQUIRE_LAVFI();
    SourceOptions o;
    o.input = "lavfi:testsrc2=size=64x48:rate=25";
    auto src = Source::open(o);
    take(*src);
    EXPECT_FALSE(src->seek(1.0));
    EXPECT_EQ(take(*src).generation, 0u);
    src->set_loop(true);
    EXPECT_FALSE(src->loop());
}

TEST(DecodeSeek, LoopSwitchedOnAtTheEndRestartsAndSeekInALoopIsInTheFile) {
    VFX_REQUIRE_FFMPEG_CLI();
    auto src = Source::open(input(numbered_clip(20)));
    int n = 0;
    HostFrame last;
    while (auto f = src->next()) {
        last = std::move(*f);
        ++n;
    }
    ASSERT_EQ(n, 20);
    EXPECT_FALSE(src->loop());
    src->set_loop(true);
    EXPECT_TRUE(src->loop());
    HostFrame f = take(*src);  // the second pass
    EXPECT_EQ(frame_number(f), 0);
    EXPECT_NEAR(f.position_s, 0.0, 1e-9);
    EXPECT_GT(f.time_s, last.time_s);  // time goes on across the loop
    for (int k = 1; k < 20; ++k)
        take(*src);
    f = take(*src);  // the third pass, from the loop itself
    EXPECT_EQ(frame_number(f), 0);
    EXPECT_NEAR(f.position_s, 0.0, 1e-9);
    EXPECT_NEAR(f.time_s, 1.6, 1e-9);
    ASSERT_TRUE(src->seek(0.4));  // positions are within the file, not the looped time
    f = take(*src);
    EXPECT_EQ(frame_number(f), 10);
    EXPECT_NEAR(f.position_s, 0.4, 1e-9);
    // Loop switched off: the end of this pass is the end.
    src->set_loop(false);
    n = 0;
    while (src->next())
        ++n;
    EXPECT_EQ(n, 9);
}

TEST(DecodeQueue, LiveSourceNeverHoldsMoreThanOneFrame) {
    VFX_REQUIRE_LAVFI();
    // A source far faster than its consumer: the queue is always full, and never above one.
    SourceOptions o;
    o.input = "lavfi:testsrc2=size=160x120:rate=1000";
    o.queue_depth = 8;
    auto src = Source::open(o);
    for (int i = 0; i < 30; ++i) {
        HostFrame f = take(*src);
        EXPECT_LE(src->stats().queue_depth, 1u);
        if (i % 5 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        EXPECT_GT(f.captured_at.time_since_epoch().count(), 0);
        EXPECT_LE(f.captured_at, f.ready_at);
    }
    const SourceStats st = src->stats();
    EXPECT_EQ(st.queue_capacity, 1u);
    EXPECT_EQ(st.max_queue_depth, 1u);  // it filled, and never went past one
}

TEST(DecodeSource, BayerThroughRawvideoOptions) {
    const std::string dir = test_dir();
    const int w = 64, h = 48;
    // bayer_rggb8: the mosaic comes through untouched as grey samples.
    std::vector<uint8_t> raw8(static_cast<size_t>(w * h * 2));
    for (size_t i = 0; i < raw8.size(); ++i)
        raw8[i] = static_cast<uint8_t>((i * 7) & 0xff);
    const std::string p8 = dir + "/mosaic8.raw";
    std::ofstream(p8, std::ios::binary)
        .write(reinterpret_cast<const char*>(raw8.data()),
               static_cast<std::streamsize>(raw8.size()));
    SourceOptions o;
    o.input = p8;
    o.format = "rawvideo";
    o.options = {{"pixel_format", "bayer_rggb8"}, {"video_size", "64x48"}, {"framerate", "25"}};
    auto frames = decode_all(o);
    ASSERT_EQ(frames.size(), 2u);
    EXPECT_EQ(frames[1].format, sf(PlaneLayout::gray, 8, 1));
    EXPECT_EQ(frames[1].pixel_format, "bayer_rggb8");
    EXPECT_FALSE(frames[1].swscale_fallback);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            ASSERT_EQ(frames[1].plane(0).data[y * frames[1].plane(0).stride + x],
                      raw8[static_cast<size_t>(w * h + y * w + x)]);
    EXPECT_NEAR(frames[1].time_s, 0.04, 1e-9);

    // bayer_rggb16be: byte-swapped to little-endian, 16 bits.
    std::vector<uint8_t> raw16(static_cast<size_t>(w * h * 2));
    for (size_t i = 0; i < raw16.size(); i += 2) {
        const auto v = static_cast<uint16_t>(i * 131);
        raw16[i] = static_cast<uint8_t>(v >> 8);
        raw16[i + 1] = static_cast<uint8_t>(v & 0xff);
    }
    const std::string p16 = dir + "/mosaic16be.raw";
    std::ofstream(p16, std::ios::binary)
        .write(reinterpret_cast<const char*>(raw16.data()),
               static_cast<std::streamsize>(raw16.size()));
    o.input = p16;
    o.options = {{"pixel_format", "bayer_rggb16be"}, {"video_size", "64x48"}};
    frames = decode_all(o);
    ASSERT_EQ(frames.size(), 1u);
    EXPECT_EQ(frames[0].format, sf(PlaneLayout::gray, 16, 2));
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            uint16_t v = 0;
            std::memcpy(&v, frames[0].plane(0).data + y * frames[0].plane(0).stride + 2 * x, 2);
            ASSERT_EQ(v, static_cast<uint16_t>((y * w + x) * 2 * 131)) << x << "," << y;
        }
}

TEST(DecodeSource, ShortForms) {
    VFX_REQUIRE_LAVFI();
    SourceOptions o;
    o.input = "lavfi:color=red";
    SourceOptions e = expand_short_forms(o);
    EXPECT_EQ(e.format, "lavfi");
    EXPECT_EQ(e.input, "color=red");
    o.input = "v4l2:/dev/video3";
    e = expand_short_forms(o);
    EXPECT_EQ(e.format, "v4l2");
    EXPECT_EQ(e.input, "/dev/video3");
    o.format = "video4linux2";  // explicit --input-format wins
    e = expand_short_forms(o);
    EXPECT_EQ(e.format, "video4linux2");
    EXPECT_EQ(e.input, "/dev/video3");
    o = {};
    o.input = "clip.mp4";
    e = expand_short_forms(o);
    EXPECT_EQ(e.input, "clip.mp4");
    EXPECT_EQ(e.format, "");
}

TEST(DecodeSource, V4l2Device) {
    if (!fs::exists("/dev/video0")) {
        // Without a camera, the short form still reaches the v4l2 demuxer and fails cleanly.
        expect_error([] { Source::open(input("v4l2:/dev/video97")); }, {"v4l2:/dev/video97"});
        GTEST_SKIP() << "no /dev/video0 here: only the missing-device error was checked";
    }
    auto src = Source::open(input("v4l2:/dev/video0"));
    EXPECT_TRUE(src->info().live);
    EXPECT_TRUE(src->next());
}

// --- bad inputs ------------------------------------------------------------------------------

TEST(DecodeErrors, MissingFile) {
    const std::string path = test_dir() + "/missing.mp4";
    expect_error([&] { Source::open(input(path)); }, {"missing.mp4", "No such file or directory"});
}

TEST(DecodeErrors, TextFile) {
    const std::string path = test_dir() + "/notes.txt";
    std::ofstream(path) << "These are notes, not a video.\nSecond line.\n";
    expect_error([&] { Source::open(input(path)); }, {"notes.txt", "not a media file"});
}

TEST(DecodeErrors, AudioOnly) {
    VFX_REQUIRE_FFMPEG_CLI();
    const std::string path = make_media("audio.wav", "-f lavfi -i sine=duration=0.2");
    expect_error([&] { Source::open(input(path)); }, {"audio.wav", "has no video stream"});
}

TEST(DecodeErrors, UnknownInputFormat) {
    VFX_REQUIRE_FFMPEG_CLI();
    const std::string path = make_media("fmt_probe.mp4",
                                        "-f lavfi -i testsrc2=size=64x48:rate=25 -frames:v 2 "
                                        "-c:v libx264 -preset ultrafast -pix_fmt yuv420p");
    expect_error([&] { Source::open(input(path, "foo")); },
                 {"fmt_probe.mp4", "unknown input format 'foo'"});
}

TEST(DecodeErrors, UnknownDemuxerOption) {
    const std::string path = test_dir() + "/opts.raw";
    std::ofstream(path, std::ios::binary) << std::string(64 * 48, '\x40');
    SourceOptions o;
    o.input = path;
    o.format = "rawvideo";
    o.options = {{"video_size", "64x48"}, {"pixel_format", "gray"}, {"bogus", "1"}};
    expect_error([&] { Source::open(o); },
                 {"opts.raw", "input option 'bogus' is not accepted by the 'rawvideo' demuxer"});
    // Without the bogus option it opens.
    o.options.pop_back();
    EXPECT_EQ(decode_all(o).size(), 1u);
}

TEST(DecodeErrors, BadLavfiGraph) {
    VFX_REQUIRE_LAVFI();
    expect_error([] { Source::open(input("lavfi:nosuchfilter=1")); }, {"lavfi:nosuchfilter=1"});
}

std::vector<char> read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::vector<char>& b) {
    std::ofstream(path, std::ios::binary).write(b.data(), static_cast<std::streamsize>(b.size()));
}

TEST(DecodeErrors, CorruptBytesMidFileAreSkipped) {
    VFX_REQUIRE_FFMPEG_CLI();
    const std::string good = make_media(
        "corrupt_src.ts",
        "-f lavfi -i testsrc2=size=320x240:rate=25 -frames:v 40 -c:v libx264 -preset ultrafast "
        "-g 10 -pix_fmt yuv420p");
    ASSERT_FALSE(good.empty());
    std::vector<char> b = read_bytes(good);
    ASSERT_GT(b.size(), 20000u);
    // Garbage over a stretch in the middle: several TS packets' worth of slice data.
    std::mt19937 rng(1234);
    const size_t from = b.size() / 2, len = 4000;
    for (size_t i = from; i < from + len; ++i)
        b[i] = static_cast<char>(rng() & 0xff);
    const std::string bad = test_dir() + "/corrupt.ts";
    write_bytes(bad, b);

    auto src = Source::open(input(bad));
    int n = 0;
    double last = -1;
    while (auto f = src->next()) {
        EXPECT_GT(f->time_s, last);
        last = f->time_s;
        ++n;
    }
    const SourceStats st = src->stats();
    std::printf("corrupted .ts: %d of 40 frames, %lld corrupt packets\n", n,
                static_cast<long long>(st.packets_corrupt));
    EXPECT_GT(n, 20);  // the frames before and after the damage still decode
    EXPECT_TRUE(st.packets_corrupt > 0 || n < 40) << n << " frames, " << st.packets_corrupt;
}

// A transport stream that lost one 188-byte packet in twelve (a lossy link): the decoder fills
// in the lost slices, and every frame it makes is passed on, counted as concealed, as ffmpeg
// passes them on; none is dropped, and the error budget is not spent.
TEST(DecodeErrors, LostTransportPacketsGiveConcealedFramesNotGaps) {
    VFX_REQUIRE_FFMPEG_CLI();
    VFX_REQUIRE_FFPROBE_CLI();
    const std::string good = make_media(
        "lossy_src.ts",
        "-f lavfi -i testsrc2=size=320x240:rate=25 -frames:v 60 -c:v libx264 -preset ultrafast "
        "-crf 8 -g 30 -bf 0 -pix_fmt yuv420p");
    ASSERT_FALSE(good.empty());
    const std::vector<char> b = read_bytes(good);
    ASSERT_EQ(b.size() % 188, 0u);
    std::vector<char> lossy;
    for (size_t i = 0; i * 188 < b.size(); ++i)
        if (i < 3 || i % 12 != 0) lossy.insert(lossy.end(), &b[i * 188], &b[i * 188] + 188);
    const std::string bad = test_dir() + "/lossy.ts";
    write_bytes(bad, lossy);
    std::string probed;  // the frames FFmpeg's own decoder makes of it
    ASSERT_EQ(vfx::test::run_command("ffprobe -v quiet -count_frames -select_streams v:0 "
                                     "-show_entries stream=nb_read_frames -of csv=p=0 '" +
                                         bad + "' 2>/dev/null",
                                     &probed),
              0)
        << probed;
    const int ffmpeg_frames = std::atoi(probed.c_str());
    ASSERT_GT(ffmpeg_frames, 40) << probed;

    auto src = Source::open(input(bad));
    int n = 0;
    while (src->next())
        ++n;
    const SourceStats st = src->stats();
    EXPECT_EQ(n, ffmpeg_frames);
    EXPECT_GT(st.frames_concealed, 0);
    EXPECT_GT(st.packets_corrupt, 0);
}

// Every packet garbage: PNG frames in Matroska with each IDAT chunk's payload overwritten. The
// container and the PNG headers still parse; no frame inflates. (H.264 is too resilient for
// this: random slice data often decodes into something.)
TEST(DecodeErrors, AllPacketsGarbageThrows) {
    VFX_REQUIRE_FFMPEG_CLI();
    const std::string good = make_media(
        "garbage_src.mkv", "-f lavfi -i testsrc2=size=64x48:rate=25 -frames:v 6 -c:v png");
    ASSERT_FALSE(good.empty());
    std::vector<char> b = read_bytes(good);
    std::mt19937 rng(99);
    size_t chunks = 0;
    for (size_t i = 4; i + 4 <= b.size(); ++i) {
        if (std::memcmp(&b[i], "IDAT", 4) != 0) continue;
        const auto u = [&](size_t k) { return static_cast<uint32_t>(static_cast<uint8_t>(b[k])); };
        const uint32_t len = u(i - 4) << 24 | u(i - 3) << 16 | u(i - 2) << 8 | u(i - 1);
        ASSERT_LE(i + 4 + len, b.size());
        for (size_t k = i + 4; k < i + 4 + len; ++k)
            b[k] = static_cast<char>(rng() & 0xff);
        ++chunks;
        i += 4 + len;
    }
    ASSERT_GE(chunks, 6u);
    const std::string bad = test_dir() + "/garbage.mkv";
    write_bytes(bad, b);
    auto src = Source::open(input(bad));
    expect_error(
        [&] {
            while (src->next()) {
            }
        },
        {"garbage.mkv", "no frame of", "could be decoded"});
    EXPECT_EQ(src->stats().frames_decoded, 0);
    EXPECT_GT(src->stats().packets_corrupt, 0);
}

// --- the queue -------------------------------------------------------------------------------

const std::string& clip60() {
    static const std::string p = make_media(
        "queue60.mp4",
        "-f lavfi -i testsrc2=size=96x64:rate=25 -frames:v 60 -c:v libx264 -preset ultrafast "
        "-pix_fmt yuv420p");
    return p;
}

TEST(DecodeQueue, CapacityIsRespected) {
    VFX_REQUIRE_FFMPEG_CLI();
    SourceOptions o;
    o.input = clip60();
    o.queue_depth = 3;
    auto src = Source::open(o);
    // Let the decoder run ahead: it fills the queue and stops there.
    const auto t0 = Clock::now();
    while (src->stats().queue_depth < 3 && Clock::now() - t0 < std::chrono::seconds(5))
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    SourceStats st = src->stats();
    EXPECT_EQ(st.queue_capacity, 3u);
    EXPECT_EQ(st.queue_depth, 3u);
    EXPECT_EQ(st.frames_decoded, 3);
    int n = 0;
    while (auto f = src->next()) {
        st = src->stats();
        EXPECT_LE(st.queue_depth, 3u);
        EXPECT_LE(st.frames_decoded, n + 1 + 3);
        ++n;
        if (n % 10 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_EQ(n, 60);
}

TEST(DecodeQueue, DestructorWhileDecoderBlocked) {
    VFX_REQUIRE_FFMPEG_CLI();
    SourceOptions o;
    o.input = clip60();
    o.queue_depth = 1;
    auto src = Source::open(o);
    const auto t0 = Clock::now();
    while (src->stats().queue_depth < 1 && Clock::now() - t0 < std::chrono::seconds(5))
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // blocked on the full queue
    ASSERT_EQ(src->stats().queue_depth, 1u);
    const auto t1 = Clock::now();
    src.reset();
    EXPECT_LT(Clock::now() - t1, std::chrono::milliseconds(500));
}

TEST(DecodeQueue, DestructorOfLiveSourceAndUnreadFrames) {
    VFX_REQUIRE_LAVFI();
    for (int i = 0; i < 3; ++i) {
        SourceOptions o;
        o.input = "lavfi:testsrc2=size=160x120:rate=1000";
        auto src = Source::open(o);
        if (i > 0) {
            ASSERT_TRUE(src->next());
        }
        if (i > 1) std::this_thread::sleep_for(std::chrono::milliseconds(30));
        const auto t1 = Clock::now();
        src.reset();  // right after open, after a frame, after it filled the queue
        EXPECT_LT(Clock::now() - t1, std::chrono::milliseconds(500));
    }
}

TEST(DecodeQueue, ConsumerWaitsForSlowDecoder) {
    VFX_REQUIRE_LAVFI();
    // A realtime-paced lavfi source: next() blocks until each frame is made.
    SourceOptions o;
    o.input = "lavfi:testsrc2=size=64x48:rate=25,realtime";
    auto src = Source::open(o);
    const auto t0 = Clock::now();
    for (int i = 0; i < 6; ++i)
        ASSERT_TRUE(src->next());
    EXPECT_GE(Clock::now() - t0, std::chrono::milliseconds(150));
}

// --- direct decode (decode/frame_allocator.hpp) ----------------------------------------------

// A FrameAllocator over plain heap memory that counts what it hands out; refuses every
// `refuse_every`-th request when set.
class CountingAllocator final : public FrameAllocator,
                                public std::enable_shared_from_this<CountingAllocator> {
public:
    static std::shared_ptr<CountingAllocator> make(int refuse_every = 0) {
        auto a = std::make_shared<CountingAllocator>();
        a->refuse_every_ = refuse_every;
        return a;
    }
    std::shared_ptr<FrameBlock> allocate(size_t bytes) override {
        const int n = ++requests_;
        if (refuse_every_ > 0 && n % refuse_every_ == 0) return nullptr;
        auto b = std::make_unique<Block>();
        b->mem.reset(new uint8_t[bytes]);
        b->bytes = bytes;
        ++live_;
        ++made_;
        return std::shared_ptr<FrameBlock>(b.release(), [self = shared_from_this()](FrameBlock* p) {
            --self->live_;
            delete p;
        });
    }
    std::string describe() const override { return "test heap blocks"; }
    int live() const { return live_.load(); }
    int made() const { return made_.load(); }

private:
    struct Block final : FrameBlock {
        std::unique_ptr<uint8_t[]> mem;
        size_t bytes = 0;
        uint8_t* data() const override { return mem.get(); }
        size_t size() const override { return bytes; }
    };
    int refuse_every_ = 0;
    std::atomic<int> requests_{0}, live_{0}, made_{0};
};

// The frame's pixels, rows packed (av_image_copy_to_buffer), for comparisons across layouts.
std::vector<uint8_t> packed_pixels(const HostFrame& f) {
    const auto pf = static_cast<AVPixelFormat>(f.av->format);
    const int size = av_image_get_buffer_size(pf, f.av->width, f.av->height, 1);
    EXPECT_GT(size, 0);
    std::vector<uint8_t> out(static_cast<size_t>(std::max(size, 0)));
    EXPECT_EQ(av_image_copy_to_buffer(out.data(), size, f.av->data, f.av->linesize, pf, f.av->width,
                                      f.av->height, 1),
              size);
    return out;
}

class DirectDecode : public ::testing::TestWithParam<DirectClip> {
protected:
    void SetUp() override { VFX_REQUIRE_FFMPEG_CLI(); }
};

TEST_P(DirectDecode, SamePixelsAsFfmpegsBuffersAndFramesInBlocks) {
    const DirectClip& c = GetParam();
    const std::string path = make_media(c.file, c.args);
    ASSERT_FALSE(path.empty());
    SourceOptions plain = input(path);
    plain.threads = c.threads;
    const std::vector<HostFrame> ref = decode_all(plain);
    ASSERT_FALSE(ref.empty());

    auto alloc = CountingAllocator::make();
    SourceOptions direct = plain;
    direct.allocator = alloc;
    std::vector<HostFrame> got;
    SourceStats st;
    {
        auto src = Source::open(direct);
        while (auto f = src->next())
            got.push_back(std::move(*f));
        st = src->stats();
        if (c.name != "rawvideo_nut") {
            EXPECT_TRUE(src->info().direct_decode);
        } else {
            EXPECT_FALSE(src->info().direct_decode);
        }
        EXPECT_NE(direct_decode_status(direct, src->info())
                      .find(src->info().direct_decode ? "on" : "off"),
                  std::string::npos);
    }
    ASSERT_EQ(got.size(), ref.size());
    EXPECT_EQ(st.frames_direct, c.direct ? st.frames_decoded : 0);
    if (c.direct) {
        EXPECT_GT(alloc->made(), 0);
    }
    for (size_t i = 0; i < got.size(); ++i) {
        SCOPED_TRACE("frame " + std::to_string(i));
        const HostFrame& g = got[i];
        const HostFrame& r = ref[i];
        EXPECT_EQ(g.pixel_format, r.pixel_format);
        EXPECT_EQ(g.format, r.format);
        EXPECT_EQ(g.swscale_fallback, r.swscale_fallback);
        EXPECT_EQ(g.width, r.width);
        EXPECT_EQ(g.height, r.height);
        EXPECT_EQ(g.pts, r.pts);
        EXPECT_EQ(g.block != nullptr, c.direct);
        if (g.block) {
            for (int p = 0; p < g.plane_count(); ++p) {
                const Plane pl = g.plane(p);
                EXPECT_EQ(pl.data, g.block->data() + g.block_offset[static_cast<size_t>(p)]);
                // Plane starts aligned for SIMD; linesizes as FFmpeg's own allocator makes them.
                EXPECT_EQ(reinterpret_cast<uintptr_t>(pl.data) % 64, 0u) << "plane " << p;
                EXPECT_EQ(pl.stride, r.plane(p).stride) << "plane " << p;
            }
        }
        EXPECT_EQ(packed_pixels(g), packed_pixels(r));
    }
    got.clear();
    EXPECT_EQ(alloc->live(), 0);  // every block came back
}

INSTANTIATE_TEST_SUITE_P(Clips, DirectDecode, ::testing::ValuesIn(direct_clips()),
                         [](const auto& p) { return p.param.name; });

TEST(DirectDecodeAllocator, RefusedRequestsFallBackToFfmpegsBuffers) {
    VFX_REQUIRE_FFMPEG_CLI();
    const std::string path = clip60();
    const std::vector<HostFrame> ref = decode_all(input(path));
    auto alloc = CountingAllocator::make(/*refuse_every=*/3);
    SourceOptions o = input(path);
    o.allocator = alloc;
    auto src = Source::open(o);
    std::vector<HostFrame> got;
    while (auto f = src->next())
        got.push_back(std::move(*f));
    ASSERT_EQ(got.size(), ref.size());
    const SourceStats st = src->stats();
    EXPECT_GT(st.frames_direct, 0);
    EXPECT_LT(st.frames_direct, st.frames_decoded);
    EXPECT_GT(st.direct_refused, 0);
    int64_t in_blocks = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        in_blocks += got[i].block ? 1 : 0;
        EXPECT_EQ(packed_pixels(got[i]), packed_pixels(ref[i])) << "frame " << i;
    }
    EXPECT_EQ(in_blocks, st.frames_direct);
}

TEST(DirectDecodeAllocator, BlocksOutliveTheSourceAndTheAllocatorsOwner) {
    VFX_REQUIRE_FFMPEG_CLI();
    auto alloc = CountingAllocator::make();
    std::weak_ptr<CountingAllocator> weak = alloc;
    SourceOptions o = input(clip60());
    o.allocator = alloc;
    auto src = Source::open(o);
    std::vector<HostFrame> kept;
    for (int i = 0; i < 5; ++i) {
        auto f = src->next();
        ASSERT_TRUE(f);
        ASSERT_TRUE(f->block);
        kept.push_back(std::move(*f));
    }
    const std::vector<uint8_t> first = packed_pixels(kept.front());
    o.allocator.reset();
    alloc.reset();                 // the owner lets go first...
    src.reset();                   // ...then the source (its decoder and queue)...
    ASSERT_FALSE(weak.expired());  // ...the frames' blocks still hold the allocator
    EXPECT_GE(weak.lock()->live(), 5);
    EXPECT_EQ(packed_pixels(kept.front()), first);  // the planes are intact
    kept.clear();
    EXPECT_TRUE(weak.expired());  // the last block took the allocator with it
}

TEST(DirectDecodeAllocator, SeeksAndLoopsKeepDecodingIntoBlocks) {
    VFX_REQUIRE_FFMPEG_CLI();
    auto alloc = CountingAllocator::make();
    SourceOptions o = input(clip60());
    o.allocator = alloc;
    o.loop = true;
    auto src = Source::open(o);
    for (int i = 0; i < 70; ++i) {  // past the end: looped
        auto f = src->next();
        ASSERT_TRUE(f);
        EXPECT_TRUE(f->block) << i;
    }
    ASSERT_TRUE(src->seek(1.0));
    auto f = src->next();
    ASSERT_TRUE(f);
    EXPECT_TRUE(f->block);
    EXPECT_NEAR(f->position_s, 1.0, 0.05);
    f.reset();
    src.reset();
    EXPECT_EQ(alloc->live(), 0);
}

}  // namespace
