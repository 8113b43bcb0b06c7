// engine/encode: every kind of output round-trips through engine/decode, errors are caught at
// open(), and nothing partial is ever left behind.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

extern "C" {
#include <libavcodec/avcodec.h>
}

#include "core/error.hpp"
#include "core/files.hpp"
#include "decode/source.hpp"
#include "encode/sink.hpp"
#include "support/convert_ref.hpp"
#include "support/media.hpp"

namespace fs = std::filesystem;
using namespace vfx;
using vfx::test::reference_convert;
using vfx::test::RefImage;

namespace {

// A folder of its own for the running test (tests may run in parallel under ctest -j).
std::string test_dir() {
    const auto* t = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(t->test_suite_name()) + "." + t->name();
    std::replace(name.begin(), name.end(), '/', '_');
    const fs::path d = fs::path(vfx::test::media_dir()) / ".." / "scratch" / "encode" / name;
    fs::remove_all(d);
    fs::create_directories(d);
    return fs::canonical(d).string();
}

// Every entry of a folder, hidden ones included, sorted.
std::vector<std::string> listing(const std::string& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir))
        names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

using Names = std::vector<std::string>;

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

std::vector<HostFrame> decode_all(const std::string& path) {
    SourceOptions o;
    o.input = path;
    auto src = Source::open(o);
    std::vector<HostFrame> frames;
    while (auto f = src->next())
        frames.push_back(std::move(*f));
    return frames;
}

// A working-format frame in a linear buffer with the engine's pitch.
struct Image {
    FrameGeometry g;
    std::vector<uint8_t> bytes;

    Image(uint32_t w, uint32_t h, WorkFormat f)
        : g(make_geometry(w, h, f)), bytes(g.size_bytes()) {}

    void set(uint32_t x, uint32_t y, int c, uint32_t v) {
        uint8_t* p = bytes.data() + y * g.pitch + x * bytes_per_pixel(g.format);
        if (g.format == WorkFormat::rgba8) {
            p[c] = static_cast<uint8_t>(v);
        } else {
            const auto v16 = static_cast<uint16_t>(v);
            std::memcpy(p + 2 * c, &v16, 2);
        }
    }
    uint32_t get(uint32_t x, uint32_t y, int c) const {
        const uint8_t* p = bytes.data() + y * g.pitch + x * bytes_per_pixel(g.format);
        if (g.format == WorkFormat::rgba8) return p[c];
        uint16_t v = 0;
        std::memcpy(&v, p + 2 * c, 2);
        return v;
    }
    uint32_t max() const { return g.format == WorkFormat::rgba8 ? 255 : 65535; }
};

// Every code value different: exercises all bits, for lossless outputs.
Image detailed(uint32_t w, uint32_t h, WorkFormat f, uint32_t seed) {
    Image img(w, h, f);
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) {
            const uint32_t base = x * 1031 + y * 7919 + seed * 104729;
            for (int c = 0; c < 3; ++c)
                img.set(x, y, c,
                        (base * static_cast<uint32_t>(2 * c + 3) + seed) % (img.max() + 1));
            img.set(x, y, 3, img.max());
        }
    return img;
}

struct Rgb8 {
    int r, g, b;
};
constexpr Rgb8 kQuads[4] = {{192, 64, 32}, {32, 160, 96}, {48, 80, 192}, {176, 176, 176}};

// Four flat quadrants and a small grey block that moves along the middle with `frame`, for
// lossy outputs.
Image quads(uint32_t w, uint32_t h, WorkFormat f, int frame) {
    Image img(w, h, f);
    const uint32_t scale = f == WorkFormat::rgba8 ? 1 : 257;
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) {
            const Rgb8& q = kQuads[(y >= h / 2 ? 2 : 0) + (x >= w / 2 ? 1 : 0)];
            const bool block = x >= static_cast<uint32_t>(4 + frame * 2) &&
                               x < static_cast<uint32_t>(12 + frame * 2) && y + 4 >= h / 2 &&
                               y < h / 2 + 4;
            img.set(x, y, 0, static_cast<uint32_t>(block ? 128 : q.r) * scale);
            img.set(x, y, 1, static_cast<uint32_t>(block ? 128 : q.g) * scale);
            img.set(x, y, 2, static_cast<uint32_t>(block ? 128 : q.b) * scale);
            img.set(x, y, 3, img.max());
        }
    return img;
}

void expect_exact(const HostFrame& f, const Image& want) {
    const RefImage got = reference_convert(f);
    ASSERT_EQ(got.width, static_cast<int>(want.g.width));
    ASSERT_EQ(got.height, static_cast<int>(want.g.height));
    ASSERT_EQ(got.format, want.g.format);
    for (uint32_t y = 0; y < want.g.height; ++y)
        for (uint32_t x = 0; x < want.g.width; ++x)
            for (int c = 0; c < 4; ++c)
                ASSERT_EQ(got.at(static_cast<int>(x), static_cast<int>(y), c), want.get(x, y, c))
                    << x << "," << y << " channel " << c;
}

