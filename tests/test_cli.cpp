// The `vfx` program as a user runs it: exit statuses, one-line errors, no partial outputs,
// reports, a headless run of the bundled sample, and a real window under X driven by key presses.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "compute/chain.hpp"
#include "compute/preset.hpp"
#include "compute/registry.hpp"
#include "decode/source.hpp"
#include "support/media.hpp"

namespace fs = std::filesystem;
using vfx::test::make_media;
using vfx::test::run_command;
using vfx::test::scratch_dir;

namespace {

const std::string kSample = vfx::test::source_dir() + "/assets/sample.mp4";

struct Outcome {
    int status = -1;
    std::string output;
};

Outcome vfx_run(const std::string& args) {
    Outcome r;
    r.status = run_command("timeout 300 '" + vfx::test::vfx_binary() + "' " + args, &r.output);
    return r;
}

// The user-facing error: exactly one line on stderr starting with "vfx: ".
void expect_one_line_error(const Outcome& r, const std::string& must_contain) {
    EXPECT_EQ(r.status, 1) << r.output;
    // Log lines at info level may precede; the error itself is the last line and the only "vfx:".
    size_t count = 0, pos = 0;
    while ((pos = r.output.find("vfx: ", pos)) != std::string::npos) {
        ++count;
        pos += 5;
    }
    EXPECT_EQ(count, 1u) << r.output;
    auto at = r.output.find("vfx: ");
    ASSERT_NE(at, std::string::npos) << r.output;
    std::string line = r.output.substr(at, r.output.find('\n', at) - at);
    EXPECT_NE(line.find(must_contain), std::string::npos) << line;
}

// ffprobe's CSV of `entries` for the first video stream of `path` (one line per section), or
// its error text.
std::string ffprobe_video(const std::string& path, const std::string& entries) {
    std::string out;
    const int rc = run_command("ffprobe -v error -select_streams v:0 -show_entries " + entries +
                                   " -of csv=p=0 '" + path + "' 2>&1",
                               &out);
    EXPECT_EQ(rc, 0) << out;
    return out;
}

// Window tests run on an X server of their own, so that tests running in parallel never see
// (or screenshot) each other's windows.
const std::string kOwnDisplay = "timeout -k 5 150 xvfb-run -a -s '-screen 0 1280x720x24' ";

// The number of frames vfx's own source decodes from a file.
int frames_in(const std::string& path) {
    vfx::SourceOptions so;
    so.input = path;
    auto src = vfx::Source::open(so);
    int n = 0;
    while (src->next())
        ++n;
    return n;
}

nlohmann::json read_json(const std::string& path) {
    std::ifstream f(path);
    return nlohmann::json::parse(f);
}

// Decodes a PNG (or the first frame of anything) into its HostFrame.
vfx::HostFrame first_frame(const std::string& path) {
    vfx::SourceOptions so;
    so.input = path;
    auto src = vfx::Source::open(so);
    auto f = src->next();
    if (!f) throw std::runtime_error("no frame in " + path);
    return std::move(*f);
}

double mean_abs_diff_rgba8(const vfx::HostFrame& a, const vfx::HostFrame& b, int channels = 3) {
    EXPECT_EQ(a.width, b.width);
    EXPECT_EQ(a.height, b.height);
    double sum = 0;
    for (int y = 0; y < a.height; ++y) {
        const uint8_t* ra = a.plane(0).data + y * a.plane(0).stride;
        const uint8_t* rb = b.plane(0).data + y * b.plane(0).stride;
        for (int x = 0; x < a.width; ++x)
            for (int c = 0; c < channels; ++c)
                sum += std::abs(ra[x * 4 + c] - rb[x * 4 + c]);
    }
    return sum / (static_cast<double>(a.width) * a.height * channels);
}

TEST(Cli, VersionAndHelp) {
    Outcome v = vfx_run("--version");
    EXPECT_EQ(v.status, 0);
    EXPECT_NE(v.output.find("vfx "), std::string::npos);
    Outcome h = vfx_run("--help");
    EXPECT_EQ(h.status, 0);
    for (const char* cmd : {"play", "process", "probe"})
        EXPECT_NE(h.output.find(cmd), std::string::npos);
    Outcome ph = vfx_run("process --help");
    EXPECT_EQ(ph.status, 0);
    EXPECT_NE(ph.output.find("--encoder-opt"), std::string::npos);
    // The input, a positional that --input names too, is listed once under both names.
    Outcome plh = vfx_run("play --help");
    EXPECT_EQ(plh.status, 0);
    for (const Outcome* o : {&ph, &plh}) {
        const std::string input_help = "Input file or lavfi:GRAPH / v4l2:/dev/videoN";
        const size_t at = o->output.find(input_help);
        ASSERT_NE(at, std::string::npos) << o->output;
        EXPECT_EQ(o->output.find(input_help, at + 1), std::string::npos) << o->output;
        EXPECT_NE(o->output.find("input, --input TEXT"), std::string::npos) << o->output;
    }
    EXPECT_NE(ph.output.find("input, --input TEXT REQUIRED"), std::string::npos) << ph.output;
}

TEST(Cli, ProbeNamesThePairAndTheTier) {
    Outcome r = vfx_run("probe");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("OpenCL devices:"), std::string::npos);
    EXPECT_NE(r.output.find("Vulkan devices:"), std::string::npos);
    EXPECT_NE(r.output.find("Interop tier: "), std::string::npos);
    Outcome j = vfx_run("probe --json --log-level off");
    ASSERT_EQ(j.status, 0) << j.output;
    auto doc = nlohmann::json::parse(j.output);
    EXPECT_FALSE(doc["opencl"].empty());
    EXPECT_TRUE(doc["interop"].contains("tier"));
}

TEST(Cli, FiltersJsonMatchesTheRegistry) {
    Outcome r = vfx_run("filters --json --log-level off");
    ASSERT_EQ(r.status, 0) << r.output;
    auto doc = nlohmann::json::parse(r.output);
    const auto filters = vfx::registered_filters();
    ASSERT_EQ(doc.size(), filters.size());
    for (size_t i = 0; i < filters.size(); ++i) {
        const auto& f = *filters[i];
        const auto& j = doc[i];
        EXPECT_EQ(j["name"], f.name);
        EXPECT_EQ(j["help"], f.help);
        EXPECT_EQ(j["pointwise"], f.pointwise);
        EXPECT_EQ(j["uses_chain_input"], f.uses_chain_input);
        for (vfx::FrameKind k : {vfx::FrameKind::colour, vfx::FrameKind::mosaic}) {
            const auto& t = j["takes"];
            EXPECT_EQ(std::find(t.begin(), t.end(), std::string(vfx::to_string(k))) != t.end(),
                      f.takes(k))
                << f.name;
        }
        ASSERT_EQ(j["params"].size(), f.params.size()) << f.name;
        for (size_t k = 0; k < f.params.size(); ++k) {
            const auto& p = f.params[k];
            const auto& jp = j["params"][k];
            EXPECT_EQ(jp["name"], p.name);
            EXPECT_EQ(jp["type"], std::string(vfx::to_string(p.type)));
            EXPECT_EQ(jp["help"], p.help);
            // The default, written back as chain text, is the registry's default.
            vfx::FilterInstance inst = vfx::make_filter(f.name);
            const std::string text = jp["default"].is_array() ? [&] {
                std::string t;
                for (const auto& v : jp["default"]) t += (t.empty() ? "" : "|") + vfx::format_param_value(v.get<double>());
                return t;
            }() : jp["default"].is_string() ? jp["default"].get<std::string>()
              : jp["default"].is_boolean() ? std::string(jp["default"].get<bool>() ? "true" : "false")
              : jp["default"].is_number_integer() ? std::to_string(jp["default"].get<int64_t>())
              : vfx::format_param_value(jp["default"].get<double>());
            inst.set(p.name, text);
            EXPECT_EQ(inst, vfx::make_filter(f.name))
                << f.name << "." << p.name << " default " << text;
            if (p.type == vfx::ParamType::enum_value) {
                EXPECT_EQ(jp["allowed"].get<std::vector<std::string>>(), p.allowed);
            } else if (p.type != vfx::ParamType::bool_value) {
                EXPECT_EQ(jp["min"].get<double>(), p.min);
                EXPECT_EQ(jp["max"].get<double>(), p.max);
            }
        }
    }
    Outcome text = vfx_run("filters");
    ASSERT_EQ(text.status, 0);
    for (const auto* f : filters)
        EXPECT_NE(text.output.find(f->name + ":"), std::string::npos) << f->name;
}

