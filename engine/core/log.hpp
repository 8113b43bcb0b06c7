#pragma once
// Logging goes through spdlog's default logger (stderr). The program sets the level from
// --log-level; libraries only log.
#include <spdlog/spdlog.h>

#include <string>
#include <string_view>

namespace vfx {

// Accepts trace, debug, info, warn, error, critical, off. Returns false for anything else.
bool set_log_level(std::string_view level);

// Routes FFmpeg's own av_log output into spdlog at a matching level.
void route_ffmpeg_log();

// The last error FFmpeg logged on this thread since the previous call (its "[ctx @ 0x..] "
// prefix dropped), "" if none: the detail behind an AVERROR(EINVAL) that a user's one-line
// error should carry ("Picture size 100000x100000 is invalid").
std::string take_ffmpeg_error();

}  // namespace vfx
