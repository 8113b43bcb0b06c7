#pragma once
// Test media made on demand with the ffmpeg CLI (installed by scripts/setup.sh) and cached in
// the build tree, so the repository holds no test clips but the bundled sample.
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace vfx::test {

// The folder test media are made in and found in: $VFX_TEST_MEDIA where set (the build's media
// carried to another machine), else the build tree's.
std::string media_dir();

// Runs `ffmpeg -y -v error <args> <media-dir>/<name>` unless the file already exists and
// returns its path. `args` is everything between the program name and the output file, e.g.
// "-f lavfi -i testsrc2=size=320x240:rate=25 -frames:v 10 -c:v libx264 -pix_fmt yuv420p".
// Fails the current test (and returns "") if ffmpeg fails, or is missing where the clip is.
std::string make_media(const std::string& name, const std::string& args);

// Whether the ffmpeg program runs here (checked once). The GPU machine, where the test binaries
// also run, has FFmpeg's libraries in vfx's pack but no ffmpeg program.
bool ffmpeg_cli_available();

// Whether the media folder holds clips made elsewhere (the build tree's, carried to the GPU
// machine with the test binaries): there make_media finds them and needs no ffmpeg program (a
// clip missing from them fails its test, saying so: the carried folder is incomplete).
bool media_cached();

// Skips the current test (from a test body or SetUp) where the ffmpeg program that makes its
// media is missing and no media were made elsewhere, so it reports SKIPPED there rather than
// failing on an empty path.
#define VFX_REQUIRE_FFMPEG_CLI()                                                              \
    do {                                                                                      \
        if (!::vfx::test::ffmpeg_cli_available() && !::vfx::test::media_cached())             \
            GTEST_SKIP() << "no ffmpeg program here to make this test's media, and no media " \
                            "made elsewhere";                                                 \
    } while (0)

// Skips the current test where the ffmpeg program is missing: for a test that runs it itself
// (to compare its output with vfx's), not only to make media.
#define VFX_REQUIRE_FFMPEG_PROGRAM()                                              \
    do {                                                                          \
        if (!::vfx::test::ffmpeg_cli_available())                                 \
            GTEST_SKIP() << "no ffmpeg program here: this test compares with it"; \
    } while (0)

// Whether the ffprobe program runs here (checked once): it comes with ffmpeg, and is missing
// where ffmpeg is missing.
bool ffprobe_cli_available();

// Skips the current test (from a test body or SetUp) where the ffprobe program that inspects
// its outputs is missing.
#define VFX_REQUIRE_FFPROBE_CLI()                                                             \
    do {                                                                                      \
        if (!::vfx::test::ffprobe_cli_available())                                            \
            GTEST_SKIP() << "no ffprobe program here: this test inspects its output with it"; \
    } while (0)

// Skips the current test where vfx is built without libavdevice (VFX_WITH_AVDEVICE=OFF, the
// GPU machine's pack), whose `lavfi:` sources (FFmpeg's test patterns as live inputs) the test
// opens.
#if VFX_WITH_AVDEVICE
#define VFX_REQUIRE_LAVFI() (void)0
#else
#define VFX_REQUIRE_LAVFI() \
    GTEST_SKIP() << "built without libavdevice (VFX_WITH_AVDEVICE=OFF): no lavfi: sources"
#endif

// A PNG file's chunks in order (an empty list for a file that is not a PNG), each with whether
// its CRC is PNG's CRC-32 of its type and data.
struct PngChunk {
    std::string type;
    std::vector<uint8_t> data;
    bool crc_ok = false;
};
std::vector<PngChunk> png_chunks(const std::string& path);

// Directory for files the current test writes (its own, emptied when the test first asks).
std::string scratch_dir();

// Runs a shell command, returns its exit status; stdout+stderr captured into `output` if given.
int run_command(const std::string& cmd, std::string* output = nullptr);

// The repository root (assets/ lives there): $VFX_SOURCE_DIR when set (test binaries run on
// another machine), else the source tree they were built from.
std::string source_dir();

// Path of the built `vfx` program ($VFX_BINARY where set: the GPU machine's pack).
std::string vfx_binary();

// Bash for the scripts that drive a `vfx play` window with xdotool: defines `wait_window PID`,
// which sets $wid to vfx's window once it is mapped (up to 20 s), or kills PID, prints
// "no-window" and exits 8; and `wait_video` (needs $dir), which waits until the screen right of
// the overlay panel shows a picture rather than one flat colour (up to about a minute, then
// prints "no-video").
std::string wait_window_sh();

// Clips for the direct-decode tests (decoding into pinned blocks, and uploading from them):
// odd sizes, bit depths, chroma layouts and codecs, frame threads, and the formats that fall
// back to FFmpeg's own buffers. `args` go to make_media(file, args).
struct DirectClip {
    std::string name, file, args;
    bool direct = true;  // frames end up in blocks (else: the decoder's or the fallback's)
    int threads = 0;
};
std::vector<DirectClip> direct_clips();
void PrintTo(const DirectClip& c, std::ostream* os);

}  // namespace vfx::test
