#include "support/media.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace fs = std::filesystem;

namespace vfx::test {

std::vector<PngChunk> png_chunks(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    const std::vector<uint8_t> b((std::istreambuf_iterator<char>(f)),
                                 std::istreambuf_iterator<char>());
    static constexpr uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    std::vector<PngChunk> out;
    if (b.size() < 8 || !std::equal(b.begin(), b.begin() + 8, kSignature)) return out;
    auto be32 = [&](size_t i) {
        return uint32_t{b[i]} << 24 | uint32_t{b[i + 1]} << 16 | uint32_t{b[i + 2]} << 8 | b[i + 3];
    };
    for (size_t i = 8; i + 12 <= b.size();) {
        const uint32_t n = be32(i);
        if (i + 12 + n > b.size()) break;
        uint32_t crc = 0xFFFFFFFFu;  // bitwise CRC-32 (reflected 0xEDB88320), as PNG defines it
        for (size_t k = i + 4; k < i + 8 + n; ++k) {
            crc ^= b[k];
            for (int bit = 0; bit < 8; ++bit)
                crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
        }
        out.push_back({std::string(b.begin() + i + 4, b.begin() + i + 8),
                       std::vector<uint8_t>(b.begin() + i + 8, b.begin() + i + 8 + n),
                       (crc ^ 0xFFFFFFFFu) == be32(i + 8 + n)});
        i += 12 + n;
    }
    return out;
}

int run_command(const std::string& cmd, std::string* output) {
    std::string full = cmd + " 2>&1";
    FILE* p = popen(full.c_str(), "r");
    if (!p) return -1;
    std::array<char, 4096> buf{};
    std::string out;
    size_t n = 0;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
        out.append(buf.data(), n);
    int status = pclose(p);
    if (output) *output = out;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string media_dir() {
    const char* env = std::getenv("VFX_TEST_MEDIA");
    return env && *env ? env : VFX_TEST_MEDIA;
}

std::string make_media(const std::string& name, const std::string& args) {
    fs::path path = fs::path(media_dir()) / name;
    if (fs::exists(path) && fs::file_size(path) > 0) return path.string();
    if (!ffmpeg_cli_available()) {
        ADD_FAILURE() << "clip '" << name << "' is not in " << media_dir()
                      << " and there is no ffmpeg program here to make it";
        return "";
    }
    // Write to a temporary name first so a half-written clip is never reused; the name is unique
    // to this process, as ctest -j may run tests that need the same clip at the same time.
    fs::path tmp = path;
    tmp += ".part" + std::to_string(::getpid()) + path.extension().string();
    std::string out;
    std::string cmd = "ffmpeg -nostdin -y -v error " + args + " '" + tmp.string() + "'";
    int rc = run_command(cmd, &out);
    if (rc != 0) {
        ADD_FAILURE() << "ffmpeg failed (" << rc << "): " << cmd << "\n" << out;
        return "";
    }
    fs::rename(tmp, path);
    return path.string();
}

bool ffmpeg_cli_available() {
    static const bool ok = run_command("ffmpeg -nostdin -version") == 0;
    return ok;
}

bool media_cached() {
    static const bool cached = [] {
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(media_dir(), ec))
            if (e.is_regular_file(ec) && e.path().string().find(".part") == std::string::npos)
                return true;  // a clip, not one a killed run left half made
        return false;
    }();
    return cached;
}

bool ffprobe_cli_available() {
    static const bool ok = run_command("ffprobe -version") == 0;
    return ok;
}

std::string scratch_dir() {
    // One folder per test (ctest -j runs tests of one suite in parallel processes), emptied the
    // first time the test asks for it.
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "common";
    for (char& c : name)
        if (c == '/') c = '_';
    fs::path d = fs::path(media_dir()).parent_path() / "scratch" / name;
    static std::string last;
    if (last != d.string()) {
        fs::remove_all(d);
        last = d.string();
    }
    fs::create_directories(d);
    return d.string();
}

std::string source_dir() {
    const char* env = std::getenv("VFX_SOURCE_DIR");
    return env && *env ? env : VFX_SOURCE_DIR;
}

std::string vfx_binary() {
    // The GPU machine runs the test binaries from a pack, where the build tree's vfx is not.
    const char* env = std::getenv("VFX_BINARY");
    return env && *env ? env : VFX_BINARY;
}

std::string wait_window_sh() {
    return R"SH(
wait_window() {
  wid=""
  for i in $(seq 1 100); do
    wid=$(xdotool search --name '^vfx' 2>/dev/null | head -1)
    [ -n "$wid" ] && return 0
    sleep 0.2
  done
  kill "$1"; echo no-window; exit 8
}
# Until the screen right of the overlay panel shows a picture (not one flat colour): the first
# frames can take seconds on a loaded machine (kernels compiled on first use), so a fixed sleep
# is not enough. Needs $dir.
wait_video() {
  for i in $(seq 1 120); do
    import -window root "PNG24:$dir/.probe.png" 2>/dev/null
    sd=$(convert "$dir/.probe.png" -crop 500x500+700+100 +repage \
         -format '%[fx:standard_deviation]' info: 2>/dev/null)
    awk -v s="${sd:-0}" 'BEGIN { exit !(s > 0.02) }' && return 0
    sleep 0.5
  done
  echo no-video
}
)SH";
}

