#include "support/media.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace fs = std::filesystem;

namespace vfx::test {

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

std::string make_media(const std::string& name, const std::string& args) {
    fs::path path = fs::path(VFX_TEST_MEDIA) / name;
    if (fs::exists(path) && fs::file_size(path) > 0) return path.string();
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

std::string scratch_dir() {
    // One folder per test (ctest -j runs tests of one suite in parallel processes), emptied the
    // first time the test asks for it.
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "common";
    for (char& c : name)
        if (c == '/') c = '_';
    fs::path d = fs::path(VFX_TEST_MEDIA).parent_path() / "scratch" / name;
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
    return VFX_BINARY;
}

}  // namespace vfx::test