TEST(Cli, HeadlessPlayOfTheSampleWritesAReport) {
    const std::string report = scratch_dir() + "/report.json";
    Outcome r = vfx_run("play --headless --validation --frames 24 --report '" + report + "'");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("24 frames"), std::string::npos) << r.output;
    auto j = read_json(report);
    EXPECT_EQ(j["command"], "play");
    EXPECT_EQ(j["frames"], 24);
    EXPECT_EQ(j["validation_errors"], 0);
    EXPECT_EQ(j["chain"], "median=radius=1,unsharp=sigma=1:amount=0.5,histogram");
    ASSERT_TRUE(j.contains("histogram"));
    EXPECT_TRUE(j["interop"]["tier"].is_string());
    EXPECT_FALSE(j["interop"]["reason"].get<std::string>().empty());
    EXPECT_EQ(j["input"]["width"], 1280);
    EXPECT_EQ(j["input"]["codec"], "h264");
    const auto& frames = j["timing"]["frames"];
    ASSERT_EQ(frames.size(), 24u);
    for (const char* stage :
         {"decode", "upload", "convert", "median", "unsharp", "histogram", "handover", "present"})
        EXPECT_TRUE(frames[5]["stages_ms"].contains(stage)) << stage << " in " << frames[5].dump();
    const auto& summary = j["timing"]["summary_ms"];
    for (const char* stage : {"frame", "convert", "unsharp"}) {
        ASSERT_TRUE(summary.contains(stage)) << stage;
        for (const char* k : {"mean", "p50", "p95", "p99"})
            EXPECT_GE(summary[stage][k].get<double>(), 0.0);
        EXPECT_GT(summary[stage]["mean"].get<double>(), 0.0) << stage;
    }
    EXPECT_LE(summary["frame"]["p50"].get<double>(), summary["frame"]["p99"].get<double>());
}

TEST(Cli, HeadlessScreenshotIsTheProcessedFrame) {
    // A 1280x720 video in the 1280x720 offscreen target is drawn 1:1, so what the renderer shows
    // must be what `process` computes for the same frame.
    const std::string shot = scratch_dir() + "/shot.png", processed = scratch_dir() + "/p.png";
    const std::string chain = "--chain gaussian=sigma=2";
    Outcome a = vfx_run("play --headless --validation --frames 5 " + chain + " --screenshot '" +
                        shot + "'");
    ASSERT_EQ(a.status, 0) << a.output;
    Outcome b = vfx_run("process --input '" + kSample + "' --frames 5 " + chain + " --output '" +
                        scratch_dir() + "/p_%04d.png'");
    ASSERT_EQ(b.status, 0) << b.output;
    auto s = first_frame(shot);
    auto p = first_frame(scratch_dir() + "/p_0005.png");
    EXPECT_LT(mean_abs_diff_rgba8(s, p), 0.5);
    (void)processed;
}

TEST(Cli, ProcessWritesEveryKindOfOutput) {
    const std::string dir = scratch_dir();
    Outcome mp4 =
        vfx_run("process --input '" + kSample +
                "' --frames 12 --chain 'gaussian=sigma=1,unsharp=sigma=1:amount=1' --output '" +
                dir + "/out.mp4' --report '" + dir + "/r.json'");
    ASSERT_EQ(mp4.status, 0) << mp4.output;
    EXPECT_EQ(frames_in(dir + "/out.mp4"), 12);
    auto j = read_json(dir + "/r.json");
    EXPECT_EQ(j["frames"], 12);
    EXPECT_EQ(j["chain"], "gaussian=sigma=1,unsharp=sigma=1:amount=1");

    Outcome mkv = vfx_run("process --input '" + kSample +
                          "' --frames 3 --codec libx265 --encoder-opt preset=ultrafast --output '" +
                          dir + "/out.mkv'");
    EXPECT_EQ(mkv.status, 0) << mkv.output;
    EXPECT_TRUE(fs::exists(dir + "/out.mkv"));

    Outcome null = vfx_run("process --input '" + kSample + "' --frames 10 --output null");
    EXPECT_EQ(null.status, 0) << null.output;
    EXPECT_NE(null.output.find("10 frames"), std::string::npos);

    Outcome still =
        vfx_run("process --input '" + kSample + "' --frames 1 --output '" + dir + "/still.png'");
    ASSERT_EQ(still.status, 0) << still.output;
    // A PNG still is a valid input too, and passes through an empty chain unchanged.
    Outcome again =
        vfx_run("process --input '" + dir + "/still.png' --output '" + dir + "/again.png'");
    ASSERT_EQ(again.status, 0) << again.output;
    EXPECT_EQ(
        mean_abs_diff_rgba8(first_frame(dir + "/still.png"), first_frame(dir + "/again.png"), 4),
        0.0);
}

// A phone clip (a display matrix of 90 degrees): `process` writes it as a viewer sees it, as
// ffmpeg does by default, in a still and in a video (which then carries no rotation).
TEST(Cli, ProcessTurnsARotatedStreamUpright) {
    VFX_REQUIRE_FFMPEG_PROGRAM();
    VFX_REQUIRE_FFPROBE_CLI();
    const std::string dir = scratch_dir();
    const std::string base =
        make_media("cli_rotate_base.mp4",
                   "-f lavfi -i testsrc2=size=160x96:rate=25 -frames:v 3 -c:v libx264 -pix_fmt "
                   "yuv420p");
    ASSERT_FALSE(base.empty());
    const std::string rotated =
        make_media("cli_rotate90.mp4", "-i '" + base + "' -c copy -metadata:s:v rotate=90");
    ASSERT_FALSE(rotated.empty());
    ASSERT_EQ(
        run_command("ffmpeg -v error -y -i '" + rotated + "' -frames:v 1 '" + dir + "/ffmpeg.png'"),
        0);
    Outcome r =
        vfx_run("process --input '" + rotated + "' --frames 1 --output '" + dir + "/vfx.png'");
    ASSERT_EQ(r.status, 0) << r.output;
    const vfx::HostFrame ours = first_frame(dir + "/vfx.png");
    const vfx::HostFrame theirs = first_frame(dir + "/ffmpeg.png");
    EXPECT_EQ(ours.width, 96);
    EXPECT_EQ(ours.height, 160);
    EXPECT_LT(mean_abs_diff_rgba8(ours, theirs), 2.0);

    r = vfx_run("process --input '" + rotated + "' --output '" + dir + "/vfx.mp4'");
    ASSERT_EQ(r.status, 0) << r.output;
    const std::string probed =
        ffprobe_video(dir + "/vfx.mp4", "stream=width,height:stream_side_data=rotation");
    EXPECT_EQ(probed.substr(0, probed.find('\n')), "96,160") << probed;
    EXPECT_EQ(probed.find("90"), std::string::npos) << probed;
}

// A grey video (a monochrome camera, an ffv1 archive) runs colour filters: converted to colour
// (R = G = B) when the chain's first filter reads colour; as a mosaic when it reads mosaics.
TEST(Cli, GreyVideoRunsColourFiltersAndDemosaicAlike) {
    VFX_REQUIRE_FFMPEG_CLI();
    const std::string dir = scratch_dir();
    const std::string grey =
        make_media("cli_grey.mkv",
                   "-f lavfi -i testsrc2=size=64x48:rate=10 -frames:v 2 -c:v ffv1 -pix_fmt gray");
    ASSERT_FALSE(grey.empty());
    Outcome r = vfx_run("process --input '" + grey + "' --frames 1 --chain sepia --output '" + dir +
                        "/sepia.png'");
    ASSERT_EQ(r.status, 0) << r.output;
    const vfx::HostFrame sepia = first_frame(dir + "/sepia.png");
    int tinted = 0;
    for (int y = 0; y < sepia.height; ++y)
        for (int x = 0; x < sepia.width; ++x) {
            const uint8_t* p = sepia.plane(0).data + y * sepia.plane(0).stride + x * 4;
            tinted += p[0] > p[2] + 10;  // sepia: red well above blue on mid greys
        }
    EXPECT_GT(tinted, sepia.width * sepia.height / 4);
    r = vfx_run("process --input '" + grey +
                "' --frames 1 --chain demosaic=pattern=rggb "
                "--output '" +
                dir + "/raw.png'");
    EXPECT_EQ(r.status, 0) << r.output;
}

// The working format keeps the source's primaries and transfer curve, so a video output is
// tagged with them (an HDR source is not re-tagged as SDR BT.709).
TEST(Cli, VideoOutputKeepsThePrimariesAndTransferTags) {
    VFX_REQUIRE_FFMPEG_CLI();
    VFX_REQUIRE_FFPROBE_CLI();
    const std::string dir = scratch_dir();
    const std::string hdr = make_media(
        "cli_hdr_tags.mp4",
        "-f lavfi -i testsrc2=size=64x48:rate=10 -frames:v 2 -c:v libx264 -pix_fmt yuv420p "
        "-colorspace bt2020nc -color_primaries bt2020 -color_trc smpte2084");
    ASSERT_FALSE(hdr.empty());
    Outcome r = vfx_run("process --input '" + hdr + "' --output '" + dir + "/out.mp4'");
    ASSERT_EQ(r.status, 0) << r.output;
    const std::string probed =
        ffprobe_video(dir + "/out.mp4", "stream=color_primaries,color_transfer");
    EXPECT_EQ(probed.substr(0, probed.find('\n')), "smpte2084,bt2020") << probed;
}