std::vector<DirectClip> direct_clips() {
    const std::string src = "-f lavfi -i testsrc2=size=";
    return {
        // Odd sizes: 1918x1078 is coded as 1920x1088 and cropped; frame threads call the
        // allocator from several decoder threads.
        {"h264_1918x1078_threads", "direct_h264_1918.mp4",
         src + "1918x1078:rate=25 -frames:v 4 -c:v libx264 -preset ultrafast -pix_fmt yuv420p",
         true, 4},
        {"h264_single_thread", "direct_h264_st.mp4",
         src + "96x64:rate=25 -frames:v 6 -c:v libx264 -pix_fmt yuv420p", true, 1},
        {"ffv1_yuv420p_37x23", "direct_ffv1_37.mkv",
         src + "37x23:rate=25 -frames:v 3 -c:v ffv1 -pix_fmt yuv420p", true, 0},
        {"ffv1_yuv420p10_35x21", "direct_ffv1_10.mkv",
         src + "35x21:rate=25 -frames:v 3 -c:v ffv1 -pix_fmt yuv420p10le", true, 0},
        {"ffv1_yuv444p12_19x7", "direct_ffv1_444.mkv",
         src + "19x7:rate=25 -frames:v 2 -c:v ffv1 -pix_fmt yuv444p12le", true, 0},
        {"ffv1_gray16_33x9", "direct_ffv1_gray16.mkv",
         src + "33x9:rate=25 -frames:v 2 -c:v ffv1 -pix_fmt gray16le", true, 0},
        {"hevc_10bit_318x178", "direct_hevc10.mkv",
         src + "318x178:rate=25 -frames:v 3 -pix_fmt yuv420p10le -c:v libx265 -preset ultrafast "
               "-x265-params log-level=error",
         true, 0},
        {"mjpeg_yuvj422p_41x17", "direct_mjpeg.avi",
         src + "41x17:rate=25 -frames:v 2 -pix_fmt yuvj422p -c:v mjpeg -q:v 3", true, 0},
        {"png_rgba_31x15", "direct_rgba.png", src + "31x15 -frames:v 1 -pix_fmt rgba", true, 0},
        // Not direct: formats the conversion does not read (libswscale), and a decoder that
        // takes no custom buffers (rawvideo).
        {"gif_pal8_fallback", "direct_pal8.gif", src + "32x24:rate=10 -frames:v 2", false, 0},
        {"png_rgb24_fallback", "direct_rgb24.png", src + "31x15 -frames:v 1 -pix_fmt rgb24", false,
         0},
        {"rawvideo_nut", "direct_raw.nut", src + "30x20:rate=25 -frames:v 2 -c:v rawvideo", false,
         0},
    };
}

void PrintTo(const DirectClip& c, std::ostream* os) {
    *os << c.name;
}

}  // namespace vfx::test
