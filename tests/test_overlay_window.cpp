// The overlay in a real window under Xvfb (lavapipe), driven by real key presses and mouse
// clicks (xdotool) and checked on screenshots (ImageMagick's import): H hides and shows it and
// it never changes the video's pixels; V shows the split view (left the unprocessed video,
// right the processed one) whose divider follows the mouse; a stage's checkbox disables it;
// a kernel file changed in --kernels-dir is swapped in live and a broken one is not. Each test
// runs its own X server. Plus --kernels-dir without a window.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>

#include "core/format.hpp"
#include "decode/source.hpp"
#include "support/media.hpp"

namespace vfx::test {
namespace {

namespace fs = std::filesystem;

// A static picture (SMPTE bars, 640x360): in a 1280x720 window it fills the window exactly, at
// twice its size.
const char* kBars = "lavfi:smptebars=size=640x360:rate=25";
const std::string kOwnDisplay = "timeout -k 5 200 xvfb-run -a -s '-screen 0 1280x720x24' ";

bool have_x_tools() {
    std::string out;
    return run_command("command -v xvfb-run && command -v xdotool && command -v import", &out) == 0;
}

#define REQUIRE_X_TOOLS()                                                           \
    do {                                                                            \
        if (!have_x_tools())                                                        \
            GTEST_SKIP() << "xvfb-run, xdotool or ImageMagick's import is missing"; \
    } while (0)

struct Rgb8Image {
    int width = 0, height = 0;
    std::vector<uint8_t> px;  // RGB
    const uint8_t* at(int x, int y) const {
        return &px[(static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)) *
                   3];
    }
};

// Decodes a PNG (any first frame) into RGB8 through the engine's source. ImageMagick writes a
// screenshot with no colour in it as a grey PNG: one channel, R = G = B.
Rgb8Image load(const std::string& path) {
    SourceOptions so;
    so.input = path;
    auto src = Source::open(so);
    auto f = src->next();
    if (!f) throw std::runtime_error("no frame in " + path);
    const bool gray = f->format.layout == PlaneLayout::gray;
    if (!gray && f->format.layout != PlaneLayout::rgba)
        throw std::runtime_error("unexpected PNG layout in " + path);
    const int bytes = f->format.bytes;  // per sample; the high byte of a 16-bit one
    const int channels = gray ? 1 : 4;
    Rgb8Image img;
    img.width = f->width;
    img.height = f->height;
    img.px.resize(static_cast<size_t>(img.width) * static_cast<size_t>(img.height) * 3);
    for (int y = 0; y < img.height; ++y) {
        const uint8_t* row = f->plane(0).data + y * f->plane(0).stride;
        for (int x = 0; x < img.width; ++x)
            for (int c = 0; c < 3; ++c) {
                const uint8_t* sample = row + (x * channels + (gray ? 0 : c)) * bytes;
                img.px[(static_cast<size_t>(y) * static_cast<size_t>(img.width) +
                        static_cast<size_t>(x)) *
                           3 +
                       static_cast<size_t>(c)] = bytes == 2 ? sample[1] : sample[0];
            }
    }
    return img;
}

int diff(const uint8_t* a, const uint8_t* b) {
    return std::max({std::abs(a[0] - b[0]), std::abs(a[1] - b[1]), std::abs(a[2] - b[2])});
}
bool grey(const uint8_t* p, int tolerance = 2) {
    return std::abs(p[0] - p[1]) <= tolerance && std::abs(p[1] - p[2]) <= tolerance;
}

// Runs `script` (bash, `$vfx` and `$dir` set) on an X server of its own; returns its output.
std::string drive(const std::string& dir, const std::string& script) {
    const std::string path = dir + "/drive.sh";
    std::ofstream(path) << "vfx='" << vfx_binary() << "'; dir='" << dir << "'\n"
                        << vfx::test::wait_window_sh() << R"SH(
start() {  # start vfx play "$@" and wait for its window
  "$vfx" play --log-level warn "$@" > "$dir/play.log" 2>&1 &
  pid=$!
  wait_window $pid
  xdotool windowfocus --sync "$wid"
}
quit() {
  xdotool windowfocus --sync "$wid"
  xdotool key Escape
  for i in $(seq 1 150); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
  if kill -0 $pid 2>/dev/null; then kill $pid; echo still-running; exit 9; fi
  wait $pid
  echo "exit=$?"
}
)SH" << script;
    std::string out;
    run_command(kOwnDisplay + "bash '" + path + "'", &out);
    std::ifstream log(dir + "/play.log");
    return out + "\n--- play.log ---\n" + std::string(std::istreambuf_iterator<char>(log), {});
}