// A raw sensor frame saved as a 16-bit grey PNG (big-endian, as PNG stores it) enters the chain
// as a mosaic, as an 8-bit one does, and demosaics to 16-bit colour: a flat RGGB field comes out
// as its one colour at every pixel, borders included.
TEST(Cli, SixteenBitGreyPngIsAMosaic) {
    VFX_REQUIRE_FFMPEG_CLI();
    const std::string dir = scratch_dir();
    const std::string in = make_media(
        "cli_rggb16.png",
        "-f lavfi -i \"nullsrc=s=34x22,format=gray16be,geq=lum='if(mod(Y\\,2)\\,if(mod(X\\,2)"
        "\\,10000\\,20000)\\,if(mod(X\\,2)\\,20000\\,40000))'\" -frames:v 1 -pix_fmt gray16be");
    ASSERT_FALSE(in.empty());
    for (const char* method : {"mhc", "bilinear"}) {
        SCOPED_TRACE(method);
        const std::string out = dir + "/rgb16_" + method + ".png";
        Outcome r = vfx_run("process --input '" + in + "' --chain demosaic=method=" + method +
                            " --output '" + out + "'");
        ASSERT_EQ(r.status, 0) << r.output;
        const vfx::HostFrame f = first_frame(out);
        ASSERT_EQ(f.width, 34);
        ASSERT_EQ(f.height, 22);
        ASSERT_EQ(f.format.layout, vfx::PlaneLayout::rgba);
        ASSERT_EQ(f.format.bits, 16);
        for (int y = 0; y < f.height; ++y)
            for (int x = 0; x < f.width; ++x) {
                uint16_t px[4];
                std::memcpy(px, f.plane(0).data + y * f.plane(0).stride + 8 * x, 8);
                ASSERT_EQ(px[0], 40000) << x << "," << y;
                ASSERT_EQ(px[1], 20000) << x << "," << y;
                ASSERT_EQ(px[2], 10000) << x << "," << y;
            }
    }
}

// Every filter of the library in one chain, as the program runs it.
const std::vector<std::string> kEveryFilter = {
    "mosaic=pattern=grbg,blacklevel=black=3:white=250,wb=r=1.2:g=1:b=1.1,demosaic=method=mhc:"
    "pattern=grbg",
    "ccm=matrix=1.2|-0.1|-0.1|-0.1|1.2|-0.1|-0.1|-0.1|1.2",
    "gamma=curve=power:value=1.1",
    "color=brightness=0.02:contrast=1.1:saturation=1.2:hue=10",
    "median=radius=1",
    "bilateral=sigma_s=1:sigma_r=0.1",
    "box=radius=1",
    "gaussian=sigma=1",
    "sharpen=radius=1:amount=0.5",
    "unsharp=sigma=1:amount=0.5",
    "oilpaint=radius=2:levels=8",
    "sepia",
    "gamma=curve=srgb",
    "sobel",
    "grayscale",
    "histogram",
};

std::string join(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& x : v)
        out += (out.empty() ? "" : ",") + x;
    return out;
}

TEST(Cli, ChainOfEveryFilterOnAStillEqualsItsStagesOneByOne) {
    const std::string dir = scratch_dir();
    const std::string still = dir + "/still.png";
    ASSERT_EQ(
        vfx_run("process --input '" + kSample + "' --frames 1 --output '" + still + "'").status, 0);
    Outcome all = vfx_run("process --input '" + still + "' --chain '" + join(kEveryFilter) +
                          "' --output '" + dir + "/all.png' --report '" + dir + "/all.json'");
    ASSERT_EQ(all.status, 0) << all.output;
    // The same stages as separate runs, each reading the previous one's PNG (8-bit frames are
    // stored losslessly, and the chain quantises to the working format between stages too).
    std::string prev = still;
    for (size_t i = 0; i < kEveryFilter.size(); ++i) {
        const std::string next = dir + "/stage" + std::to_string(i) + ".png";
        Outcome r = vfx_run("process --input '" + prev + "' --chain '" + kEveryFilter[i] +
                            "' --output '" + next + "'");
        ASSERT_EQ(r.status, 0) << kEveryFilter[i] << "\n" << r.output;
        prev = next;
    }
    auto a = first_frame(dir + "/all.png");
    auto b = first_frame(prev);
    EXPECT_EQ(mean_abs_diff_rgba8(a, b, 4), 0.0);
    // Not a blank or unchanged picture: sobel leaves edges on a dark ground.
    double lit = 0;
    for (int y = 0; y < a.height; ++y)
        for (int x = 0; x < a.width; ++x)
            lit += a.plane(0).data[y * a.plane(0).stride + x * 4] > 64 ? 1 : 0;
    const double share = lit / (static_cast<double>(a.width) * a.height);
    EXPECT_GT(share, 0.005);
    EXPECT_LT(share, 0.5);
    // The histogram of the output reached the report and counts every pixel.
    auto j = read_json(dir + "/all.json");
    ASSERT_TRUE(j.contains("histogram")) << j.dump().substr(0, 400);
    double sum = 0;
    for (const auto& v : j["histogram"]["luma"])
        sum += v.get<double>();
    EXPECT_EQ(sum, 1280.0 * 720.0);
}

TEST(Cli, BlendMixesTheChainInputWithTheCurrentFrame) {
    const std::string dir = scratch_dir();
    const std::string still = dir + "/still.png";
    ASSERT_EQ(
        vfx_run("process --input '" + kSample + "' --frames 1 --output '" + still + "'").status, 0);
    ASSERT_EQ(vfx_run("process --input '" + still + "' --chain gaussian=sigma=3 --output '" + dir +
                      "/blur.png'")
                  .status,
              0);
    Outcome r = vfx_run("process --input '" + still +
                        "' --chain 'gaussian=sigma=3,blend=mode=normal:opacity=0.5' --output '" +
                        dir + "/mix.png'");
    ASSERT_EQ(r.status, 0) << r.output;
    auto in = first_frame(still), blur = first_frame(dir + "/blur.png"),
         mix = first_frame(dir + "/mix.png");
    int worst = 0;
    for (int y = 0; y < in.height; ++y)
        for (int x = 0; x < in.width * 4; ++x) {
            if (x % 4 == 3) continue;
            const double want = 0.5 * in.plane(0).data[y * in.plane(0).stride + x] +
                                0.5 * blur.plane(0).data[y * blur.plane(0).stride + x];
            worst = std::max(
                worst, static_cast<int>(
                           std::abs(mix.plane(0).data[y * mix.plane(0).stride + x] - want) + 0.5));
        }
    EXPECT_LE(worst, 1);
}

TEST(Cli, ChainOfEveryFilterOnAClip) {
    const std::string dir = scratch_dir();
    const std::string chain = join(kEveryFilter) + ",blend=mode=screen:opacity=0.5";
    Outcome r = vfx_run("process --input '" + kSample + "' --frames 6 --chain '" + chain +
                        "' --output '" + dir + "/every.mkv' --report '" + dir + "/r.json'");
    ASSERT_EQ(r.status, 0) << r.output;
    vfx::SourceOptions so;
    so.input = dir + "/every.mkv";
    auto src = vfx::Source::open(so);
    int n = 0;
    while (auto f = src->next()) {
        EXPECT_EQ(f->width, 1280);
        EXPECT_EQ(f->height, 720);
        ++n;
    }
    EXPECT_EQ(n, 6);
    auto j = read_json(dir + "/r.json");
    EXPECT_EQ(j["frames"], 6);
    // Every stage of the chain was timed on every frame; runs of adjacent point-wise filters
    // are one fused stage named "a+b+c".
    const auto& stages = j["timing"]["frames"][3]["stages_ms"];
    std::set<std::string> timed;
    for (const auto& [stage, ms] : stages.items())
        for (size_t start = 0, end = 0; start <= stage.size(); start = end + 1) {
            end = std::min(stage.find('+', start), stage.size());
            timed.insert(stage.substr(start, end - start));
        }
    for (const char* name : {"mosaic", "demosaic", "ccm", "median", "bilateral", "box", "oilpaint",
                             "sobel", "histogram", "blend", "gamma", "gamma#2"})
        EXPECT_TRUE(timed.contains(name)) << name << " in " << stages.dump();
    EXPECT_TRUE(stages.contains("ccm+gamma+color")) << stages.dump();
    EXPECT_EQ(j["chain"].get<std::string>().find("mosaic=pattern=grbg"), 0u);
}

TEST(Cli, BadInputsGiveOneLineAndNoOutput) {
    const std::string dir = scratch_dir();
    const std::string out = dir + "/out.png";
    std::ofstream(dir + "/notes.txt") << "not a video\n";

    expect_one_line_error(
        vfx_run("process --input '" + dir + "/missing.mp4' --output '" + out + "'"), "missing.mp4");
    expect_one_line_error(vfx_run("process --input '" + dir + "/notes.txt' --output '" + out + "'"),
                          "notes.txt");
    expect_one_line_error(vfx_run("play --headless --bogus-option"), "--bogus-option");
    expect_one_line_error(
        vfx_run("process --input '" + kSample + "' --output /nonexistent/dir/out.png"),
        "/nonexistent/dir/out.png");
    expect_one_line_error(
        vfx_run("process --input '" + kSample + "' --output '" + out + "' --chain 'blurr=sigma=1'"),
        "blurr");
    expect_one_line_error(vfx_run("process --input '" + kSample + "' --output '" + out +
                                  "' --chain 'gaussian=size=3'"),
                          "size");
    expect_one_line_error(vfx_run("process --input '" + kSample + "' --output '" + out +
                                  "' --chain 'gaussian=sigma=1000'"),
                          "sigma");
    expect_one_line_error(vfx_run("process --input '" + kSample + "' --output '" + out +
                                  "' --chain 'gaussian=sigma'"),
                          "=");
    expect_one_line_error(vfx_run("play --headless '" + dir + "/missing.mkv'"), "missing.mkv");
    // FFmpeg's reason is in the line, not only its error code ("Invalid argument").
    expect_one_line_error(vfx_run("process --input '" + kSample +
                                  "' --input-format rawvideo --input-opt video_size=100000x100000 "
                                  "--output '" +
                                  out + "'"),
                          "100000x100000 is invalid");
    expect_one_line_error(vfx_run("play --headless --interop sideways"), "sideways");
    expect_one_line_error(
        vfx_run("process --input '" + kSample + "' --output '" + out + "' --log-level loud"),
        "loud");
    // Several frames into a one-frame output: an error, and the file is not left behind.
    expect_one_line_error(
        vfx_run("process --input '" + kSample + "' --frames 3 --output '" + out + "'"), "%04d");
    expect_one_line_error(vfx_run("process --input '" + kSample + "' --output '" + dir + "/x.avi'"),
                          "x.avi");
    expect_one_line_error(
        vfx_run("process --input '" + kSample + "' --output '" + dir + "/x.mp4' --codec nonesuch"),
        "nonesuch");
    // Nothing was written by any of the failed runs.
    for (const auto& e : fs::directory_iterator(dir))
        EXPECT_EQ(e.path().filename(), "notes.txt") << "left behind: " << e.path();
}

