#pragma once
// What the command line asks for, as plain data (parsed in cli.cpp, used by the commands).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "decode/source.hpp"
#include "session/devices.hpp"

namespace vfx::ui {

struct PlayOptions {
    SourceOptions source;
    std::string chain;
    std::string chain_origin = "chain";  // "preset 'FILE'" for a preset's chain (apply_preset)
    bool chain_given = false;
    std::string preset;  // --preset FILE ("" = none); resolved into `chain` before run_play
    DeviceOptions devices;
    bool headless = false;
    bool realtime = false;  // headless: pace by timestamps instead of running flat out
    std::string clock;      // --clock realtime|fast ("": realtime in a window, fast headless)
    double speed = 1;       // --speed: paced playback speed
    bool loop = false;      // --loop: restart at the end (files)
    std::string screenshot_dir = ".";  // where the S key writes vfx-shot-NNNN.png
    bool vsync = true;
    int64_t frames = -1;  // stop after N frames (-1: whole input)
    std::string report;   // JSON report path ("" = none)
    uint32_t frames_in_flight = 3;
    std::string screenshot;           // headless: write the last presented frame here (PNG)
    std::string video_pass = "auto";  // --video-pass auto|compute|fragment (Renderer's VideoPass)
    std::pair<uint32_t, uint32_t> headless_size{1280, 720};  // --headless-size: offscreen target

    std::string kernels_dir;    // kernel hot reload: overrides in DIR, watched ("" = none)
    bool direct_decode = true;  // --no-direct-decode: FFmpeg's own buffers, copied for upload
};

struct ProcessOptions {
    SourceOptions source;
    std::string output;
    std::string chain;
    std::string chain_origin = "chain";  // as PlayOptions::chain_origin
    bool chain_given = false;
    std::string preset;       // --preset FILE ("" = none); resolved into `chain` before run_process
    std::string save_preset;  // --save-preset FILE: the chain that ran, written after the run
    DeviceOptions devices;
    int64_t frames = -1;
    std::string report;
    std::string codec;
    std::vector<std::pair<std::string, std::string>> encoder_options;
    bool direct_decode = true;  // --no-direct-decode
};

struct BenchCliOptions {
    std::vector<std::string> sizes;  // "WxH", repeatable; empty: 1920x1080 and 3840x2160
    std::string filters;             // comma-separated names; empty: every filter
    std::string json;                // --json FILE ("" = none)
    bool retune = false;             // measure every tuned kernel again, rewrite the cache
    bool cache_resident = false;     // one buffer set per case (BenchOptions::cache_resident)
    int runs = 100, warmup = 10;
    std::optional<std::string> cl_device;
    std::string decode;  // --decode CLIP: the decode-only frame rate of CLIP instead
    int decode_threads = 0;
    bool direct_decode = true;  // --no-direct-decode (with --decode)
};

struct FiltersOptions {
    bool json = false;
};

struct ProbeOptions {
    DeviceOptions devices;
    bool json = false;
};

// Splits KEY=VALUE (the first '='); throws vfx::Error naming `flag` when there is none.
std::pair<std::string, std::string> split_key_value(const std::string& kv, const char* flag);

// Parses WxH (1 to 16384 each); throws vfx::Error naming `flag` otherwise.
std::pair<uint32_t, uint32_t> parse_size(const std::string& s, const char* flag);

// --preset: when `preset` is set and --chain was not given, replaces `chain` with the preset's
// chain (its enabled stages), `origin` with "preset 'PATH'" (what the run's chain errors start
// with) and logs which preset runs; with --chain, logs a note that the preset is ignored. Throws
// vfx::Error (one line naming the file) for a broken preset.
void apply_preset(std::string& chain, std::string& origin, bool chain_given,
                  const std::string& preset);

// The bundled sample clip and the default chain applied to it.
std::string default_input();

// The input's files on disk, for check_distinct_files, followed by the run's outputs
// (`outputs`: what, path): a regular file, an image sequence's pattern (in_%04d.png), each file a
// glob matches (`--input-opt pattern_type=glob`), each file of FFmpeg's `concat:a|b` protocol;
// nothing for lavfi:/v4l2: sources and other URLs.
std::vector<std::pair<const char*, std::string>> files_of_run(
    const SourceOptions& s, std::vector<std::pair<const char*, std::string>> outputs);
inline constexpr const char* kDefaultChain = "median=radius=1,unsharp=sigma=1:amount=0.5,histogram";

int run_play(const PlayOptions& o);
int run_process(const ProcessOptions& o);
int run_probe(const ProbeOptions& o);
int run_filters(const FiltersOptions& o);
int run_bench(const BenchCliOptions& o);

}  // namespace vfx::ui
