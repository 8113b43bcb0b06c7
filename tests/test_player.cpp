// The player: transport (pause, frame steps, seeks, loop, speed), the live-source bounds, the
// processed-frame capture, rotation and mid-stream size changes, first on the engine's Player
// with an offscreen renderer, then as a user drives `vfx play`: headless, and in a real window
// under its own X server with key presses and mouse clicks.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "decode/source.hpp"
#include "render/renderer.hpp"
#include "session/devices.hpp"
#include "session/player.hpp"
#include "support/media.hpp"
#include "support/numbered.hpp"

namespace fs = std::filesystem;
using namespace vfx;
using vfx::test::frame_number_of_grey;
using vfx::test::make_media;
using vfx::test::numbered_clip;
using vfx::test::run_command;
using vfx::test::scratch_dir;

namespace {

using Clock = std::chrono::steady_clock;

// --- the engine's Player, offscreen -----------------------------------------------------------

class PlayerTest : public ::testing::Test {
protected:
    void SetUp() override {
        try {
            devices_ = choose(DeviceOptions{});
            tier_ = require_tier(devices_).tier;
        } catch (const Error& e) {
            GTEST_SKIP() << "no OpenCL/Vulkan pair here: " << e.what();
        }
        VkContextOptions vo;
        vo.validation = true;
        vo.device_index = static_cast<uint32_t>(devices_.pair.vk);
        vk_ = std::make_unique<VkContext>(vo);
        cl_ = std::make_unique<ClContext>(devices_.cl_device());
    }

    void TearDown() override {
        player_.reset();
        renderer_.reset();
        if (vk_) {
            EXPECT_EQ(vk_->validation_errors(), 0u);
        }
    }

    // A headless player (flat out, no pacing) into an offscreen target of w x h.
    Player& open(const std::string& input, uint32_t w = 64, uint32_t h = 48,
                 const std::string& chain = "", size_t step_back = 30, bool keep_open = false) {
        renderer_ = std::make_unique<Renderer>(*vk_, OffscreenTarget{{w, h}});
        PlayerOptions po;
        po.source.input = input;
        po.chain = chain;
        po.paced = false;
        po.step_back_frames = step_back;
        po.keep_open = keep_open;
        player_ = std::make_unique<Player>(po, *cl_, *vk_, *renderer_, tier_);
        return *player_;
    }

    // The picture shown last, read back.
    RgbaImage shown() { return renderer_->read_back(); }
    // The numbered clip's frame number on screen (its centre).
    int shown_number() {
        const RgbaImage img = shown();
        return frame_number_of_grey(img.at(img.width / 2, img.height / 2)[1]);
    }
    void step() { ASSERT_TRUE(player_->step()); }