// A PNG sequence is all there or not at all: a folder in the way of the third frame stops the
// run at that frame, with one line, and none of the frames before it is left.
TEST(Cli, PngSequenceThatCannotBeFinishedLeavesNoFrames) {
    const std::string dir = scratch_dir();
    fs::create_directories(dir + "/seq_0003.png/inside");
    expect_one_line_error(
        vfx_run("process --input '" + kSample + "' --frames 5 --output '" + dir + "/seq_%04d.png'"),
        "is in the way of frame 3");
    std::vector<std::string> left;
    for (const auto& e : fs::directory_iterator(dir))
        left.push_back(e.path().filename().string());
    EXPECT_EQ(left, std::vector<std::string>{"seq_0003.png"});
    // A sequence over its own input, whichever of them is numbered: refused before the run, the
    // input untouched (also given as file:NAME, as FFmpeg takes it).
    const std::string in = dir + "/in_0001.png";
    ASSERT_EQ(vfx_run("process --input '" + kSample + "' --frames 1 --output '" + in + "'").status,
              0);
    const auto before = fs::file_size(in);
    const std::string seq = dir + "/in_%04d.png";
    for (const auto& [input, output] : {std::pair{in, seq}, std::pair{"file:" + in, seq},
                                        std::pair{seq, seq}, std::pair{seq, in}}) {
        SCOPED_TRACE(input + " -> " + output);
        expect_one_line_error(
            vfx_run("process --input '" + input + "' --chain sepia --output '" + output + "'"),
            "name the same file");
    }
    // The same, spelled relative to the folder the command runs in.
    Outcome rel;
    rel.status = run_command("cd '" + dir + "' && '" + vfx::test::vfx_binary() +
                                 "' process --input 'in_%04d.png' --output './in_0001.png'",
                             &rel.output);
    expect_one_line_error(rel, "name the same file");
    EXPECT_EQ(fs::file_size(in), before);
}

// Paths that would destroy a file the user has, or numbers the program cannot honour, are
// refused before any work, with one line; nothing is written and the input is untouched.
TEST(Cli, ClashingPathsAndBadNumbersAreRefusedBeforeTheRun) {
    const std::string dir = scratch_dir();
    const std::string in = dir + "/in.png";
    ASSERT_EQ(vfx_run("process --input '" + kSample + "' --frames 1 --output '" + in + "'").status,
              0);
    const auto size = fs::file_size(in);
    const std::string run = "process --input '" + in + "' ";
    expect_one_line_error(vfx_run(run + "--output '" + in + "'"), "the same file");
    expect_one_line_error(vfx_run(run + "--output null --report '" + dir + "/./in.png'"),
                          "the same file");
    expect_one_line_error(
        vfx_run(run + "--output '" + dir + "/o.png' --report '" + dir + "/o.png'"),
        "--output and --report");
    expect_one_line_error(
        vfx_run(run + "--output '" + dir + "/o.png' --save-preset '" + dir + "/o.png'"),
        "--output and --save-preset");
    expect_one_line_error(vfx_run(run + "--output null --frames 0"), "at least 1, not '0'");
    expect_one_line_error(vfx_run(run + "--output null --frames 2.5"), "whole number");
    expect_one_line_error(vfx_run("play --headless --decode-threads 100000 '" + in + "'"),
                          "from 0 to 64");
    expect_one_line_error(vfx_run("play --headless --speed nan '" + in + "'"), "'nan'");
    expect_one_line_error(vfx_run("play --headless --screenshot '" + dir + "/s.jpg' '" + in + "'"),
                          "NAME.png");
    expect_one_line_error(vfx_run("play --headless --headless-size 16384x16384 --screenshot '" +
                                  dir + "/s.png' '" + in + "'"),
                          "16384x16384 is larger than FFmpeg writes a PNG image");
    expect_one_line_error(vfx_run("bench --size 4294967297x2 --filters invert"), "4294967297x2");
    EXPECT_EQ(fs::file_size(in), size);
    for (const auto& e : fs::directory_iterator(dir))
        EXPECT_EQ(e.path().filename(), "in.png") << "left behind: " << e.path();
    // A name as long as the file system allows is fine: the temporary name is kept short.
    const std::string long_name = dir + "/" + std::string(250, 'r') + ".json";
    Outcome ok = vfx_run(run + "--output null --report '" + long_name + "'");
    EXPECT_EQ(ok.status, 0) << ok.output;
    EXPECT_TRUE(fs::exists(long_name));
}

// The output, the report and a saved preset appear together or not at all: a report that cannot
// be written (a full device) fails the run with one line, and the output that was finished
// before it is not published (an existing file of its name stays as it was). What a command
// prints must reach its reader too: standard output on a full device is an error, not status 0.
TEST(Cli, AFileThatCannotBeWrittenPublishesNone) {
    if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here to fail the writes";
    const std::string dir = scratch_dir();
    std::ofstream(dir + "/o.mp4") << "old";
    const std::string run = "process --input '" + kSample + "' --frames 2 --chain sepia ";
    expect_one_line_error(vfx_run(run + "--output '" + dir + "/o.mp4' --report /dev/full"),
                          "report '/dev/full': cannot write: No space left on device");
    expect_one_line_error(
        vfx_run(run + "--output '" + dir + "/f_%02d.png' --save-preset /dev/full"),
        "preset '/dev/full': cannot write: No space left on device");
    std::ifstream old(dir + "/o.mp4");
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(old), {}), "old");
    for (const auto& e : fs::directory_iterator(dir))
        EXPECT_EQ(e.path().filename(), "o.mp4") << "left behind: " << e.path();
    Outcome full;
    full.status = run_command("( '" + vfx::test::vfx_binary() + "' filters --json > /dev/full )",
                              &full.output);
    expect_one_line_error(full, "cannot write to standard output");
}

// A special file is written in place: --report /dev/null leaves /dev/null the device it was. No
// output may land on an input (a decode-only bench's JSON, a file of a concat: input), and frame
// names longer than the file system takes are refused before the run, with a short line.
TEST(Cli, SpecialFilesWrittenInPlaceAndInputsKept) {
    const std::string dir = scratch_dir();
    const std::string run = "process --input '" + kSample + "' --frames 2 --chain sepia ";
    const Outcome ok = vfx_run(run + "--output null --report /dev/null --save-preset /dev/null");
    EXPECT_EQ(ok.status, 0) << ok.output;
    EXPECT_TRUE(fs::is_character_file("/dev/null"));
    fs::copy_file(kSample, dir + "/v.mp4");
    const auto size = fs::file_size(dir + "/v.mp4");
    expect_one_line_error(vfx_run("bench --decode '" + dir + "/v.mp4' --json '" + dir + "/v.mp4'"),
                          "the input and --json name the same file");
    expect_one_line_error(vfx_run("process --input 'concat:" + dir + "/v.mp4|" + kSample +
                                  "' --output '" + dir + "/v.mp4'"),
                          "the input and --output name the same file");
    EXPECT_EQ(fs::file_size(dir + "/v.mp4"), size);
    expect_one_line_error(vfx_run(run + "--output '" + dir + "/f_%0999999d.png'"),
                          "longer than the file system allows");
    // Reading a file twice is no clash (of an mp4, FFmpeg's byte-wise concat plays the first).
    const Outcome twice = vfx_run("process --input 'concat:" + dir + "/v.mp4|" + dir +
                                  "/v.mp4' --output null --report '" + dir + "/twice.json'");
    ASSERT_EQ(twice.status, 0) << twice.output;
    EXPECT_EQ(read_json(dir + "/twice.json")["frames"], 200);
    // A glob input (image2's pattern_type=glob) names every file it matches.
    const Outcome pngs = vfx_run(run + "--output '" + dir + "/in_%03d.png'");
    ASSERT_EQ(pngs.status, 0) << pngs.output;
    const auto before = fs::last_write_time(dir + "/in_002.png");
    expect_one_line_error(vfx_run("process --input-format image2 --input-opt pattern_type=glob "
                                  "--input '" +
                                  dir + "/in_*.png' --output '" + dir + "/in_002.png' --frames 1"),
                          "the input and --output name the same file");
    EXPECT_EQ(fs::last_write_time(dir + "/in_002.png"), before);
}