// Lossy: the centre of each flat quadrant within `tol` of 255, and a small mean error overall.
void expect_close(const HostFrame& f, const Image& want, double tol = 6, double mean_tol = 4) {
    const RefImage got = reference_convert(f);
    ASSERT_EQ(got.width, static_cast<int>(want.g.width));
    ASSERT_EQ(got.height, static_cast<int>(want.g.height));
    ASSERT_EQ(got.format, want.g.format);
    const double scale = want.g.format == WorkFormat::rgba8 ? 1.0 : 257.0;
    const uint32_t w = want.g.width, h = want.g.height;
    const uint32_t xs[2] = {w / 4, w * 3 / 4}, ys[2] = {h / 4, h * 3 / 4};
    for (uint32_t y : ys)
        for (uint32_t x : xs)
            for (int c = 0; c < 3; ++c)
                EXPECT_NEAR(got.at(static_cast<int>(x), static_cast<int>(y), c) / scale,
                            want.get(x, y, c) / scale, tol)
                    << x << "," << y << " channel " << c;
    double sum = 0;
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x)
            for (int c = 0; c < 3; ++c)
                sum += std::abs(got.at(static_cast<int>(x), static_cast<int>(y), c) / scale -
                                want.get(x, y, c) / scale);
    EXPECT_LT(sum / (w * h * 3.0), mean_tol);
}

SinkOptions out(const std::string& path) {
    SinkOptions o;
    o.path = path;
    return o;
}

bool encoder_takes(const char* name, AVPixelFormat pf) {
    const AVCodec* c = avcodec_find_encoder_by_name(name);
    if (!c || !c->pix_fmts) return false;
    for (const AVPixelFormat* p = c->pix_fmts; *p != AV_PIX_FMT_NONE; ++p)
        if (*p == pf) return true;
    return false;
}

// --- null ----------------------------------------------------------------------------------------

TEST(SinkNull, Discards) {
    const Image img = detailed(64, 48, WorkFormat::rgba8, 1);
    auto sink = Sink::open(out("null"), img.g);
    EXPECT_EQ(sink->describe(), "null (frames discarded)");
    for (int i = 0; i < 3; ++i)
        sink->write(img.bytes.data(), img.g, i, i / 25.0);
    sink->finish();
    EXPECT_EQ(sink->frames_written(), 3);
}

// --- PNG -----------------------------------------------------------------------------------------

TEST(SinkPng, OneFrameRoundTripsExactly8Bit) {
    const std::string dir = test_dir();
    const std::string path = dir + "/out.png";
    const Image img = detailed(64, 48, WorkFormat::rgba8, 7);
    auto sink = Sink::open(out(path), img.g);
    EXPECT_EQ(sink->describe(), "PNG image " + path);
    sink->write(img.bytes.data(), img.g, 0, 0.0);
    EXPECT_FALSE(fs::exists(path));  // published by finish() only
    sink->finish();
    sink.reset();
    EXPECT_EQ(listing(dir), (Names{"out.png"}));
    auto frames = decode_all(path);
    ASSERT_EQ(frames.size(), 1u);
    EXPECT_EQ(frames[0].pixel_format, "rgba");
    EXPECT_FALSE(frames[0].swscale_fallback);
    expect_exact(frames[0], img);
}

TEST(SinkPng, OneFrameRoundTripsExactly16Bit) {
    const std::string dir = test_dir();
    const std::string path = dir + "/deep.png";
    const Image img = detailed(64, 48, WorkFormat::rgba16, 3);
    auto sink = Sink::open(out(path), img.g);
    sink->write(img.bytes.data(), img.g, 0, 0.0);
    sink->finish();
    auto frames = decode_all(path);
    ASSERT_EQ(frames.size(), 1u);
    EXPECT_EQ(frames[0].pixel_format, "rgba64be");
    EXPECT_EQ(frames[0].format.work_format(), WorkFormat::rgba16);
    expect_exact(frames[0], img);
}

TEST(SinkPng, SecondFrameIntoOnePngThrowsAndLeavesNothing) {
    const std::string dir = test_dir();
    const std::string path = dir + "/single.png";
    const Image img = detailed(64, 48, WorkFormat::rgba8, 1);
    auto sink = Sink::open(out(path), img.g);
    sink->write(img.bytes.data(), img.g, 0, 0.0);
    expect_error([&] { sink->write(img.bytes.data(), img.g, 1, 0.04); },
                 {"'" + path + "'", "holds one frame", "%04d", "--frames 1"});
    EXPECT_EQ(listing(dir), Names{});
    sink.reset();
    EXPECT_EQ(listing(dir), Names{});
}

TEST(SinkPng, NumberedSequence) {
    const std::string dir = test_dir();
    const std::string pattern = dir + "/frame_%04d.png";
    std::vector<Image> imgs;
    for (uint32_t i = 0; i < 3; ++i)
        imgs.push_back(detailed(64, 48, WorkFormat::rgba8, 10 + i));
    auto sink = Sink::open(out(pattern), imgs[0].g);
    EXPECT_EQ(sink->describe(), "PNG frames " + pattern);
    for (size_t i = 0; i < imgs.size(); ++i)
        sink->write(imgs[i].bytes.data(), imgs[i].g, static_cast<int64_t>(i),
                    static_cast<double>(i) / 25.0);
    // Nothing under a final name before finish().
    for (const auto& n : listing(dir))
        EXPECT_EQ(n[0], '.') << n;
    sink->finish();
    sink.reset();
    EXPECT_EQ(listing(dir), (Names{"frame_0001.png", "frame_0002.png", "frame_0003.png"}));
    for (size_t i = 0; i < imgs.size(); ++i) {
        auto frames = decode_all(dir + "/frame_000" + std::to_string(i + 1) + ".png");
        ASSERT_EQ(frames.size(), 1u);
        expect_exact(frames[0], imgs[i]);
    }
}