    DeviceChoice devices_;
    InteropTier tier_ = InteropTier::copy;
    std::unique_ptr<VkContext> vk_;
    std::unique_ptr<ClContext> cl_;
    std::unique_ptr<Renderer> renderer_;
    std::unique_ptr<Player> player_;
};

TEST_F(PlayerTest, SeekShowsTheFrameAtOrAfterTheTargetPlayingOrPaused) {
    VFX_REQUIRE_FFMPEG_CLI();
    Player& p = open(numbered_clip());
    for (int i = 0; i < 3; ++i)
        step();
    EXPECT_EQ(shown_number(), 2);

    ASSERT_TRUE(p.seek(2.0));
    step();
    EXPECT_EQ(shown_number(), 50);
    EXPECT_NEAR(p.position_s(), 2.0, 1e-9);
    step();  // playing on from there
    EXPECT_EQ(shown_number(), 51);

    p.set_paused(true);
    ASSERT_TRUE(p.seek(1.01));  // between frames 25 and 26
    step();
    EXPECT_EQ(shown_number(), 26);
    EXPECT_TRUE(p.paused());
    step();  // still paused: the same frame again
    EXPECT_EQ(shown_number(), 26);
    ASSERT_TRUE(p.seek_by(0.4));
    step();
    EXPECT_EQ(shown_number(), 36);
    ASSERT_TRUE(p.seek_by(-100));  // clamped at the start
    step();
    EXPECT_EQ(shown_number(), 0);
    ASSERT_TRUE(p.seek(1000));  // clamped at the end: the last frame
    step();
    EXPECT_EQ(shown_number(), 99);
    EXPECT_NEAR(p.duration_s(), 4.0, 0.05);
    p.set_paused(false);
    EXPECT_FALSE(p.step());  // the end
    EXPECT_EQ(p.source_stats().seeks, 5);
}

TEST_F(PlayerTest, FrameStepsForwardAndBackWithinTheCache) {
    VFX_REQUIRE_FFMPEG_CLI();
    Player& p = open(numbered_clip(), 64, 48, "", /*step_back=*/5);
    for (int i = 0; i < 10; ++i)
        step();
    EXPECT_EQ(shown_number(), 9);
    EXPECT_EQ(p.cached_frames(), 5u);  // frames 5..9

    p.step_frames(-1);
    EXPECT_TRUE(p.paused());  // stepping pauses
    step();
    EXPECT_EQ(shown_number(), 8);
    p.step_frames(-2);
    step();
    EXPECT_EQ(shown_number(), 7);
    step();
    EXPECT_EQ(shown_number(), 6);
    p.step_frames(-5);  // past the oldest cached frame: stays there
    for (int i = 0; i < 5; ++i)
        step();
    EXPECT_EQ(shown_number(), 5);
    const int64_t decoded = p.source_stats().frames_decoded;
    p.step_frames(3);  // forward: from the cache first...
    for (int want : {6, 7, 8}) {
        step();
        EXPECT_EQ(shown_number(), want);
    }
    EXPECT_LE(p.source_stats().frames_decoded - decoded, 4);  // (the queue may refill)
    p.step_frames(2);                                         // ...then from the source
    step();
    EXPECT_EQ(shown_number(), 9);
    step();
    EXPECT_EQ(shown_number(), 10);
    step();  // no more steps asked for: paused on 10
    EXPECT_EQ(shown_number(), 10);
    p.set_paused(false);
    step();
    EXPECT_EQ(shown_number(), 11);
}

TEST_F(PlayerTest, PauseHoldsThePictureAndDecodesNothing) {
    VFX_REQUIRE_FFMPEG_CLI();
    Player& p = open(numbered_clip(), 64, 48, "gaussian=sigma=1");
    for (int i = 0; i < 4; ++i)
        step();
    p.set_paused(true);
    step();
    const RgbaImage held = shown();
    const double pos = p.position_s();
    const int64_t shown_before = p.frames_shown();
    // Let the decoder fill its queue; from then on a paused player takes nothing from it.
    const auto t0 = Clock::now();
    while (p.source_stats().queue_depth < p.source_stats().queue_capacity &&
           Clock::now() - t0 < std::chrono::seconds(10))
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const int64_t decoded = p.source_stats().frames_decoded;
    for (int i = 0; i < 5; ++i) {
        step();
        const RgbaImage again = shown();
        EXPECT_EQ(again.pixels, held.pixels) << i;
    }
    EXPECT_EQ(p.position_s(), pos);
    EXPECT_EQ(p.frames_shown(), shown_before);
    EXPECT_EQ(p.frames_rerendered(), 6);  // the chain ran again each time (sliders stay live)
    EXPECT_EQ(p.source_stats().frames_decoded, decoded);
    p.set_paused(false);
    step();
    EXPECT_GT(p.position_s(), pos);
    EXPECT_NE(shown().pixels, held.pixels);
}

TEST_F(PlayerTest, LoopRestartsAtTheEndAndCanBeSwitchedOff) {
    VFX_REQUIRE_FFMPEG_CLI();
    Player& p = open(numbered_clip(10));
    p.set_loop(true);
    EXPECT_TRUE(p.loop());
    std::vector<int> seen;
    for (int i = 0; i < 25; ++i) {
        step();
        seen.push_back(shown_number());
        EXPECT_NEAR(p.position_s(), 0.04 * (i % 10), 1e-9) << i;
    }
    for (int i = 0; i < 25; ++i)
        EXPECT_EQ(seen[static_cast<size_t>(i)], i % 10) << i;
    p.set_loop(false);
    int more = 0;
    while (p.step())
        ++more;
    EXPECT_EQ(more, 5);  // 5..9 of this pass, then the end
}

// A window's player (keep_open) pauses on the last frame at the end of the input instead of
// ending; a seek back from there shows that frame, and playing on runs to the end again.
TEST_F(PlayerTest, KeepOpenPausesOnTheLastFrameAtTheEnd) {
    VFX_REQUIRE_FFMPEG_CLI();
    Player& p = open(numbered_clip(10), 64, 48, "", 30, /*keep_open=*/true);
    for (int i = 0; i < 10; ++i)
        step();
    EXPECT_EQ(shown_number(), 9);
    EXPECT_FALSE(p.paused());
    step();  // the end: paused there, the last frame still shown
    EXPECT_TRUE(p.paused());
    EXPECT_EQ(shown_number(), 9);
    const int64_t shown = p.frames_shown();
    step();
    EXPECT_EQ(p.frames_shown(), shown);
    ASSERT_TRUE(p.seek(0.2));  // plays on from there
    step();
    EXPECT_EQ(shown_number(), 5);
    EXPECT_FALSE(p.paused());
    for (int i = 6; i < 10; ++i) {
        step();
        EXPECT_EQ(shown_number(), i);
    }
    step();
    EXPECT_TRUE(p.paused());
    EXPECT_EQ(shown_number(), 9);
    p.set_loop(true);  // loop switched on at the end: from the start
    EXPECT_FALSE(p.paused());
    step();
    EXPECT_EQ(shown_number(), 0);
}

TEST_F(PlayerTest, SpeedIsClamped) {
    VFX_REQUIRE_FFMPEG_CLI();
    Player& p = open(numbered_clip(10));
    EXPECT_EQ(p.speed(), 1.0);
    for (int i = 0; i < 8; ++i)
        p.set_speed(p.speed() * 2);
    EXPECT_EQ(p.speed(), Player::kMaxSpeed);
    for (int i = 0; i < 12; ++i)
        p.set_speed(p.speed() * 0.5);
    EXPECT_EQ(p.speed(), Player::kMinSpeed);
}

// A live source much faster than this machine: its queue is always full, and the bounds are
// counted, not timed: never more than one frame waiting, never more than two in flight.
TEST_F(PlayerTest, LiveSourceHoldsOneFrameInTheQueueAndTwoInFlight) {
    VFX_REQUIRE_LAVFI();
    Player& p = open("lavfi:testsrc2=size=64x48:rate=1000", 64, 48, "median=radius=1");
    EXPECT_TRUE(p.stream().live);
    EXPECT_EQ(p.frames_in_flight_limit(), Player::kLiveFramesInFlight);
    EXPECT_EQ(p.bridge().slots(), 2u);
    for (int i = 0; i < 40; ++i) {
        step();
        EXPECT_LE(p.frames_in_flight(), 2u);
        EXPECT_LE(p.source_stats().queue_depth, 1u);
    }
    const SourceStats st = p.source_stats();
    EXPECT_EQ(st.queue_capacity, 1u);
    EXPECT_EQ(st.max_queue_depth, 1u);  // it was full, and never held more
    EXPECT_LE(p.max_frames_in_flight(), 2u);
    EXPECT_GE(p.max_frames_in_flight(), 1u);
    EXPECT_GT(p.latency_ms(), 0.0);
    EXPECT_FALSE(p.seek(1.0));  // live: no seeking
    p.set_speed(4);
    EXPECT_EQ(p.speed(), 1.0);
}

TEST_F(PlayerTest, FileSourceHasNoLatencyFigure) {
    VFX_REQUIRE_FFMPEG_CLI();
    Player& p = open(numbered_clip(10));
    step();
    EXPECT_EQ(p.latency_ms(), -1.0);
    EXPECT_EQ(p.frames_in_flight_limit(), 0u);
}

// The capture is the chain's output at the video's own size: what the renderer shows 1:1.
TEST_F(PlayerTest, CaptureIsTheProcessedFrameAtTheVideoSize) {
    VFX_REQUIRE_FFMPEG_CLI();
    Player& p = open(numbered_clip(), 64, 48, "sepia");
    step();
    step();
    p.set_paused(true);
    p.request_capture();
    step();
    std::optional<CapturedFrame> c = p.take_capture();
    ASSERT_TRUE(c);
    EXPECT_FALSE(p.take_capture());  // handed over once
    EXPECT_EQ(c->geometry.width, 64u);
    EXPECT_EQ(c->geometry.height, 48u);
    ASSERT_EQ(c->geometry.format, WorkFormat::rgba8);
    EXPECT_NEAR(c->position_s, 0.04, 1e-9);
    EXPECT_EQ(c->rotation, 0);
    const RgbaImage img = shown();
    int wrong = 0;
    for (uint32_t y = 0; y < 48; ++y)
        for (uint32_t x = 0; x < 64; ++x)
            for (int k = 0; k < 3; ++k)
                wrong += c->pixels[y * c->geometry.pitch + x * 4 + k] != img.at(x, y)[k];
    EXPECT_EQ(wrong, 0);
    // Sepia of a grey: red above green above blue.
    EXPECT_GT(c->pixels[0], c->pixels[2]);
}

// With the split view on, the picture shown is half unprocessed with a divider; the capture (the S
// key's screenshot) is still the chain's output, whole.
TEST_F(PlayerTest, CaptureLeavesTheSplitViewOut) {
    VFX_REQUIRE_FFMPEG_CLI();
    Player& p = open(numbered_clip(), 64, 48, "sepia");
    ASSERT_TRUE(p.seek(2.0));  // frame 50: a mid grey, whose sepia is clearly warm
    step();
    p.set_paused(true);
    ViewOptions v;
    v.split = true;
    v.split_position = 0.5;
    p.set_view(v);
    // The split view's kernel is built in the background; frames go without it until then.
    bool split_shown = false;
    for (int i = 0; i < 400 && !split_shown; ++i) {
        step();
        const RgbaImage img = shown();
        split_shown = img.at(2, 24)[0] == img.at(2, 24)[2];  // the left edge unprocessed: grey
        if (!split_shown) std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    ASSERT_TRUE(split_shown);
    p.request_capture();
    step();
    std::optional<CapturedFrame> c = p.take_capture();
    ASSERT_TRUE(c);
    int not_sepia = 0;  // grey (unprocessed) or the white divider: red not above blue
    for (uint32_t y = 0; y < 48; ++y)
        for (uint32_t x = 0; x < 64; ++x)
            not_sepia += c->pixels[y * c->geometry.pitch + x * 4] <=
                         c->pixels[y * c->geometry.pitch + x * 4 + 2];
    EXPECT_EQ(not_sepia, 0);
}

// Two clips of different sizes, one after the other in one stream (MPEG-TS segments joined,
// as a camera's recording is): every frame is shown and the picture follows the new size.
std::string two_sizes_clip() {
    const std::string a = make_media(
        "seg_320x240.ts",
        "-f lavfi -i testsrc2=size=320x240:rate=25 -frames:v 10 -c:v libx264 -preset ultrafast "
        "-pix_fmt yuv420p");
    const std::string b = make_media(
        "seg_640x360.ts",
        "-f lavfi -i smptebars=size=640x360:rate=25 -frames:v 10 -c:v libx264 -preset ultrafast "
        "-pix_fmt yuv420p");
    const std::string joined = fs::path(a).parent_path() / "seg_320x240_then_640x360.ts";
    if (!fs::exists(joined)) {
        const std::string tmp = joined + ".part" + std::to_string(::getpid());
        EXPECT_EQ(run_command("cat '" + a + "' '" + b + "' > '" + tmp + "'"), 0);
        fs::rename(tmp, joined);
    }
    return joined;
}

// Decodes a PNG (or the first frame of anything).
HostFrame first_frame(const std::string& path) {
    SourceOptions so;
    so.input = path;
    auto src = Source::open(so);
    auto f = src->next();
    if (!f) throw std::runtime_error("no frame in " + path);
    return std::move(*f);
}

TEST_F(PlayerTest, ResolutionChangeMidStreamIsFollowed) {
    VFX_REQUIRE_FFMPEG_CLI();
    Player& p = open(two_sizes_clip(), 640, 360);
    std::vector<int> widths;
    while (p.step())
        widths.push_back(std::stoi(p.frame_description()));
    ASSERT_EQ(widths.size(), 20u);
    for (size_t i = 0; i < 20; ++i)
        EXPECT_EQ(widths[i], i < 10 ? 320 : 640) << i;
    EXPECT_GE(p.bridge().stats().reallocations, 1u);
    // The last picture is the second clip's last frame, 1:1, as `vfx process` computes it.
    const std::string dir = scratch_dir();
    std::string out;
    ASSERT_EQ(run_command("'" + vfx::test::vfx_binary() + "' process --log-level warn --input '" +
                              two_sizes_clip() + "' --output '" + dir + "/f_%04d.png'",
                          &out),
              0)
        << out;
    const HostFrame first = first_frame(dir + "/f_0001.png");
    EXPECT_EQ(first.width, 320);
    const HostFrame last = first_frame(dir + "/f_0020.png");
    ASSERT_EQ(last.width, 640);
    ASSERT_EQ(last.height, 360);
    const RgbaImage img = shown();
    double diff = 0;
    for (uint32_t y = 0; y < 360; ++y)
        for (uint32_t x = 0; x < 640; ++x)
            for (int k = 0; k < 3; ++k)
                diff += std::abs(img.at(x, y)[k] -
                                 last.plane(0).data[y * last.plane(0).stride + x * 4 + k]);
    EXPECT_LT(diff / (640.0 * 360 * 3), 0.5);
}

// --- `vfx play` as a user runs it --------------------------------------------------------------

struct Outcome {
    int status = -1;
    std::string output;
};

Outcome vfx_run(const std::string& args) {
    Outcome r;
    r.status = run_command("timeout 300 '" + vfx::test::vfx_binary() + "' " + args, &r.output);
    return r;
}

nlohmann::json read_json(const std::string& path) {
    std::ifstream f(path);
    return nlohmann::json::parse(f);
}

TEST(PlayCli, ConcatenatedClipsOfTwoSizesPlayToTheEnd) {
    VFX_REQUIRE_FFMPEG_CLI();
    const std::string dir = scratch_dir();
    Outcome r = vfx_run("play --headless --validation --chain sepia --report '" + dir +
                        "/r.json' --screenshot '" + dir + "/shot.png' '" + two_sizes_clip() + "'");
    ASSERT_EQ(r.status, 0) << r.output;
    auto j = read_json(dir + "/r.json");
    EXPECT_EQ(j["frames"], 20);
    EXPECT_EQ(j["dropped_frames"], 0);
    EXPECT_EQ(j["validation_errors"], 0);
    // The headless target is 1280x720: the 640x360 frame fills it at twice its size, so the
    // screenshot shows the second clip (colour bars), not the first (testsrc2).
    const HostFrame shot = first_frame(dir + "/shot.png");
    ASSERT_EQ(shot.width, 1280);
    const uint8_t* top_left = shot.plane(0).data + 100 * shot.plane(0).stride + 40 * 4;
    EXPECT_GT(top_left[0], 150);  // sepia of the bars' light grey
}

// A pixel-format change mid-stream (8-bit 4:2:0, then 10-bit 4:4:4: the working format goes
// from RGBA8 to RGBA16) is followed by play and by process.
TEST(PlayCli, PixelFormatChangeMidStreamIsFollowed) {
    VFX_REQUIRE_FFMPEG_CLI();
    const std::string a = make_media(
        "seg_320x240.ts",
        "-f lavfi -i testsrc2=size=320x240:rate=25 -frames:v 10 -c:v libx264 -preset ultrafast "
        "-pix_fmt yuv420p");
    const std::string b = make_media(
        "seg_320x240_444p10.ts",
        "-f lavfi -i smptebars=size=320x240:rate=25 -frames:v 10 -c:v libx264 -preset ultrafast "
        "-pix_fmt yuv444p10le");
    const std::string dir = scratch_dir();
    const std::string joined = dir + "/joined.ts";
    ASSERT_EQ(run_command("cat '" + a + "' '" + b + "' > '" + joined + "'"), 0);
    Outcome r =
        vfx_run("play --headless --validation --report '" + dir + "/r.json' '" + joined + "'");
    ASSERT_EQ(r.status, 0) << r.output;
    auto j = read_json(dir + "/r.json");
    EXPECT_EQ(j["frames"], 20);
    EXPECT_EQ(j["validation_errors"], 0);
    Outcome p = vfx_run("process --input '" + joined + "' --output '" + dir + "/f_%04d.png'");
    ASSERT_EQ(p.status, 0) << p.output;
    EXPECT_EQ(first_frame(dir + "/f_0010.png").pixel_format, "rgba");
    EXPECT_EQ(first_frame(dir + "/f_0011.png").pixel_format, "rgba64be");
    EXPECT_EQ(first_frame(dir + "/f_0020.png").width, 320);
}

TEST(PlayCli, ClockAndScreenshotOptions) {
    VFX_REQUIRE_FFMPEG_CLI();
    const std::string dir = scratch_dir();
    Outcome bad = vfx_run("play --headless --realtime --clock fast --frames 2");
    EXPECT_EQ(bad.status, 1) << bad.output;
    EXPECT_NE(bad.output.find("vfx: --realtime and --clock fast contradict"), std::string::npos)
        << bad.output;
    Outcome nodir = vfx_run("play --headless --frames 2 --screenshot-dir '" + dir + "/nope'");
    EXPECT_EQ(nodir.status, 1);
    EXPECT_NE(nodir.output.find("is not a folder"), std::string::npos) << nodir.output;
    Outcome badclock = vfx_run("play --headless --frames 2 --clock slow");
    EXPECT_EQ(badclock.status, 1);
    Outcome fast = vfx_run("play --headless --clock fast --frames 5 --report '" + dir +
                           "/r.json' '" + numbered_clip() + "'");
    ASSERT_EQ(fast.status, 0) << fast.output;
    EXPECT_FALSE(read_json(dir + "/r.json")["paced"].get<bool>());
    Outcome paced = vfx_run("play --headless --clock realtime --speed 2 --frames 5 --report '" +
                            dir + "/r.json' '" + numbered_clip() + "'");
    ASSERT_EQ(paced.status, 0) << paced.output;
    auto j = read_json(dir + "/r.json");
    EXPECT_TRUE(j["paced"].get<bool>());
    EXPECT_EQ(j["speed"], 2.0);
    Outcome loop = vfx_run("play --headless --loop --frames 150 --report '" + dir + "/r.json' '" +
                           numbered_clip() + "'");
    ASSERT_EQ(loop.status, 0) << loop.output;
    EXPECT_EQ(read_json(dir + "/r.json")["frames"], 150);  // a 100-frame clip, looped
}

TEST(PlayCli, LiveReportHasTheBoundsAndTheLatency) {
    VFX_REQUIRE_LAVFI();
    const std::string dir = scratch_dir();
    Outcome r = vfx_run("play --headless --frames 20 --report '" + dir +
                        "/r.json' 'lavfi:testsrc2=size=160x120:rate=1000'");
    ASSERT_EQ(r.status, 0) << r.output;
    auto j = read_json(dir + "/r.json");
    EXPECT_EQ(j["source_stats"]["queue_capacity"], 1);
    EXPECT_EQ(j["source_stats"]["max_queue_depth"], 1);
    EXPECT_EQ(j["frames_in_flight_limit"], 2);
    EXPECT_LE(j["max_frames_in_flight"].get<int>(), 2);
    EXPECT_GT(j["latency_ms"].get<double>(), 0.0);
}

// A clip tagged with a display matrix is shown the way FFmpeg itself turns it upright: each
// quadrant of the picture (red, green, blue, white when stored) lands where `ffmpeg`'s
// autorotation puts it.
TEST(PlayCli, RotationMetadataIsAppliedAsFFmpegShowsIt) {
    VFX_REQUIRE_FFMPEG_PROGRAM();
    const std::string quad = make_media(
        "quad.mp4",
        "-f lavfi -i color=red:s=80x60 -f lavfi -i color=lime:s=80x60 -f lavfi -i "
        "color=blue:s=80x60 -f lavfi -i color=white:s=80x60 -filter_complex "
        "\"[0][1]hstack[t];[2][3]hstack[b];[t][b]vstack,format=yuv420p\" -frames:v 3 -r 25 "
        "-c:v libx264 -preset ultrafast");
    ASSERT_FALSE(quad.empty());
    const std::string dir = scratch_dir();
    for (int tag : {0, 90, 180, 270}) {
        SCOPED_TRACE(tag);
        const std::string clip =
            make_media("quad_rot" + std::to_string(tag) + ".mp4",
                       "-i '" + quad + "' -c copy -metadata:s:v rotate=" + std::to_string(tag));
        const std::string ref = dir + "/ref" + std::to_string(tag) + ".png";
        ASSERT_EQ(run_command("ffmpeg -nostdin -y -v error -i '" + clip +
                              "' -frames:v 1 -pix_fmt rgba '" + ref + "'"),
                  0);
        const std::string shot = dir + "/shot" + std::to_string(tag) + ".png";
        Outcome r = vfx_run("play --headless --validation --chain '' --frames 1 --screenshot '" +
                            shot + "' '" + clip + "'");
        ASSERT_EQ(r.status, 0) << r.output;
        const HostFrame want = first_frame(ref);  // upright, at its own size
        const HostFrame got = first_frame(shot);  // 1280x720 with the picture letterboxed
        const bool side = tag % 180 == 90;
        EXPECT_EQ(want.width, side ? 120 : 160);
        const Rect rect = letterbox_rect(1280, 720, static_cast<uint32_t>(want.width),
                                         static_cast<uint32_t>(want.height));
        EXPECT_EQ(rect, letterbox_rect(1280, 720, 160, 120, 1, 1, side ? 90 : 0));
        for (double fy : {0.25, 0.75})
            for (double fx : {0.25, 0.75}) {
                const auto wx = static_cast<int>(fx * want.width),
                           wy = static_cast<int>(fy * want.height);
                const auto gx = static_cast<int>(rect.x + fx * rect.width),
                           gy = static_cast<int>(rect.y + fy * rect.height);
                const uint8_t* w = want.plane(0).data + wy * want.plane(0).stride + wx * 4;
                const uint8_t* g = got.plane(0).data + gy * got.plane(0).stride + gx * 4;
                for (int k = 0; k < 3; ++k)
                    EXPECT_NEAR(g[k], w[k], 12) << "quadrant " << fx << "," << fy << " ch " << k;
            }
    }
}

// --- a real window, driven by key presses and clicks ------------------------------------------

// An X server of the test's own. xvfb-run -a looks for a free display number from the one it
// is given; starting from one of our own keeps clear of other xvfb-runs starting at the same
// time (they all start at 99).
std::string own_display() {
    return "timeout -k 5 200 xvfb-run -a -n " + std::to_string(100 + ::getpid() % 800) +
           " -s '-screen 0 1280x720x24' ";
}

// The numbered grey frame at screen point (x, y) of a screenshot (taken as 24-bit RGB).
int number_at(const std::string& png, int x, int y) {
    const HostFrame f = first_frame(png);
    EXPECT_EQ(f.format.layout, PlaneLayout::rgba);
    return frame_number_of_grey(f.plane(0).data[y * f.plane(0).stride + x * 4 + 1], 1);
}

// Pause, step, seek by key and by clicking the seek bar, screenshot, quit — what a user does.
// The clip: 20 s at 10 fps, frame N flat grey of luma 16 + N, 320x240 (shown 960x720, centred).
TEST(PlayerWindow, KeysAndSeekBarDriveThePlayer) {
    VFX_REQUIRE_FFMPEG_CLI();
    std::string have;
    if (run_command("command -v xvfb-run && command -v xdotool && command -v import", &have) != 0)
        GTEST_SKIP() << "xvfb-run, xdotool or ImageMagick's import is missing";
    const std::string clip = numbered_clip(200, 10, 1, "320x240");
    ASSERT_FALSE(clip.empty());
    const std::string dir = scratch_dir();
    const std::string script = dir + "/drive.sh";
    // The seek bar runs along the bottom of the 1280x720 window, 8 px in from each side, its
    // centre 15 px above the bottom edge: 25% of it is x = 8 + 0.25 * 1264 = 324.
    std::ofstream(script) << "vfx='" << vfx::test::vfx_binary() << "'; dir='" << dir << "'; clip='"
                          << clip << "'\n"
                          << vfx::test::wait_window_sh() << R"SH(
cd "$dir"
"$vfx" play --validation --chain "" --screenshot-dir "$dir/shots" "$clip" > "$dir/play.log" 2>&1 &
pid=$!
wait_window $pid
wait_video
sleep 1
xdotool windowfocus --sync "$wid"
xdotool key h space
sleep 1
import -window root PNG24:paused1.png
sleep 0.6
import -window root PNG24:paused2.png
xdotool key comma
sleep 0.8
import -window root PNG24:back.png
xdotool key period period
sleep 0.8
import -window root PNG24:forward.png
xdotool key Right
sleep 1
import -window root PNG24:right.png
xdotool key space
sleep 1.5
import -window root PNG24:playing.png
xdotool key space h
sleep 0.5
xdotool mousemove 324 705 click 1
sleep 1.2
import -window root PNG24:clicked.png
xdotool key s
sleep 1.2
xdotool key Escape
for i in $(seq 1 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
if kill -0 $pid 2>/dev/null; then kill $pid; echo still-running; exit 9; fi
wait $pid
echo "exit=$?"
)SH";
    fs::create_directories(dir + "/shots");
    std::string out, log_text;
    for (int attempt = 0; attempt < 3; ++attempt) {
        run_command(own_display() + "bash '" + script + "'", &out);
        std::ifstream log(dir + "/play.log");
        log_text.assign(std::istreambuf_iterator<char>(log), {});
        // The X server did not come up (a display-number race with another xvfb-run): again.
        if (log_text.find("no display") == std::string::npos) break;
        std::printf("no X server on attempt %d, again\n", attempt + 1);
    }
    ASSERT_NE(out.find("exit=0"), std::string::npos) << out << "\n" << log_text;
    EXPECT_EQ(log_text.find("Vulkan validation:"), std::string::npos) << log_text;

    // Paused: the picture is frozen (the whole screen, overlay hidden).
    const HostFrame p1 = first_frame(dir + "/paused1.png"), p2 = first_frame(dir + "/paused2.png");
    ASSERT_EQ(p1.width, 1280);
    int changed = 0;
    for (int y = 0; y < p1.height; ++y)
        changed += std::memcmp(p1.plane(0).data + y * p1.plane(0).stride,
                               p2.plane(0).data + y * p2.plane(0).stride,
                               static_cast<size_t>(p1.width) * 4) != 0;
    EXPECT_EQ(changed, 0) << "the paused picture changed";
    const int n = number_at(dir + "/paused1.png", 640, 360);
    EXPECT_GT(n, 0) << log_text;
    // One back (the frames played before the pause are cached), two forward.
    EXPECT_EQ(number_at(dir + "/back.png", 640, 360), n - 1);
    EXPECT_EQ(number_at(dir + "/forward.png", 640, 360), n + 1);
    // Right: 5 s on, still paused.
    EXPECT_EQ(number_at(dir + "/right.png", 640, 360), n + 1 + 50);
    // Space again: it plays.
    EXPECT_GT(number_at(dir + "/playing.png", 640, 360), n + 1 + 50);
    // A click at 25% of the seek bar: 5 s into the 20 s clip (paused, so it stays there). The
    // overlay is shown: its "vfx" panel at the top left, its "timing" panel (440 px wide) at the
    // top right, the transport bar at the bottom; the video is sampled in the gap between the
    // panels, at the centre and low down, and both points show the same frame.
    const int clicked = number_at(dir + "/clicked.png", 640, 360);
    EXPECT_GE(clicked, 50);
    EXPECT_LE(clicked, 51);
    EXPECT_EQ(number_at(dir + "/clicked.png", 640, 640), clicked);
    EXPECT_NE(log_text.find("seek to", log_text.find("seek to") + 1), std::string::npos)
        << log_text;  // Right, then the click

    // S: the processed frame at the video's size, without the overlay that was on screen.
    const std::string shot = dir + "/shots/vfx-shot-0001.png";
    ASSERT_TRUE(fs::exists(shot)) << log_text;
    EXPECT_NE(log_text.find("screenshot: " + shot), std::string::npos) << log_text;
    const HostFrame s = first_frame(shot);
    EXPECT_EQ(s.width, 320);
    EXPECT_EQ(s.height, 240);
    const uint8_t grey = s.plane(0).data[1];
    int other = 0;
    for (int y = 0; y < s.height; ++y)
        for (int x = 0; x < s.width; ++x)
            for (int k = 0; k < 3; ++k)
                other += s.plane(0).data[y * s.plane(0).stride + x * 4 + k] != grey;
    EXPECT_EQ(other, 0) << "the screenshot is not the flat frame (overlay pixels?)";
    EXPECT_EQ(frame_number_of_grey(grey, 1), clicked);
}

}  // namespace