// libx265's own log follows --log-level: quiet at the default, its set-up at debug.
TEST(Cli, X265LogFollowsTheLogLevel) {
    const std::string dir = scratch_dir();
    const std::string run =
        "process --input '" + kSample +
        "' --frames 2 --codec libx265 --encoder-opt preset=ultrafast --output '" + dir + "/h.mkv'";
    Outcome r = vfx_run(run);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(r.output.find("x265 [info]"), std::string::npos) << r.output;
    r = vfx_run("--log-level debug " + run);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("x265 [info]"), std::string::npos) << r.output;
    // x265-params of the user's own keep vfx's log level unless they set one.
    r = vfx_run(run + " --encoder-opt x265-params=keyint=10");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(r.output.find("x265 [info]"), std::string::npos) << r.output;
    r = vfx_run(run + " --encoder-opt x265-params=log-level=info");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("x265 [info]"), std::string::npos) << r.output;
}

// A FIFO output is written in place (a reader gets the stream, the FIFO stays one); an mp4 there,
// which must go back to its start, is one line that says why.
TEST(Cli, FifoOutputStreamsMkvAndExplainsMp4) {
    const std::string dir = scratch_dir();
    for (const char* name : {"pipe.mkv", "pipe.mp4"}) {
        SCOPED_TRACE(name);
        const std::string fifo = dir + "/" + name;
        ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
        Outcome r;
        // The reader ends when vfx closes the FIFO; the shell waits for both.
        r.status =
            run_command("( cat '" + fifo + "' > '" + dir + "/got' & reader=$!; timeout 120 '" +
                            vfx::test::vfx_binary() + "' process --input '" + kSample +
                            "' --frames 5 --output '" + fifo + "'; rc=$?; wait $reader; exit $rc )",
                        &r.output);
        if (std::string(name) == "pipe.mkv") {
            ASSERT_EQ(r.status, 0) << r.output;
            EXPECT_EQ(frames_in(dir + "/got"), 5);
        } else {
            expect_one_line_error(r, "mp4 and mov need a seekable file");
        }
        EXPECT_TRUE(fs::is_fifo(fifo));
        fs::remove(dir + "/got");
    }
}

// Options that do not apply to what was asked are named in a warning, not silently dropped.
TEST(Cli, OptionsThatDoNotApplyAreNamed) {
    const std::string dir = scratch_dir();
    Outcome r = vfx_run("process --input '" + kSample + "' --frames 1 --codec libx265 --output '" +
                        dir + "/o.png'");
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("--codec and --encoder-opt apply to video outputs"), std::string::npos)
        << r.output;
    r = vfx_run("bench --decode '" + kSample + "' --size 64x64");
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("--size, --filters, --retune and --cache-resident are ignored"),
              std::string::npos)
        << r.output;
    // An option of another command, or no command at all: said as such.
    expect_one_line_error(
        vfx_run("process --decode-threads 1 --input '" + kSample + "' --output null"),
        "process does not take --decode-threads");
    expect_one_line_error(vfx_run("proces --input x"), "unknown command 'proces'");
    // A one-value option given twice: which, not CLI11's "At Most 1 required but received 2".
    expect_one_line_error(vfx_run("process --input a.mp4 --input b.mp4 --output null"),
                          "process: --input given 2 times; it takes one value");
    // A word nothing takes, and an option without its value, in the command line's words.
    expect_one_line_error(vfx_run("process --input a.mp4 extra --output null"),
                          "process: unexpected 'extra'");
    expect_one_line_error(vfx_run("process --input a.mp4 --output null --frames"),
                          "process: --frames needs a value");
    // Something required left out: what, and for which command.
    expect_one_line_error(vfx_run("process --output null"),
                          "process: an input is required (a file, lavfi:GRAPH or v4l2:");
    expect_one_line_error(vfx_run("process a.mp4"),
                          "process: --output is required (see vfx process --help)");
    expect_one_line_error(vfx_run(""),
                          "a command is required (commands: play, process, probe, filters, bench;");
    // An option before the command is vfx's own, not the command's.
    expect_one_line_error(vfx_run("--frames 3 probe"),
                          "unknown option --frames (a command's options come after its name");
    // "-": standard input, as with ffmpeg.
    Outcome piped;
    piped.status = run_command("cat '" + kSample + "' | '" + vfx::test::vfx_binary() +
                                   "' process --input - --frames 3 --output null",
                               &piped.output);
    EXPECT_EQ(piped.status, 0) << piped.output;
    EXPECT_NE(piped.output.find("3 frames in"), std::string::npos) << piped.output;
}

// A clip with sound written to a video file: the sound is not copied, and a warning says so
// (none for frames that are pictures or discarded).
TEST(Cli, AudioLeftOutIsNamed) {
    VFX_REQUIRE_FFMPEG_CLI();
    const std::string dir = scratch_dir();
    const std::string av = make_media("cli_av.mp4",
                                      "-f lavfi -i testsrc2=size=160x120:rate=25 -f lavfi -i "
                                      "sine=frequency=440 -t 1 -c:v libx264 -c:a aac -shortest");
    ASSERT_FALSE(av.empty());
    const std::string warning = "has an audio stream; vfx writes the video only";
    Outcome r = vfx_run("process --input '" + av + "' --output '" + dir + "/o.mkv'");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find(warning), std::string::npos) << r.output;
    r = vfx_run("process --input '" + av + "' --output null");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(r.output.find(warning), std::string::npos) << r.output;
}

// A live source plays at its own pace and has no end to loop from: --speed and --loop are named
// as ignored, not dropped silently.
TEST(Cli, LiveSourceNamesTheOptionsItIgnores) {
    VFX_REQUIRE_LAVFI();
    const Outcome r = vfx_run(
        "play --headless --frames 3 --input lavfi:testsrc2=size=64x48:rate=25 --loop --speed 2");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("is live: --speed and --loop are ignored"), std::string::npos)
        << r.output;
}

// Ctrl-C, SIGTERM, a closed terminal or `timeout -s ALRM` / a watchdog's SIGUSR1 in the middle
// of a run: one line, the signal's exit status, and not one temporary or partial file left in
// the output's folder.
TEST(Cli, InterruptedRunLeavesNoFileBehind) {
    const std::string dir = scratch_dir();
    for (const auto& [sig, number] :
         {std::pair{"INT", SIGINT}, std::pair{"TERM", SIGTERM}, std::pair{"HUP", SIGHUP},
          std::pair{"ALRM", SIGALRM}, std::pair{"USR1", SIGUSR1}}) {
        SCOPED_TRACE(sig);
        fs::remove_all(dir + "/out");
        fs::create_directories(dir + "/out");
        const std::string script = dir + "/interrupt.sh";
        // set -m: a job control shell, so the background job does not start with SIGINT
        // ignored (which vfx, like any program, leaves ignored).
        std::ofstream(script) << "set -m\nvfx='" << vfx::test::vfx_binary() << "'; out='" << dir
                              << "/out'\n"
                              << "\"$vfx\" process --input '" << kSample
                              << "' --output \"$out/f_%04d.png\" --report \"$out/r.json\" "
                                 "> \"$out/../log.txt\" 2>&1 &\n"
                              << R"SH(pid=$!
for i in $(seq 1 600); do
  [ "$(ls -A "$out" | wc -l)" -ge 3 ] && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.05
done
echo "files-before=$(ls -A "$out" | wc -l)"
kill -)SH" << sig << R"SH( $pid
wait $pid
echo "exit=$?"
)SH";
        std::string out;
        run_command("bash '" + script + "'", &out);
        std::string log;
        {
            std::ifstream f(dir + "/log.txt");
            log.assign(std::istreambuf_iterator<char>(f), {});
        }
        // The run was caught with temporaries on disk, then ended by its signal.
        EXPECT_NE(out.find("files-before="), std::string::npos) << out;
        EXPECT_EQ(out.find("files-before=0"), std::string::npos) << out;
        EXPECT_NE(out.find("exit=" + std::to_string(128 + number)), std::string::npos)
            << out << log;
        EXPECT_NE(log.find("vfx: interrupted"), std::string::npos) << log;
        for (const auto& e : fs::directory_iterator(dir + "/out"))
            ADD_FAILURE() << "left behind: " << e.path();
    }
    // A signal ignored when vfx starts (nohup's SIGHUP) stays ignored: the run completes.
    fs::remove_all(dir + "/out");
    fs::create_directories(dir + "/out");
    const std::string script = dir + "/nohup.sh";
    std::ofstream(script) << "set -m\ntrap '' HUP\n\"" << vfx::test::vfx_binary()
                          << "\" process --input '" << kSample << "' --frames 5 --output '" << dir
                          << "/out/f_%04d.png' > '" << dir << "/nohup.log' 2>&1 &\n"
                          << "pid=$!\nsleep 0.3\nkill -HUP $pid\nwait $pid\necho \"exit=$?\"\n";
    std::string out;
    run_command("bash '" + script + "'", &out);
    {
        std::ifstream f(dir + "/nohup.log");
        out.append(std::istreambuf_iterator<char>(f), {});  // vfx's own lines, should it fail
    }
    EXPECT_NE(out.find("exit=0"), std::string::npos) << out;
    EXPECT_TRUE(fs::exists(dir + "/out/f_0005.png")) << out;
}