TEST(SinkPng, OtherNumberWidths) {
    const std::string dir = test_dir();
    const Image img = detailed(64, 48, WorkFormat::rgba8, 1);
    for (const char* pat : {"/a_%d.png", "/b_%02d.png", "/c_%6d.png"}) {
        auto sink = Sink::open(out(dir + pat), img.g);
        for (int i = 0; i < 2; ++i)
            sink->write(img.bytes.data(), img.g, i, i / 25.0);
        sink->finish();
    }
    EXPECT_EQ(listing(dir), (Names{"a_1.png", "a_2.png", "b_01.png", "b_02.png", "c_000001.png",
                                   "c_000002.png"}));
}

TEST(SinkPng, SampleAspectRatioWritten) {
    const std::string dir = test_dir();
    const Image img = detailed(64, 48, WorkFormat::rgba8, 1);
    SinkOptions o = out(dir + "/sar.png");
    o.sar_num = 4;
    o.sar_den = 3;
    auto sink = Sink::open(o, img.g);
    sink->write(img.bytes.data(), img.g, 0, 0);
    sink->finish();
    auto frames = decode_all(dir + "/sar.png");
    ASSERT_EQ(frames.size(), 1u);
    EXPECT_EQ(frames[0].sar_num * 3, frames[0].sar_den * 4);
}

// An HDR or wide-gamut source's frames are tagged (cICP, right after IHDR: primaries, transfer,
// RGB, full range), so a viewer does not take them for sRGB; SDR BT.709 and untagged ones are
// left as PNGs have always been read (sRGB). The pixels are unchanged either way.
TEST(SinkPng, HdrAndWideGamutSourcesTaggedWithCicp) {
    const std::string dir = test_dir();
    const Image img = detailed(33, 17, WorkFormat::rgba16, 3);
    struct Case {
        const char* name;
        int primaries, trc;
        std::vector<uint8_t> cicp;  // empty: no chunk
    };
    const Case cases[] = {
        {"pq.png", AVCOL_PRI_BT2020, AVCOL_TRC_SMPTE2084, {9, 16, 0, 1}},
        {"hlg.png", AVCOL_PRI_BT2020, AVCOL_TRC_ARIB_STD_B67, {9, 18, 0, 1}},
        {"p3.png", AVCOL_PRI_SMPTE432, AVCOL_TRC_IEC61966_2_1, {12, 13, 0, 1}},
        {"sdr.png", AVCOL_PRI_BT709, AVCOL_TRC_BT709, {}},
        {"untagged.png", AVCOL_PRI_UNSPECIFIED, AVCOL_TRC_UNSPECIFIED, {}},
        // PQ without primaries: BT.2020's, which HDR10 defines; BT.2020 with an unknown
        // transfer: no tag (cICP names both).
        {"pq-only.png", AVCOL_PRI_UNSPECIFIED, AVCOL_TRC_SMPTE2084, {9, 16, 0, 1}},
        {"bt2020-only.png", AVCOL_PRI_BT2020, AVCOL_TRC_UNSPECIFIED, {}},
    };
    for (const Case& c : cases) {
        SinkOptions o = out(dir + "/" + c.name);
        o.color_primaries = c.primaries;
        o.color_trc = c.trc;
        auto sink = Sink::open(o, img.g);
        sink->write(img.bytes.data(), img.g, 0, 0);
        sink->finish();
        const auto chunks = test::png_chunks(dir + "/" + c.name);
        ASSERT_GE(chunks.size(), 3u) << c.name;
        EXPECT_EQ(chunks.front().type, "IHDR") << c.name;
        EXPECT_EQ(chunks.back().type, "IEND") << c.name;
        size_t found = 0;
        for (size_t i = 0; i < chunks.size(); ++i) {
            EXPECT_TRUE(chunks[i].crc_ok) << c.name << " " << chunks[i].type;
            if (chunks[i].type == "cICP") {
                ++found;
                EXPECT_EQ(i, 1u) << c.name << ": cICP right after IHDR";
                EXPECT_EQ(chunks[i].data, c.cicp) << c.name;
            }
        }
        EXPECT_EQ(found, c.cicp.empty() ? 0u : 1u) << c.name;
        auto frames = decode_all(dir + "/" + c.name);
        ASSERT_EQ(frames.size(), 1u) << c.name;
        expect_exact(frames[0], img);
    }
}

// --- encoded video -------------------------------------------------------------------------------

class SinkVideo : public ::testing::TestWithParam<std::string> {};