// The unprocessed bars, as the conversion makes them (vfx process with no chain).
Rgb8Image unprocessed_bars(const std::string& dir) {
    std::string out;
    const int rc = run_command("'" + vfx_binary() + "' process --input " + kBars +
                                   " --frames 1 --output '" + dir + "/bars.png'",
                               &out);
    EXPECT_EQ(rc, 0) << out;
    return load(dir + "/bars.png");
}

// True when the bars' pixel under screen point (x, y) lies inside a bar (its 5 x 5 video
// neighbourhood is uniform), where scaling cannot blend two bars.
bool inside_bar(const Rgb8Image& bars, int x, int y) {
    const int vx = x / 2, vy = y / 2;
    for (int dy = -2; dy <= 2; ++dy)
        for (int dx = -2; dx <= 2; ++dx) {
            const int nx = std::clamp(vx + dx, 0, bars.width - 1);
            const int ny = std::clamp(vy + dy, 0, bars.height - 1);
            if (diff(bars.at(nx, ny), bars.at(vx, vy)) > 0) return false;
        }
    return true;
}

TEST(OverlayWindow, HidesAndShowsWithHAndNeverChangesTheVideo) {
    VFX_REQUIRE_LAVFI();
    REQUIRE_X_TOOLS();
    const std::string dir = scratch_dir();
    const std::string out = drive(dir, R"SH(
start --chain "" "lavfi:color=c=0x3070b0:size=640x360:rate=25"
sleep 5
import -window root "$dir/shown.png"
xdotool key h
sleep 1.5
import -window root "$dir/hidden.png"
xdotool key h
sleep 1.5
import -window root "$dir/again.png"
quit
)SH");
    ASSERT_NE(out.find("exit=0"), std::string::npos) << out;
    const Rgb8Image shown = load(dir + "/shown.png");
    const Rgb8Image hidden = load(dir + "/hidden.png");
    const Rgb8Image again = load(dir + "/again.png");
    ASSERT_EQ(hidden.width, 1280);
    // Hidden: nothing but the uniform video.
    const uint8_t* video = hidden.at(640, 360);
    EXPECT_FALSE(grey(video, 10)) << "the colour source should show as colour";
    int off = 0;
    for (int y = 0; y < 720; y += 7)
        for (int x = 0; x < 1280; x += 7)
            off += diff(hidden.at(x, y), video) > 2;
    EXPECT_EQ(off, 0) << "pixels that are not the video with the overlay hidden";
    // Shown (twice): the overlay's panels cover parts of the window, top left and top right;
    // everywhere else the video's pixels are exactly those of the hidden run.
    for (const Rgb8Image* img : {&shown, &again}) {
        int panel = 0, elsewhere = 0;
        for (int y = 20; y < 200; y += 5)
            for (int x = 20; x < 300; x += 5)
                panel += diff(img->at(x, y), video) > 2;
        // (The player's transport bar runs along the bottom edge: not "elsewhere".)
        for (int y = 340; y < 660; y += 5)
            for (int x = 440; x < 820; x += 5)
                elsewhere += diff(img->at(x, y), hidden.at(x, y)) > 2;
        EXPECT_GT(panel, 500) << "no overlay panel at the top left";
        EXPECT_EQ(elsewhere, 0) << "the overlay changed pixels outside its panels";
    }
}