// An output that outgrows `ulimit -f`: the write fails with one line (not the process killed by
// SIGXFSZ mid-file), and the temporary goes. (With PoCL the LLVM it loads catches SIGXFSZ once
// and then puts back vfx's disposition; under NVIDIA's OpenCL vfx's alone decides.)
TEST(Cli, FileOverTheSizeLimitIsAnErrorAndLeavesNothing) {
    const std::string dir = scratch_dir();
    const std::string run = "process --input '" + kSample + "' --chain sepia --encoder-opt crf=0 ";
    // The same kernels built once without the limit: PoCL writes its compiled kernels to its
    // cache, and its compiler exits on a file over the limit.
    const Outcome warm = vfx_run(run + "--frames 2 --output '" + dir + "/warm.mp4'");
    ASSERT_EQ(warm.status, 0) << warm.output;
    fs::remove(dir + "/warm.mp4");
    Outcome r;
    // 200 lossless 1280x720 frames: tens of megabytes against a limit of 8 MB.
    r.status = run_command("( ulimit -f 8000; '" + vfx::test::vfx_binary() + "' " + run +
                               "--output '" + dir + "/o.mp4' )",
                           &r.output);
    expect_one_line_error(r, "cannot write '" + dir + "/o.mp4': File too large");
    for (const auto& e : fs::directory_iterator(dir))
        ADD_FAILURE() << "left behind: " << e.path();
}

TEST(Cli, StreamWithNoDecodableFrameIsAnErrorAndCorruptPacketsAreSkipped) {
    VFX_REQUIRE_FFMPEG_CLI();
    const std::string dir = scratch_dir();
    {  // bytes that are H.264 to the demuxer but decode to nothing
        std::ofstream f(dir + "/garbage.h264", std::ios::binary);
        for (int i = 0; i < 20000; ++i)
            f.put(static_cast<char>((i * 7919) % 251));
    }
    expect_one_line_error(
        vfx_run("process --input-format h264 --input '" + dir + "/garbage.h264' --output null"),
        "garbage.h264");

    // A transport stream damaged in the middle still plays; the damage is counted in the report.
    std::string ts = make_media("cli_corrupt_src.ts",
                                "-f lavfi -i testsrc2=size=320x240:rate=25 -frames:v 50 -c:v "
                                "libx264 -g 10 -pix_fmt yuv420p");
    ASSERT_FALSE(ts.empty());
    const std::string bad = dir + "/damaged.ts";
    fs::copy_file(ts, bad, fs::copy_options::overwrite_existing);
    {
        std::fstream f(bad, std::ios::binary | std::ios::in | std::ios::out);
        const auto size = static_cast<std::streamoff>(fs::file_size(bad));
        for (std::streamoff off = size / 3; off < size / 3 + 6000; off += 1) {
            f.seekp(off);
            f.put(static_cast<char>(off * 31));
        }
    }
    Outcome r =
        vfx_run("process --input '" + bad + "' --output null --report '" + dir + "/r.json'");
    ASSERT_EQ(r.status, 0) << r.output;
    auto j = read_json(dir + "/r.json");
    EXPECT_GT(j["frames"].get<int>(), 20);
    EXPECT_GT(j["source_stats"]["packets_corrupt"].get<int>(), 0);
}

TEST(Cli, WindowShowsMovingFramesAndEscapeExitsCleanly) {
    std::string have;
    if (run_command("command -v xvfb-run && command -v xdotool && command -v import", &have) != 0)
        GTEST_SKIP() << "xvfb-run, xdotool or ImageMagick's import is missing";
    const std::string dir = scratch_dir();
    // The driver script runs as its own file so that only bash expands its variables.
    const std::string script = dir + "/drive.sh";
    std::ofstream(script) << "vfx='" << vfx::test::vfx_binary() << "'; dir='" << dir << "'\n"
                          << vfx::test::wait_window_sh() << R"SH(
"$vfx" play --validation --log-level warn > "$dir/play.log" 2>&1 &
pid=$!
wait_window $pid
wait_video
sleep 1
import -window root "$dir/a.png"
sleep 1.5
import -window root "$dir/b.png"
xdotool windowfocus --sync "$wid"
xdotool key Escape
for i in $(seq 1 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
if kill -0 $pid 2>/dev/null; then kill $pid; echo still-running; exit 9; fi
wait $pid
echo "exit=$?"
)SH";
    std::string out;
    run_command(kOwnDisplay + "bash '" + script + "'", &out);
    std::ifstream log(dir + "/play.log");
    std::string log_text((std::istreambuf_iterator<char>(log)), {});
    EXPECT_NE(out.find("exit=0"), std::string::npos) << out << "\n" << log_text;
    EXPECT_EQ(log_text.find("validation"), std::string::npos) << log_text;
    auto a = first_frame(dir + "/a.png");
    auto b = first_frame(dir + "/b.png");
    // Something is on screen, and it moves.
    EXPECT_GT(mean_abs_diff_rgba8(a, b), 1.0);
    double lit = 0;
    for (int y = 0; y < a.height; y += 4)
        for (int x = 0; x < a.width; x += 4)
            lit += a.plane(0).data[y * a.plane(0).stride + x * 4 + 1];
    EXPECT_GT(lit / ((a.height / 4.0) * (a.width / 4.0)), 10.0);
}

// --- presets ---

std::string preset_path(const std::string& name) {
    return vfx::test::source_dir() + "/assets/presets/" + name;
}

// A small RGGB mosaic, 16-bit little-endian, `frames` frames: a smooth colour gradient as a
// sensor would sample it (R at even/even, B at odd/odd, G elsewhere).
std::string write_bayer_rggb16le(const std::string& path, int w, int h, int frames) {
    std::ofstream f(path, std::ios::binary);
    for (int n = 0; n < frames; ++n)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const double r = 0.2 + 0.6 * x / w, g = 0.3 + 0.4 * y / h,
                             b = 0.7 - 0.5 * (x + y) / (w + h) + 0.02 * n;
                const double v = (y % 2 == 0) ? (x % 2 == 0 ? r : g) : (x % 2 == 0 ? g : b);
                const auto code = static_cast<uint16_t>(v * 65535.0 / 2.0);  // before white balance
                f.put(static_cast<char>(code & 0xff));
                f.put(static_cast<char>(code >> 8));
            }
    return path;
}

TEST(Cli, EveryShippedPresetRunsThroughProcess) {
    VFX_REQUIRE_LAVFI();
    const std::string dir = scratch_dir();
    const std::string src = "lavfi:testsrc2=size=160x120:rate=25";
    for (const char* name : {"denoise.json", "stylise.json"}) {
        SCOPED_TRACE(name);
        const std::string stem = fs::path(name).stem().string();
        Outcome r = vfx_run("process --input '" + src + "' --frames 2 --preset '" +
                            preset_path(name) + "' --output '" + dir + "/" + stem +
                            "_%04d.png' --report '" + dir + "/" + stem + ".json'");
        ASSERT_EQ(r.status, 0) << r.output;
        EXPECT_NE(r.output.find("preset '" + preset_path(name) + "'"), std::string::npos)
            << r.output;
        const std::string chain = vfx::format_chain(vfx::load_preset(preset_path(name)));
        EXPECT_EQ(read_json(dir + "/" + stem + ".json")["chain"], chain);
        // The same picture as the preset's chain given as text.
        Outcome t = vfx_run("process --input '" + src + "' --frames 2 --chain '" + chain +
                            "' --output '" + dir + "/" + stem + "_chain_%04d.png'");
        ASSERT_EQ(t.status, 0) << t.output;
        EXPECT_EQ(mean_abs_diff_rgba8(first_frame(dir + "/" + stem + "_0002.png"),
                                      first_frame(dir + "/" + stem + "_chain_0002.png"), 4),
                  0.0);
    }
    // The camera preset develops a raw RGGB mosaic.
    const std::string raw = write_bayer_rggb16le(dir + "/sensor.raw", 64, 48, 2);
    Outcome cam = vfx_run(
        "process --input-format rawvideo --input-opt pixel_format=bayer_rggb16le --input-opt "
        "video_size=64x48 --input '" +
        raw + "' --preset '" + preset_path("camera-preview.json") + "' --output '" + dir +
        "/cam_%04d.png' --report '" + dir + "/cam.json'");
    ASSERT_EQ(cam.status, 0) << cam.output;
    EXPECT_EQ(read_json(dir + "/cam.json")["frames"], 2);
    auto frame = first_frame(dir + "/cam_0002.png");
    EXPECT_EQ(frame.width, 64);
    EXPECT_EQ(frame.height, 48);
}

TEST(Cli, ChainWinsOverPresetWithANote) {
    VFX_REQUIRE_LAVFI();
    const std::string dir = scratch_dir();
    const std::string preset = preset_path("denoise.json");
    Outcome r =
        vfx_run("process --input lavfi:testsrc2=size=160x120:rate=25 --frames 2 --preset '" +
                preset + "' --chain gaussian=sigma=1 --output null --report '" + dir + "/r.json'");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("--chain given: ignoring preset '" + preset + "'"), std::string::npos)
        << r.output;
    EXPECT_EQ(read_json(dir + "/r.json")["chain"], "gaussian=sigma=1");

    // play: the preset replaces the default chain; with --chain too, --chain wins.
    Outcome p = vfx_run("play --headless --frames 3 --preset '" + preset + "' --report '" + dir +
                        "/p.json'");
    ASSERT_EQ(p.status, 0) << p.output;
    EXPECT_EQ(read_json(dir + "/p.json")["chain"], vfx::format_chain(vfx::load_preset(preset)));
    Outcome pc = vfx_run("play --headless --frames 3 --preset '" + preset +
                         "' --chain sepia --report '" + dir + "/pc.json'");
    ASSERT_EQ(pc.status, 0) << pc.output;
    EXPECT_NE(pc.output.find("--chain given: ignoring preset '" + preset + "'"), std::string::npos)
        << pc.output;
    EXPECT_EQ(read_json(dir + "/pc.json")["chain"], "sepia");
}