TEST_P(SinkVideo, H264RoundTrip) {
    const std::string dir = test_dir();
    const std::string path = dir + "/clip." + GetParam();
    const int n = 10;
    std::vector<Image> imgs;
    for (int i = 0; i < n; ++i)
        imgs.push_back(quads(160, 120, WorkFormat::rgba8, i));
    SinkOptions o = out(path);
    o.fps = 25;
    auto sink = Sink::open(o, imgs[0].g);
    EXPECT_EQ(sink->describe(), "h264 (libx264) in " + path);
    for (int i = 0; i < n; ++i)
        sink->write(imgs[i].bytes.data(), imgs[i].g, i, i / 25.0);
    EXPECT_FALSE(fs::exists(path));
    sink->finish();
    EXPECT_EQ(sink->frames_written(), n);
    sink.reset();
    EXPECT_EQ(listing(dir), Names{"clip." + GetParam()});

    SourceOptions so;
    so.input = path;
    auto src = Source::open(so);
    EXPECT_EQ(src->info().codec, "h264");
    EXPECT_NEAR(src->info().fps, 25.0, 0.01);
    std::vector<HostFrame> frames;
    while (auto f = src->next())
        frames.push_back(std::move(*f));
    ASSERT_EQ(static_cast<int>(frames.size()), n);
    for (int i = 0; i < n; ++i) {
        SCOPED_TRACE("frame " + std::to_string(i));
        EXPECT_EQ(frames[i].pixel_format, "yuv420p");
        EXPECT_EQ(frames[i].color.matrix, Matrix::bt709);
        EXPECT_TRUE(frames[i].color.matrix_tagged);
        EXPECT_EQ(frames[i].color.range, Range::limited);
        EXPECT_NEAR(frames[i].time_s, i / 25.0, 0.002);
        EXPECT_EQ(frames[i].sar_num, 1);
        EXPECT_EQ(frames[i].sar_den, 1);
        expect_close(frames[i], imgs[i]);
    }
}

INSTANTIATE_TEST_SUITE_P(Containers, SinkVideo, ::testing::Values("mp4", "mkv", "mov"));

TEST(SinkVideoOptions, SixteenBitFramesUseTenBitEncoding) {
    if (!encoder_takes("libx264", AV_PIX_FMT_YUV420P10LE))
        GTEST_SKIP() << "this libx264 has no 10-bit support";
    const std::string dir = test_dir();
    const std::string path = dir + "/deep.mkv";
    const Image img = quads(160, 120, WorkFormat::rgba16, 0);
    auto sink = Sink::open(out(path), img.g);
    for (int i = 0; i < 3; ++i)
        sink->write(img.bytes.data(), img.g, i, i / 25.0);
    sink->finish();
    auto frames = decode_all(path);
    ASSERT_EQ(frames.size(), 3u);
    EXPECT_EQ(frames[0].pixel_format, "yuv420p10le");
    EXPECT_EQ(frames[0].format.work_format(), WorkFormat::rgba16);
    expect_close(frames[2], img);
}

TEST(SinkVideoOptions, OtherEncodersByEncoderOrCodecName) {
    const std::string dir = test_dir();
    const Image img = quads(160, 120, WorkFormat::rgba8, 0);
    struct Case {
        std::string codec, file, describe, decoded;
    };
    const Case cases[] = {
        {"libvpx-vp9", "vp9.mkv", "vp9 (libvpx-vp9) in ", "vp9"},
        {"hevc", "hevc.mp4", "hevc (libx265) in ", "hevc"},
        // MPEG-2 takes only its standard's frame rates as the time base; MJPEG full-range YUV.
        {"mpeg2video", "mpeg2.mp4", "mpeg2video (mpeg2video) in ", "mpeg2video"},
        {"mjpeg", "mjpeg.mkv", "mjpeg (mjpeg) in ", "mjpeg"},
    };
    for (const Case& c : cases) {
        SinkOptions o = out(dir + "/" + c.file);
        o.codec = c.codec;
        if (c.codec == "libvpx-vp9")
            o.encoder_options = {{"deadline", "realtime"}, {"cpu-used", "8"}};
        if (c.codec == "hevc")
            o.encoder_options = {{"preset", "ultrafast"}, {"x265-params", "log-level=error"}};
        auto sink = Sink::open(o, img.g);
        EXPECT_EQ(sink->describe(), c.describe + o.path);
        for (int i = 0; i < 3; ++i)
            sink->write(img.bytes.data(), img.g, i, i / 25.0);
        sink->finish();
        SourceOptions so;
        so.input = o.path;
        auto src = Source::open(so);
        EXPECT_EQ(src->info().codec.find(c.decoded) != std::string::npos, true)
            << src->info().codec;
        int n = 0;
        while (auto f = src->next()) {
            expect_close(*f, img);
            ++n;
        }
        EXPECT_EQ(n, 3);
    }
}

TEST(SinkVideoOptions, EncoderOptionsOnContextAndPrivate) {
    const std::string dir = test_dir();
    const Image img = quads(160, 120, WorkFormat::rgba8, 0);
    SinkOptions o = out(dir + "/opts.mp4");
    // g (GOP) is an AVCodecContext option, crf and preset are libx264's own.
    o.encoder_options = {{"g", "1"}, {"crf", "4"}, {"preset", "veryfast"}};
    auto sink = Sink::open(o, img.g);
    for (int i = 0; i < 3; ++i)
        sink->write(img.bytes.data(), img.g, i, i / 25.0);
    sink->finish();
    auto frames = decode_all(o.path);
    ASSERT_EQ(frames.size(), 3u);
    for (const auto& f : frames) {
        EXPECT_TRUE(f.av->key_frame) << "g=1 makes every frame a key frame";
        expect_close(f, img, 4, 2);  // crf 4: nearly lossless
    }
}

