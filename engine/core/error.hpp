#pragma once
// Two kinds of failure, kept apart so the program can answer each correctly:
//  - vfx::Error: something the user caused or can fix (bad file, bad chain, bad option). Its
//    message is one complete line for the user; the program prints it and exits with status 1.
//  - vfx::GpuError: an API call failed (OpenCL, Vulkan, FFmpeg internals). The check macros log
//    the call, the decoded error and file:line before throwing it.
#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace vfx {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class GpuError : public std::runtime_error {
public:
    GpuError(std::string msg, int code) : std::runtime_error(std::move(msg)), code_(code) {}
    int code() const { return code_; }

private:
    int code_;
};

// The message as one printable line: control characters that came in with what the user gave
// (a NUL or an escape sequence in a preset's filter name, a newline in a path, a C1 control) and
// bytes that are not well-formed UTF-8 (a Latin-1 file name, a broken preset) shown as \xNN, so
// that none cuts the line short or reaches the terminal raw. Well-formed UTF-8 stays as it is.
std::string printable_line(std::string text);

template <typename... Args>
[[noreturn]] void fail(fmt::format_string<Args...> f, Args&&... args) {
    throw Error(printable_line(fmt::format(f, std::forward<Args>(args)...)));
}

}  // namespace vfx