TEST(Cli, BrokenPresetGivesOneLineAndNoOutput) {
    VFX_REQUIRE_LAVFI();
    const std::string dir = scratch_dir();
    const std::string in = "lavfi:testsrc2=size=160x120:rate=25";
    std::ofstream(dir + "/notjson.json") << "{\"vfx_preset\": 1, \"chain\": [\n";
    std::ofstream(dir + "/range.json")
        << R"({"vfx_preset": 1, "chain": [{"filter": "median"}, {"filter": "unsharp", "params": {"amount": 9}}]})";
    std::ofstream(dir + "/version.json") << R"({"vfx_preset": 7, "chain": []})";
    std::ofstream(dir + "/unknown.json") << R"({"vfx_preset": 1, "chain": [{"filter": "blurr"}]})";
    const std::string out = dir + "/out.png";
    auto process = [&](const std::string& preset) {
        return vfx_run("process --input " + in + " --frames 1 --preset '" + dir + "/" + preset +
                       "' --output '" + out + "' --save-preset '" + dir + "/saved.json'");
    };
    expect_one_line_error(process("notjson.json"), "notjson.json: not JSON: parse error");
    expect_one_line_error(process("range.json"),
                          "range.json: chain[1]: unsharp: amount=9 is out of range [0, 5]");
    expect_one_line_error(process("version.json"), "version.json: unsupported preset version 7");
    expect_one_line_error(process("unknown.json"),
                          "unknown.json: chain[0]: unknown filter 'blurr'");
    expect_one_line_error(process("missing.json"), "missing.json: cannot read preset");
    expect_one_line_error(vfx_run("play --headless --frames 2 --preset '" + dir + "/range.json'"),
                          "range.json: chain[1]: unsharp: amount=9");
    // A valid preset whose chain does not suit the source (the camera preset on a colour clip):
    // the line names the preset, not a --chain the user never typed.
    const std::string camera = preset_path("camera-preview.json");
    expect_one_line_error(vfx_run("process --input " + in + " --frames 1 --preset '" + camera +
                                  "' --output '" + out + "'"),
                          "preset '" + camera + "': 'demosaic' (filter 2) needs a mosaic");
    expect_one_line_error(vfx_run("play --headless --frames 1 --preset '" + camera + "'"),
                          "preset '" + camera + "': 'demosaic' (filter 2) needs a mosaic");
    for (const auto& e : fs::directory_iterator(dir))
        EXPECT_EQ(e.path().extension(), ".json") << "left behind: " << e.path();
    EXPECT_FALSE(fs::exists(dir + "/saved.json"));
}

TEST(Cli, SavePresetWritesTheChainThatRan) {
    VFX_REQUIRE_LAVFI();
    const std::string dir = scratch_dir();
    const std::string in = "lavfi:testsrc2=size=160x120:rate=25";
    const std::string chain = "median=radius=2,gamma=curve=srgb,ccm=matrix=1.1|-0.1|0|0|1|0|0|0|1";
    Outcome r = vfx_run("process --input " + in + " --frames 1 --chain '" + chain +
                        "' --output null --save-preset '" + dir + "/mine.json'");
    ASSERT_EQ(r.status, 0) << r.output;
    const vfx::Preset p = vfx::read_preset(dir + "/mine.json");
    EXPECT_EQ(p.name, "mine");
    EXPECT_EQ(p.chain(), vfx::parse_chain(chain));
    // It runs as a preset, and an unwritable --save-preset fails before the run.
    Outcome again = vfx_run("process --input " + in + " --frames 1 --preset '" + dir +
                            "/mine.json' --output null --report '" + dir + "/r.json'");
    ASSERT_EQ(again.status, 0) << again.output;
    EXPECT_EQ(read_json(dir + "/r.json")["chain"], vfx::format_chain(vfx::parse_chain(chain)));
    expect_one_line_error(vfx_run("process --input " + in + " --frames 1 --output '" + dir +
                                  "/x.png' --save-preset /nonexistent/dir/p.json"),
                          "/nonexistent/dir/p.json");
    EXPECT_FALSE(fs::exists(dir + "/x.png"));
}

}  // namespace

namespace {

// A live source far faster than this machine can process it: paced playback drops frames, but
// re-anchors its clock and keeps showing frames instead of dropping every one from then on.
TEST(Cli, PacedPlaybackOfASourceTooFastForTheMachineKeepsShowingFrames) {
    VFX_REQUIRE_LAVFI();
    const std::string report = scratch_dir() + "/r.json";
    Outcome r =
        vfx_run("play --headless --realtime --frames 30 --chain median=radius=2 --report '" +
                report + "' 'lavfi:testsrc2=size=640x360:rate=1000'");
    ASSERT_EQ(r.status, 0) << r.output;
    auto j = read_json(report);
    EXPECT_EQ(j["frames"], 30);
    EXPECT_TRUE(j["input"]["live"].get<bool>());
}

}  // namespace

namespace {

// Mean |R - G| + |G - B| over the part of the screen right of the overlay panel.
double colourfulness(const vfx::HostFrame& f) {
    double sum = 0;
    int n = 0;
    for (int y = 40; y < f.height - 20; y += 3)
        for (int x = 700; x < f.width - 10; x += 3) {
            const uint8_t* p = f.plane(0).data + y * f.plane(0).stride + x * 4;
            sum += std::abs(p[0] - p[1]) + std::abs(p[1] - p[2]);
            ++n;
        }
    return n ? sum / n : 0;
}

// The overlay's sliders come from the filters' registrations and drive the running chain: set
// `color`'s saturation to 0 by ctrl-clicking its slider and typing, and the video turns grey.
TEST(Cli, OverlaySliderChangesTheVideo) {
    std::string have;
    if (run_command("command -v xvfb-run && command -v xdotool && command -v import", &have) != 0)
        GTEST_SKIP() << "xvfb-run, xdotool or ImageMagick's import is missing";
    const std::string dir = scratch_dir();
    const std::string script = dir + "/drive.sh";
    // The overlay window sits at (10, 10) at scale 1; its 4th parameter row is `saturation`
    // (y = 184). Screenshots are taken with the overlay hidden (H).
    std::ofstream(script) << "vfx='" << vfx::test::vfx_binary() << "'; dir='" << dir << "'\n"
                          << vfx::test::wait_window_sh() << R"SH(
"$vfx" play --log-level warn --chain "gaussian=sigma=0.5,color=saturation=1" > "$dir/play.log" 2>&1 &
pid=$!
wait_window $pid
wait_video
sleep 1
xdotool windowfocus --sync "$wid"
xdotool key h
sleep 1
import -window root "PNG24:$dir/before.png"
xdotool key h
sleep 1
# At a person's pace: a frame must see the pointer over the slider and Ctrl held before the
# click, or ImGui takes a plain click that sets the value under the pointer (the pauses are
# long enough for a frame of a 2-core machine that is busy with other work too).
xdotool mousemove 142 184
sleep 1
xdotool keydown ctrl
sleep 1
xdotool click 1
sleep 1
xdotool keyup ctrl
sleep 1
# Each key a frame or more apart, as typed: ImGui 1.86 (Debian 12's) takes a key between two
# frames in the next one, and a character typed in the same gap ahead of it.
xdotool key ctrl+a
sleep 0.5
xdotool type 0
sleep 0.5
xdotool key Return
sleep 2.5
xdotool key h
sleep 1
import -window root "PNG24:$dir/after.png"
xdotool windowfocus --sync "$wid"
xdotool key Escape
wait $pid
echo "exit=$?"
)SH";
    std::string out;
    run_command(kOwnDisplay + "bash '" + script + "'", &out);
    EXPECT_NE(out.find("exit=0"), std::string::npos) << out;
    const double before = colourfulness(first_frame(dir + "/before.png"));
    const double after = colourfulness(first_frame(dir + "/after.png"));
    EXPECT_GT(before, 10.0);
    EXPECT_LT(after, 1.0) << "before " << before;
}

}  // namespace