TEST(SinkVideoOptions, PixelFormatAndColourTagsFromOptionsAreFollowed) {
    const std::string dir = test_dir();
    const Image img = quads(160, 120, WorkFormat::rgba8, 0);
    SinkOptions o = out(dir + "/tags.mkv");
    o.encoder_options = {{"pix_fmt", "yuv444p"}, {"colorspace", "bt470bg"}, {"crf", "10"}};
    auto sink = Sink::open(o, img.g);
    for (int i = 0; i < 2; ++i)
        sink->write(img.bytes.data(), img.g, i, i / 25.0);
    sink->finish();
    auto frames = decode_all(o.path);
    ASSERT_EQ(frames.size(), 2u);
    EXPECT_EQ(frames[0].pixel_format, "yuv444p");
    EXPECT_EQ(frames[0].color.matrix, Matrix::bt601);
    EXPECT_TRUE(frames[0].color.matrix_tagged);
    EXPECT_EQ(frames[0].color.range, Range::limited);
    expect_close(frames[1], img);  // converted with the matrix it is tagged with
}

TEST(SinkVideoOptions, OddSizeAndSampleAspectRatio) {
    const std::string dir = test_dir();
    const Image img = quads(65, 49, WorkFormat::rgba8, 0);
    SinkOptions o = out(dir + "/odd.mp4");
    o.sar_num = 4;
    o.sar_den = 3;
    auto sink = Sink::open(o, img.g);
    for (int i = 0; i < 2; ++i)
        sink->write(img.bytes.data(), img.g, i, i / 25.0);
    sink->finish();
    auto frames = decode_all(o.path);
    ASSERT_EQ(frames.size(), 2u);
    EXPECT_EQ(frames[0].width, 65);
    EXPECT_EQ(frames[0].height, 49);
    EXPECT_EQ(frames[0].pixel_format, "yuv444p");  // 4:2:0 cannot hold an odd size
    EXPECT_EQ(frames[0].sar_num, 4);
    EXPECT_EQ(frames[0].sar_den, 3);
    expect_close(frames[1], img);
}

TEST(SinkVideoOptions, TimestampsFollowTimeNotIndex) {
    const std::string dir = test_dir();
    const Image img = quads(96, 64, WorkFormat::rgba8, 0);
    SinkOptions o = out(dir + "/vfr.mkv");
    auto sink = Sink::open(o, img.g);
    const double times[] = {10.0, 10.04, 10.2, 10.24};  // from a source that starts at 10 s
    for (int i = 0; i < 4; ++i)
        sink->write(img.bytes.data(), img.g, i, times[i]);
    sink->finish();
    auto frames = decode_all(o.path);
    ASSERT_EQ(frames.size(), 4u);
    for (int i = 0; i < 4; ++i)
        EXPECT_NEAR(frames[i].time_s, times[i] - 10.0, 0.002) << i;
}

// Writes one frame at each of `times` through a sink of `o`, decodes the file and expects each
// frame back at its time, within `tolerance` seconds.
void expect_times_kept(const SinkOptions& o, const std::vector<double>& times, double tolerance) {
    const Image img = quads(96, 64, WorkFormat::rgba8, 0);
    auto sink = Sink::open(o, img.g);
    for (size_t i = 0; i < times.size(); ++i)
        sink->write(img.bytes.data(), img.g, static_cast<int64_t>(i), times[i]);
    sink->finish();
    auto frames = decode_all(o.path);
    ASSERT_EQ(frames.size(), times.size());
    for (size_t i = 0; i < times.size(); ++i)
        EXPECT_NEAR(frames[i].time_s, times[i], tolerance) << i;
}

// A variable-rate clip (30 fps, then 15) whose average rate is no plain ratio: every frame keeps
// its own time, in mp4 and mkv (a time base of one average period pushed frames up to 0.7 s late).
TEST(SinkVideoOptions, VariableRateKeepsEveryFramesTime) {
    const std::string dir = test_dir();
    std::vector<double> times;
    for (int i = 0; i < 45; ++i)
        times.push_back(i / 30.0 + (i * 37 % 101) / 90000.0);
    for (int i = 0; i < 45; ++i)
        times.push_back(1.5 + i / 15.0 + (i * 37 % 101) / 90000.0);
    for (const char* ext : {"mp4", "mkv"}) {
        SCOPED_TRACE(ext);
        SinkOptions o = out(dir + "/vfr2." + ext);
        o.fps = 8100000.0 / 402061;           // the clip's average
        expect_times_kept(o, times, 0.0006);  // (mkv stores milliseconds)
    }
}