TEST(OverlayWindow, SplitViewShowsTheUnprocessedVideoLeftAndTheProcessedRight) {
    VFX_REQUIRE_LAVFI();
    REQUIRE_X_TOOLS();
    const std::string dir = scratch_dir();
    const Rgb8Image bars = unprocessed_bars(dir);
    ASSERT_EQ(bars.width, 640);
    // H hides the overlay so the whole video shows; V splits; a press on the video moves the
    // divider to the pointer; V again ends the split.
    const std::string out = drive(dir, std::string(R"SH(
start --chain grayscale )SH") + kBars + R"SH(
sleep 5
xdotool key h
sleep 1.5
import -window root "$dir/processed.png"
xdotool key v
sleep 2
import -window root "$dir/split.png"
xdotool mousemove 320 500 mousedown 1
sleep 1
xdotool mouseup 1
sleep 1.5
import -window root "$dir/dragged.png"
xdotool key v
sleep 1.5
import -window root "$dir/unsplit.png"
quit
)SH");
    ASSERT_NE(out.find("exit=0"), std::string::npos) << out;
    const Rgb8Image processed = load(dir + "/processed.png");
    const Rgb8Image split = load(dir + "/split.png");
    const Rgb8Image dragged = load(dir + "/dragged.png");
    const Rgb8Image unsplit = load(dir + "/unsplit.png");

    // Processed: grey everywhere (the chain is grayscale).
    int colour = 0;
    for (int y = 0; y < 720; y += 9)
        for (int x = 0; x < 1280; x += 9)
            colour += !grey(processed.at(x, y));
    EXPECT_EQ(colour, 0);

    // The divider at screen column `divider`: left of it the unprocessed bars, right of it the
    // processed picture.
    auto check_split = [&](const Rgb8Image& img, int divider, const char* what) {
        SCOPED_TRACE(what);
        int left = 0, left_bad = 0, right = 0, right_bad = 0, coloured_left = 0;
        for (int y = 4; y < 716; y += 6)
            for (int x = 4; x < 1276; x += 6) {
                if (std::abs(x - divider) < 12 || !inside_bar(bars, x, y)) continue;
                if (x < divider) {
                    ++left;
                    left_bad += diff(img.at(x, y), bars.at(x / 2, y / 2)) > 3;
                    coloured_left += !grey(bars.at(x / 2, y / 2), 10);
                } else {
                    ++right;
                    right_bad += diff(img.at(x, y), processed.at(x, y)) > 2;
                }
            }
        EXPECT_GT(left, 1000);
        EXPECT_GT(coloured_left, 500) << "the left side should hold coloured bars";
        EXPECT_GT(right, 1000);
        EXPECT_EQ(left_bad, 0) << "left of the divider is not the unprocessed video";
        EXPECT_EQ(right_bad, 0) << "right of the divider is not the processed video";
        // The divider itself: a white line.
        int white = 0;
        for (int y = 10; y < 710; y += 10)
            for (int x = divider - 4; x <= divider + 4; ++x) {
                const uint8_t* p = img.at(x, y);
                if (p[0] > 250 && p[1] > 250 && p[2] > 250) {
                    ++white;
                    break;
                }
            }
        EXPECT_GT(white, 60) << "no divider line near column " << divider;
    };
    check_split(split, 640, "split at the middle (V)");
    check_split(dragged, 320, "divider dragged to a quarter");
    int unsplit_colour = 0;
    for (int y = 0; y < 720; y += 9)
        for (int x = 0; x < 1280; x += 9)
            unsplit_colour += diff(unsplit.at(x, y), processed.at(x, y)) > 2;
    EXPECT_EQ(unsplit_colour, 0) << "V again should end the split view";
}

TEST(OverlayWindow, StageCheckboxDisablesAndEnablesAStage) {
    VFX_REQUIRE_LAVFI();
    REQUIRE_X_TOOLS();
    const std::string dir = scratch_dir();
    // The overlay sits at (10, 10) at scale 1; its first stage row has, left to right, the up,
    // down and remove buttons and the enable checkbox (at about x = 104, y = 69).
    const std::string out = drive(dir, std::string(R"SH(
start --chain grayscale )SH") + kBars + R"SH(
sleep 5
import -window root "$dir/on.png"
xdotool mousemove 104 69 click 1
sleep 2
import -window root "$dir/off.png"
xdotool mousemove 104 69 click 1
sleep 2
import -window root "$dir/on_again.png"
quit
)SH");
    ASSERT_NE(out.find("exit=0"), std::string::npos) << out;
    // The bars below the overlay's panel (y > 400, left half): grey when the stage runs.
    auto colourful = [](const Rgb8Image& img) {
        int n = 0;
        for (int y = 420; y < 700; y += 5)
            for (int x = 10; x < 800; x += 5)
                n += !grey(img.at(x, y), 10);
        return n;
    };
    EXPECT_EQ(colourful(load(dir + "/on.png")), 0);
    EXPECT_GT(colourful(load(dir + "/off.png")), 1000) << "the disabled stage still runs";
    EXPECT_EQ(colourful(load(dir + "/on_again.png")), 0);
}

// Escape with a combo's list open closes the list, not the player; the next Escape quits.
TEST(OverlayWindow, EscapeClosesAnOpenComboNotThePlayer) {
    REQUIRE_X_TOOLS();
    const std::string dir = scratch_dir();
    // The default chain's panel at scale 1: the add-filter combo below its three stages, at
    // about (95, 207).
    const std::string out = drive(dir, R"SH(
start
sleep 4
xdotool mousemove 95 207 click 1
sleep 2
import -window root "$dir/open.png"
xdotool key Escape
sleep 2
kill -0 $pid 2>/dev/null && echo alive-after-escape
import -window root "$dir/closed.png"
quit
)SH");
    EXPECT_NE(out.find("alive-after-escape"), std::string::npos) << out;
    ASSERT_NE(out.find("exit=0"), std::string::npos) << out;
    // The list was open (drawn below the combo), then closed.
    const Rgb8Image open = load(dir + "/open.png"), closed = load(dir + "/closed.png");
    int changed = 0;
    for (int y = 215; y < 400; y += 3)
        for (int x = 15; x < 250; x += 3)
            changed += diff(open.at(x, y), closed.at(x, y)) > 40;
    EXPECT_GT(changed, 300) << "no combo list opened at (95, 207)";
}

// A grayscale.cl that writes R = G = B = 16: unmistakable on screen.
const char* kConstantGrayscale = R"CL(
// grayscale is a point-wise operation (engine/compute/pointwise.hpp): R = G = B = 16.
inline float4 grayscale_rgba(float4 v, int x, int y) { return (float4)(16.0f); }
)CL";

TEST(OverlayWindow, KernelFilesChangedWhilePlayingAreSwappedInUnlessBroken) {
    VFX_REQUIRE_LAVFI();
    REQUIRE_X_TOOLS();
    const std::string dir = scratch_dir();
    fs::create_directories(dir + "/kernels");
    std::ofstream(dir + "/constant.cl") << kConstantGrayscale;
    std::ofstream(dir + "/broken.cl")
        << "inline float4 grayscale_rgba(float4 v, int x, int y) { return nope_hot_reload; }\n";
    const std::string out = drive(dir, std::string(R"SH(
start --kernels-dir "$dir/kernels" --chain grayscale )SH") +
                                           kBars + R"SH(
sleep 5
xdotool key h
sleep 1
import -window root "$dir/embedded.png"
cp "$dir/constant.cl" "$dir/kernels/grayscale.cl"
sleep 4
import -window root "$dir/reloaded.png"
cp "$dir/broken.cl" "$dir/kernels/grayscale.cl"
sleep 4
import -window root "$dir/broken.png"
quit
)SH");
    ASSERT_NE(out.find("exit=0"), std::string::npos) << out;
    auto sixteen = [](const Rgb8Image& img) {
        int n = 0, total = 0;
        for (int y = 5; y < 720; y += 11)
            for (int x = 5; x < 1280; x += 11) {
                const uint8_t* p = img.at(x, y);
                n += p[0] == 16 && p[1] == 16 && p[2] == 16;
                ++total;
            }
        return static_cast<double>(n) / total;
    };
    EXPECT_LT(sixteen(load(dir + "/embedded.png")), 0.2);
    EXPECT_GT(sixteen(load(dir + "/reloaded.png")), 0.99) << out;
    // The broken file does not build: the last good kernel keeps running, the error is logged
    // (and shown in the overlay) with the compiler's message.
    EXPECT_GT(sixteen(load(dir + "/broken.png")), 0.99) << out;
    EXPECT_NE(out.find("nope_hot_reload"), std::string::npos) << out;
}

TEST(OverlayCli, KernelsDirOverridesAnEmbeddedKernel) {
    VFX_REQUIRE_LAVFI();
    const std::string dir = scratch_dir();
    fs::create_directories(dir + "/kernels");
    std::ofstream(dir + "/kernels/grayscale.cl") << kConstantGrayscale;
    std::string out;
    const int rc = run_command("timeout 300 '" + vfx_binary() + "' play --headless --frames 3 " +
                                   "--chain grayscale --kernels-dir '" + dir +
                                   "/kernels' --screenshot '" + dir + "/shot.png' " + kBars,
                               &out);
    ASSERT_EQ(rc, 0) << out;
    const Rgb8Image shot = load(dir + "/shot.png");
    for (int y = 0; y < shot.height; y += 13)
        for (int x = 0; x < shot.width; x += 13)
            ASSERT_EQ(diff(shot.at(x, y), std::array<uint8_t, 3>{16, 16, 16}.data()), 0)
                << x << "," << y;

    // A directory that is not there: one line, status 1.
    out.clear();
    EXPECT_EQ(run_command("'" + vfx_binary() + "' play --headless --frames 1 --kernels-dir '" +
                              dir + "/absent' " + kBars,
                          &out),
              1)
        << out;
    EXPECT_NE(out.find("vfx: --kernels-dir"), std::string::npos) << out;
}

}  // namespace
}  // namespace vfx::test