namespace {

// `vfx bench`: every filter, the conversions, a fused run and the default chain, with times,
// bandwidth and the copy reference of the same run, as a table and as JSON.
TEST(Cli, BenchReportsEveryFilterAgainstTheCopyBandwidth) {
    const std::string dir = scratch_dir();
    Outcome r = vfx_run("bench --size 64x48 --runs 3 --warmup 1 --json '" + dir + "/b.json'");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("copy bandwidth 64x48"), std::string::npos) << r.output;
    auto j = read_json(dir + "/b.json");
    EXPECT_GT(j["copy_gbps"].get<double>(), 0);
    EXPECT_FALSE(j.at("cache_resident").get<bool>());
    EXPECT_EQ(r.output.find("cache-resident:"), std::string::npos) << r.output;
    std::set<std::string> filters;
    for (const auto& x : j["results"]) {
        filters.insert(x["filter"].get<std::string>());
        EXPECT_EQ(x["size"], "64x48");
        EXPECT_GT(x["ms_median"].get<double>(), 0) << x.dump();
        EXPECT_LE(x["ms_min"].get<double>(), x["ms_median"].get<double>()) << x.dump();
        EXPECT_GT(x["bytes"].get<double>(), 0) << x.dump();
        EXPECT_NEAR(x["gbps"].get<double>(),
                    x["bytes"].get<double>() / (x["ms_median"].get<double>() * 1e6), 1e-6);
    }
    for (const vfx::FilterInfo* f : vfx::registered_filters())
        EXPECT_TRUE(filters.contains(f->name)) << f->name;
    for (const char* extra : {"copy", "convert", "pointwise run", "chain"})
        EXPECT_TRUE(filters.contains(extra)) << extra;
    // A filter subset, and a bad name: one line, exit 1, no JSON.
    r = vfx_run("bench --size 32x16 --runs 2 --filters median,chain");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("median=radius=2"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("sobel"), std::string::npos) << r.output;
    r = vfx_run("bench --size 32x16 --filters nosuch --json '" + dir + "/bad.json'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.output.find("unknown filter 'nosuch'"), std::string::npos) << r.output;
    EXPECT_FALSE(std::filesystem::exists(dir + "/bad.json"));
    expect_one_line_error(vfx_run("bench --size 32x16 --filters 'median,,sobel'"),
                          "--filters 'median,,sobel': an empty name at character 8");
    r = vfx_run("bench --size 12by3");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.output.find("--size '12by3'"), std::string::npos) << r.output;
    // --cache-resident: the table and the JSON say the figures are not DRAM-to-DRAM.
    r = vfx_run("bench --size 32x16 --runs 2 --warmup 0 --filters wb --cache-resident --json '" +
                dir + "/resident.json'");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("cache-resident: one buffer set per case"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("wb "), std::string::npos) << r.output;
    EXPECT_TRUE(read_json(dir + "/resident.json").at("cache_resident").get<bool>());
}

// --video-pass: the renderer's compute or fragment pass, named in the report; the same picture
// either way (the renderer's tests compare them pixel by pixel); a bad name is one line, exit 1.
TEST(Cli, PlayDrawsWithTheVideoPassAsked) {
    const std::string dir = scratch_dir();
    for (const std::string pass : {"compute", "fragment"}) {
        SCOPED_TRACE(pass);
        const std::string report = dir + "/" + pass + ".json";
        Outcome r = vfx_run("play --headless --frames 3 --video-pass " + pass + " --screenshot '" +
                            dir + "/" + pass + ".png' --report '" + report + "'");
        ASSERT_EQ(r.status, 0) << r.output;
        const auto j = read_json(report);
        EXPECT_EQ(j["video_pass"], pass);
        EXPECT_GT(j["timing"]["summary_ms"]["render"]["p50"].get<double>(), 0.0) << j.dump();
        // The change from OpenCL's context to Vulkan's before the video pass, its own stage.
        EXPECT_GE(j["timing"]["summary_ms"]["switch"]["p50"].get<double>(), 0.0) << j.dump();
    }
    // auto: both measured, the faster kept (and named, with the times, in the report).
    const std::string report = dir + "/auto.json";
    Outcome r = vfx_run("play --headless --frames 30 --report '" + report + "'");
    ASSERT_EQ(r.status, 0) << r.output;
    const auto j = read_json(report);
    ASSERT_TRUE(j.contains("video_pass_choice")) << j.dump();
    const auto& c = j["video_pass_choice"];
    EXPECT_EQ(c["size"], "1280x720");
    EXPECT_EQ(j["video_pass"], c["compute_ms"].get<double>() <= c["fragment_ms"].get<double>()
                                   ? "compute"
                                   : "fragment");
    EXPECT_LE(mean_abs_diff_rgba8(first_frame(dir + "/compute.png"),
                                  first_frame(dir + "/fragment.png"), 4),
              0.01);
    Outcome bad = vfx_run("play --headless --frames 3 --video-pass tiles");
    EXPECT_EQ(bad.status, 1);
    EXPECT_NE(bad.output.find("--video-pass"), std::string::npos) << bad.output;

    // --headless-size: the offscreen target (what the screenshot holds).
    Outcome sized = vfx_run("play --headless --frames 2 --headless-size 320x200 --screenshot '" +
                            dir + "/sized.png'");
    ASSERT_EQ(sized.status, 0) << sized.output;
    const vfx::HostFrame shot = first_frame(dir + "/sized.png");
    EXPECT_EQ(shot.width, 320u);
    EXPECT_EQ(shot.height, 200u);
    bad = vfx_run("play --headless --frames 2 --headless-size 320by200");
    EXPECT_EQ(bad.status, 1);
    EXPECT_NE(bad.output.find("--headless-size '320by200'"), std::string::npos) << bad.output;
}

// An HDR clip's frames written as PNG (by process, and by a headless play's screenshot) carry
// a cICP chunk naming its primaries and transfer; an SDR clip's carry none.
TEST(Cli, PngOfAnHdrSourceIsTaggedWithCicp) {
    VFX_REQUIRE_FFMPEG_CLI();
    const std::string dir = scratch_dir();
    const std::string hdr = make_media(
        "cli_hdr_pq.mkv",
        "-f lavfi -i testsrc2=size=64x48:rate=25 -frames:v 3 -c:v ffv1 -pix_fmt yuv420p10le "
        "-color_primaries bt2020 -color_trc smpte2084 -colorspace bt2020nc");
    ASSERT_FALSE(hdr.empty());
    auto cicp = [](const std::string& png) {
        for (const vfx::test::PngChunk& c : vfx::test::png_chunks(png))
            if (c.type == "cICP") return c.data;
        return std::vector<uint8_t>{};
    };
    const std::vector<uint8_t> pq{9, 16, 0, 1};  // BT.2020, PQ, RGB, full range
    Outcome r = vfx_run("process --input '" + hdr + "' --frames 1 --output '" + dir + "/hdr.png'");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(cicp(dir + "/hdr.png"), pq);
    r = vfx_run("play --headless --frames 2 --input '" + hdr + "' --screenshot '" + dir +
                "/shot.png'");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(cicp(dir + "/shot.png"), pq);
    r = vfx_run("process --input '" + kSample + "' --frames 1 --output '" + dir + "/sdr.png'");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_FALSE(vfx::test::png_chunks(dir + "/sdr.png").empty());
    EXPECT_TRUE(cicp(dir + "/sdr.png").empty());
}

// Direct decode (on by default in play, process and bench --decode; --no-direct-decode for
// comparison): frames go straight from the decoder into pinned upload blocks, with the same
// output as the copy path.
TEST(Cli, DirectDecodeIsOnByDefaultOffOnRequestAndChangesNoPixel) {
    const std::string dir = scratch_dir();
    const std::string chain = " --chain 'unsharp=sigma=1:amount=0.5' --frames 6 ";
    Outcome on = vfx_run("process --log-level debug --input '" + kSample + "'" + chain +
                         "--output '" + dir + "/on_%04d.png' --report '" + dir + "/on.json'");
    ASSERT_EQ(on.status, 0) << on.output;
    EXPECT_NE(on.output.find("direct decode: on"), std::string::npos) << on.output;
    Outcome off =
        vfx_run("process --log-level debug --no-direct-decode --input '" + kSample + "'" + chain +
                "--output '" + dir + "/off_%04d.png' --report '" + dir + "/off.json'");
    ASSERT_EQ(off.status, 0) << off.output;
    EXPECT_NE(off.output.find("direct decode: off"), std::string::npos) << off.output;
    auto jon = read_json(dir + "/on.json");
    auto joff = read_json(dir + "/off.json");
    EXPECT_EQ(jon["direct_decode"], true);
    EXPECT_EQ(jon["uploads"]["direct"], 6);
    EXPECT_EQ(jon["uploads"]["copied"], 0);
    EXPECT_GE(jon["source_stats"]["frames_direct"].get<int>(), 6);
    EXPECT_EQ(joff["direct_decode"], false);
    EXPECT_EQ(joff["uploads"]["direct"], 0);
    EXPECT_EQ(joff["uploads"]["copied"], 6);
    EXPECT_EQ(joff["source_stats"]["frames_direct"], 0);
    for (int i = 1; i <= 6; ++i) {
        char name[32];
        std::snprintf(name, sizeof name, "_%04d.png", i);
        auto a = first_frame(dir + "/on" + name);
        auto b = first_frame(dir + "/off" + name);
        EXPECT_EQ(mean_abs_diff_rgba8(a, b, 4), 0.0) << name;
    }

    const std::string report = dir + "/play.json";
    Outcome play = vfx_run("play --headless --frames 5 --report '" + report + "'");
    ASSERT_EQ(play.status, 0) << play.output;
    EXPECT_EQ(read_json(report)["uploads"]["direct"], 5);
    play = vfx_run("play --headless --frames 5 --no-direct-decode --report '" + report + "'");
    ASSERT_EQ(play.status, 0) << play.output;
    EXPECT_EQ(read_json(report)["uploads"]["copied"], 5);

    Outcome bench = vfx_run("bench --decode '" + kSample + "' --json '" + dir + "/dec.json'");
    ASSERT_EQ(bench.status, 0) << bench.output;
    EXPECT_NE(bench.output.find("(direct decode on)"), std::string::npos) << bench.output;
    EXPECT_EQ(read_json(dir + "/dec.json")["frames_direct"],
              read_json(dir + "/dec.json")["frames"]);
    bench = vfx_run("bench --decode '" + kSample + "' --no-direct-decode");
    ASSERT_EQ(bench.status, 0) << bench.output;
    EXPECT_NE(bench.output.find("(direct decode off)"), std::string::npos) << bench.output;
}

}  // namespace