// With the source's time base (a QuickTime-style 1/1000 whose average rate 25000/1177 is a
// plain-looking ratio), frames keep their times exactly; MPEG-4 part 2, which takes no time
// base finer than 1/65535, opens on a 1/90000 source and keeps them to 8 us.
TEST(SinkVideoOptions, SourceTimeBaseKeepsTimesExactly) {
    const std::string dir = test_dir();
    std::vector<double> times;
    for (int i = 0; i < 30; ++i)
        times.push_back((i * 47 + (i * 37 % 11) * 3 + (i > 20 ? i * 20 : 0)) / 1000.0);
    struct Case {
        const char* file;
        const char* codec;
        int tb_den;
        double tolerance;
    };
    for (const Case& c : {Case{"ms.mp4", "", 1000, 1e-6}, Case{"ms.mkv", "", 1000, 1e-6},
                          Case{"m4.mp4", "mpeg4", 90000, 1e-5}}) {
        SCOPED_TRACE(c.file);
        SinkOptions o = out(dir + "/" + c.file);
        o.codec = c.codec;
        o.fps = 25000.0 / 1177;
        o.time_base_num = 1;
        o.time_base_den = c.tb_den;
        expect_times_kept(o, times, c.tolerance);
    }
}

// MPEG-1/2 take their standard's rates: MPEG-1 at a rate it has no code for (12.5 fps) the
// nearest of its eight, not one of FFmpeg's "unofficial" ones (12), which its encoder refuses;
// MPEG-2 keeps 25, and its list (every rate its frame_rate_ext reaches) has 12 nearest 12.5.
TEST(SinkVideoOptions, MpegVideoTakesAStandardRate) {
    const std::string dir = test_dir();
    const Image img = quads(96, 64, WorkFormat::rgba8, 0);
    struct Case {
        const char* codec;
        double fps, expected;
    };
    for (const Case& c : {Case{"mpeg1video", 12.5, 24000.0 / 1001}, Case{"mpeg2video", 25, 25},
                          Case{"mpeg2video", 12.5, 12}}) {
        SCOPED_TRACE(std::string(c.codec) + " at " + std::to_string(c.fps));
        SinkOptions o = out(dir + "/m.mkv");
        o.codec = c.codec;
        o.fps = c.fps;
        auto sink = Sink::open(o, img.g);
        for (int i = 0; i < 3; ++i)
            sink->write(img.bytes.data(), img.g, i, i / c.fps);
        sink->finish();
        SourceOptions so;
        so.input = o.path;
        auto src = Source::open(so);
        EXPECT_NEAR(src->info().fps, c.expected, 0.001);
        int n = 0;
        while (src->next())
            ++n;
        EXPECT_EQ(n, 3);
    }
}

// --- errors and atomicity ------------------------------------------------------------------------

TEST(SinkErrors, CaughtAtOpenAndLeaveNothing) {
    const std::string dir = test_dir();
    const Image img = quads(64, 48, WorkFormat::rgba8, 0);
    auto open = [&](SinkOptions o) { return [o, &img] { Sink::open(o, img.g); }; };

    expect_error(open(out(dir + "/out.avi")),
                 {dir + "/out.avi", ".mp4", ".mkv", ".mov", ".png", "%04d", "null"});
    expect_error(open(out(dir + "/noext")), {dir + "/noext", ".mp4"});
    expect_error(open(out(dir + "/missing/out.mp4")), {dir + "/missing/out.mp4", "does not exist"});
    expect_error(open(out(dir + "/missing/out_%04d.png")),
                 {"missing/out_%04d.png", "does not exist"});
    expect_error(open(out(dir + "/missing/out.png")), {"missing/out.png", "does not exist"});

    SinkOptions bad_codec = out(dir + "/out.mp4");
    bad_codec.codec = "nosuchcodec";
    expect_error(open(bad_codec), {dir + "/out.mp4", "'nosuchcodec'"});

    SinkOptions audio_codec = out(dir + "/out.mp4");
    audio_codec.codec = "aac";
    expect_error(open(audio_codec), {dir + "/out.mp4", "'aac' is not a video encoder"});

    SinkOptions wrong_container = out(dir + "/out.mp4");
    wrong_container.codec = "ffv1";
    expect_error(open(wrong_container), {dir + "/out.mp4", "ffv1"});

    SinkOptions bad_opt = out(dir + "/out.mkv");
    bad_opt.encoder_options = {{"crf", "20"}, {"bogus_opt", "1"}};
    expect_error(open(bad_opt), {dir + "/out.mkv", "'bogus_opt'", "libx264"});

    SinkOptions bad_value = out(dir + "/out.mkv");
    bad_value.encoder_options = {{"crf", "lots"}};
    expect_error(open(bad_value), {dir + "/out.mkv", "'crf'", "'lots'"});

    SinkOptions bad_preset = out(dir + "/out.mov");
    bad_preset.encoder_options = {{"preset", "warp9"}};
    expect_error(open(bad_preset), {dir + "/out.mov", "libx264", "preset=warp9"});

    fs::create_directories(dir + "/adir.mp4");
    expect_error(open(out(dir + "/adir.mp4")), {dir + "/adir.mp4", "folder"});
    fs::remove(dir + "/adir.mp4");

    EXPECT_EQ(listing(dir), Names{});
}

