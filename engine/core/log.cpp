#include "core/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

extern "C" {
#include <libavutil/log.h>
}

#include <array>
#include <cstdio>
#include <string>
#include <utility>

namespace vfx {

bool set_log_level(std::string_view level) {
    auto lvl = spdlog::level::from_str(std::string(level));
    // from_str maps unknown names to "off"; only accept "off" when it was asked for.
    if (lvl == spdlog::level::off && level != "off") return false;
    static bool configured = false;
    if (!configured) {
        auto logger = spdlog::stderr_color_mt("vfx");
        logger->set_pattern("[%^%l%$] %v");
        spdlog::set_default_logger(logger);
        configured = true;
    }
    spdlog::set_level(lvl);
    route_ffmpeg_log();
    return true;
}

namespace {
thread_local std::string last_error;

void ffmpeg_callback(void* avcl, int level, const char* fmt, va_list vl) {
    if (level > av_log_get_level()) return;
    static thread_local std::array<char, 1024> line{};
    static thread_local int print_prefix = 1;
    av_log_format_line2(avcl, level, fmt, vl, line.data(), static_cast<int>(line.size()),
                        &print_prefix);
    std::string text(line.data());
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
        text.pop_back();
    if (text.empty()) return;
    if (level <= AV_LOG_ERROR) {
        spdlog::debug("ffmpeg: {}", text);  // the caller reports user-facing errors itself
        size_t at = 0;
        while (at < text.size() && text[at] == '[') {  // "[rawvideo @ 0x5581..] "
            const size_t close = text.find("] ", at);
            if (close == std::string::npos) break;
            at = close + 2;
        }
        last_error = text.substr(at);
        while (!last_error.empty() && last_error.back() == '.')
            last_error.pop_back();
    } else if (level <= AV_LOG_WARNING)
        spdlog::debug("ffmpeg: {}", text);
    else
        spdlog::trace("ffmpeg: {}", text);
}
}  // namespace

std::string take_ffmpeg_error() {
    return std::exchange(last_error, std::string());
}

void route_ffmpeg_log() {
    av_log_set_level(spdlog::get_level() <= spdlog::level::trace ? AV_LOG_VERBOSE : AV_LOG_WARNING);
    av_log_set_callback(ffmpeg_callback);
}

}  // namespace vfx