TEST(SinkErrors, UnwritableFolder) {
    const std::string dir = test_dir();
    const Image img = quads(64, 48, WorkFormat::rgba8, 0);
    const std::string ro = dir + "/readonly";
    fs::create_directories(ro);
    ::chmod(ro.c_str(), 0555);
    std::string target = ro;
    // root ignores permission bits: fall back to a folder no one may create files in.
    const std::string probe = ro + "/probe";
    if (std::FILE* f = std::fopen(probe.c_str(), "w")) {
        std::fclose(f);
        fs::remove(probe);
        target = "/sys";
        const std::string sys_probe = "/sys/vfx-probe";
        if (std::FILE* g = std::fopen(sys_probe.c_str(), "w")) {
            std::fclose(g);
            fs::remove(sys_probe);
            ::chmod(ro.c_str(), 0755);
            GTEST_SKIP() << "running with rights to write everywhere, even /sys";
        }
    }
    for (const char* name : {"/out.mp4", "/out.png", "/out_%04d.png"})
        expect_error([&] { Sink::open(out(target + name), img.g); },
                     {target + name, "not writable"});
    EXPECT_EQ(listing(ro), Names{});
    ::chmod(ro.c_str(), 0755);
}

TEST(SinkErrors, DestroyedWithoutFinishLeavesNothing) {
    const std::string dir = test_dir();
    const Image img = quads(64, 48, WorkFormat::rgba8, 0);
    for (const char* name : {"/a.mp4", "/b.mkv", "/c.mov", "/d.png", "/e_%04d.png"}) {
        auto sink = Sink::open(out(dir + name), img.g);
        const int n = std::string(name) == "/d.png" ? 1 : 3;
        for (int i = 0; i < n; ++i)
            sink->write(img.bytes.data(), img.g, i, i / 25.0);
        EXPECT_FALSE(listing(dir).empty()) << name << ": temporaries exist while writing";
        sink.reset();
        EXPECT_EQ(listing(dir), Names{}) << name;
    }
}

TEST(SinkErrors, ExistingOutputReplacedOnlyByFinish) {
    const std::string dir = test_dir();
    const std::string path = dir + "/keep.mp4";
    std::ofstream(path) << "previous run";
    const Image img = quads(64, 48, WorkFormat::rgba8, 0);
    {
        auto sink = Sink::open(out(path), img.g);
        sink->write(img.bytes.data(), img.g, 0, 0.0);
    }  // an error mid-run: the previous file stays as it was
    EXPECT_EQ(fs::file_size(path), 12u);
    EXPECT_EQ(listing(dir), Names{"keep.mp4"});
    {
        auto sink = Sink::open(out(path), img.g);
        sink->write(img.bytes.data(), img.g, 0, 0.0);
        EXPECT_EQ(fs::file_size(path), 12u);
        sink->finish();
    }
    EXPECT_EQ(listing(dir), Names{"keep.mp4"});
    EXPECT_EQ(decode_all(path).size(), 1u);
}

TEST(SinkErrors, FinishWithoutFrames) {
    const std::string dir = test_dir();
    const Image img = quads(64, 48, WorkFormat::rgba8, 0);
    for (const char* name : {"/a.mp4", "/b.png", "/c_%04d.png"}) {
        auto sink = Sink::open(out(dir + name), img.g);
        expect_error([&] { sink->finish(); }, {dir + name, "no frame"});
    }
    EXPECT_EQ(listing(dir), Names{});
}

// The input changed size (or depth) mid-stream: a video keeps its first size (the frame is
// scaled, as the ffmpeg command line does); a PNG sequence takes each frame at its own.
TEST(Sink, GeometryChangeMidStreamIsFollowed) {
    const std::string dir = test_dir();
    const Image img = quads(64, 48, WorkFormat::rgba8, 0);
    const Image other = quads(96, 64, WorkFormat::rgba16, 0);
    for (const char* name : {"/a.mkv", "/c_%04d.png"}) {
        auto sink = Sink::open(out(dir + name), img.g);
        sink->write(img.bytes.data(), img.g, 0, 0.0);
        sink->write(other.bytes.data(), other.g, 1, 0.04);
        sink->finish();
        EXPECT_EQ(sink->frames_written(), 2);
    }
    const auto video = decode_all(dir + "/a.mkv");
    ASSERT_EQ(video.size(), 2u);
    EXPECT_EQ(video[1].width, 64);
    EXPECT_EQ(video[1].height, 48);
    const auto second = decode_all(dir + "/c_0002.png");
    ASSERT_EQ(second.size(), 1u);
    EXPECT_EQ(second[0].width, 96);
    EXPECT_EQ(second[0].height, 64);
    EXPECT_EQ(second[0].pixel_format, "rgba64be");
    EXPECT_EQ(listing(dir), (Names{"a.mkv", "c_0001.png", "c_0002.png"}));
}

// The files of a set published together (a PNG sequence's frames) appear all or none: a rename
// that fails (a folder in the way of the second) takes back the first, and once the set is
// dropped no temporary is left; without the folder, all three appear and nothing else.
TEST(PublishAll, AFailedRenameTakesBackTheFilesRenamedBeforeIt) {
    const std::string dir = test::scratch_dir();
    auto make_set = [&](const std::string& stem) {
        std::vector<TempFile> set;
        for (int i = 1; i <= 3; ++i) {
            set.emplace_back(fs::path(dir) / (stem + std::to_string(i) + ".png"), stem);
            std::ofstream(set.back().path()) << i;
        }
        return set;
    };
    std::vector<TempFile> bad = make_set("f");
    fs::create_directories(fs::path(dir) / "f2.png" / "inside");
    try {
        publish_all(bad);
        ADD_FAILURE() << "publish_all over a folder did not fail";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("the 1 file renamed before it was removed"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_FALSE(fs::exists(fs::path(dir) / "f1.png"));
    bad.clear();
    EXPECT_EQ(listing(dir), (Names{"f2.png"}));
    std::vector<TempFile> good = make_set("g");
    publish_all(good);
    good.clear();
    EXPECT_EQ(listing(dir), (Names{"f2.png", "g1.png", "g2.png", "g3.png"}));
}

// Numbered names follow printf as FFmpeg's image sequences do: "%%" is a literal '%', the number
// is zero-padded to its width; the same-file check counts as a sequence's files only the names
// such a number makes (%d never makes o_01.png), and a name with two numbers is refused.
TEST(NumberedNames, ExpandAndCompareAsPrintfWrites) {
    const auto p = find_number_pattern("o_%%_%04d.png");
    ASSERT_TRUE(p);
    EXPECT_EQ(p->begin, 5u);
    EXPECT_EQ(p->width, 4);
    EXPECT_EQ(expand_number("o_%%_%04d.png", *p, 7), "o_%_0007.png");
    EXPECT_EQ(expand_number("o_%%_%04d.png", *p, 123456), "o_%_123456.png");
    EXPECT_FALSE(find_number_pattern("o_%%d.png"));
    const std::string dir = test::scratch_dir();
    auto clash = [&](const std::string& a, const std::string& b) {
        try {
            check_distinct_files({{"--output", dir + "/" + a}, {"--report", dir + "/" + b}});
            return false;
        } catch (const Error&) {
            return true;
        }
    };
    EXPECT_TRUE(clash("o_%d.png", "o_1.png"));
    EXPECT_TRUE(clash("o_%d.png", "o_10.png"));
    EXPECT_FALSE(clash("o_%d.png", "o_01.png"));
    EXPECT_TRUE(clash("o_%02d.png", "o_07.png"));
    EXPECT_TRUE(clash("o_%02d.png", "o_100.png"));
    EXPECT_FALSE(clash("o_%02d.png", "o_007.png"));
    EXPECT_TRUE(clash("o_%%_%d.png", "o_%_3.png"));
    EXPECT_FALSE(clash("o_%%_%d.png", "o_%%_3.png"));
    const Image img = quads(16, 8, WorkFormat::rgba8, 0);
    expect_error([&] { Sink::open(out(dir + "/o_%04d%04d.png"), img.g); },
                 {"more than one frame number"});
    auto sink = Sink::open(out(dir + "/p_%%_%02d.png"), img.g);
    sink->write(img.bytes.data(), img.g, 0, 0.0);
    sink->finish();
    EXPECT_TRUE(fs::exists(dir + "/p_%_01.png"));
}

// An interrupt that comes while a temporary file is being made (here: the signal sent from inside
// the making call, which then takes 200 ms to make it) waits for that call to return, then
// removes the file: the call's line comes before "vfx: interrupted", and nothing is left. (Had
// the clean-up run at once, the process would end before the call's line, or, with the timing
// against it, the file would appear after the clean-up and stay.)
TEST(TempFileDeathTest, AnInterruptWaitsForAFileBeingMadeThenRemovesIt) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    const std::string dir = test::scratch_dir();
    const fs::path final_path = fs::path(dir) / "out.bin";
    EXPECT_EXIT(
        {
            install_interrupt_cleanup();
            TempFile tmp(final_path, "out.bin");
            std::thread maker([&] {
                tmp.create([&] {
                    ::kill(::getpid(), SIGTERM);
                    std::this_thread::sleep_for(std::chrono::milliseconds(200));
                    std::ofstream(tmp.path()) << "partial";
                    std::fputs("made the file\n", stderr);
                    return 0;
                });
            });
            maker.join();
            for (;;)
                ::pause();  // the signal ends the process
        },
        ::testing::KilledBySignal(SIGTERM), "made the file.*vfx: interrupted");
    EXPECT_EQ(listing(dir), Names{});
}

// A library that ends the process by exit() (LLVM's fatal errors under PoCL) skips the
// destructors of the TempFiles on the stack: their temporaries go at exit all the same.
TEST(TempFileDeathTest, ExitFromALibraryRemovesTheTemporaries) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    const std::string dir = test::scratch_dir();
    EXPECT_EXIT(
        {
            install_interrupt_cleanup();
            TempFile tmp(fs::path(dir) / "out.bin", "out.bin");
            tmp.create([&] {
                std::ofstream(tmp.path()) << "partial";
                return 0;
            });
            std::exit(3);
        },
        ::testing::ExitedWithCode(3), "");
    EXPECT_EQ(listing(dir), Names{});
}

}  // namespace
