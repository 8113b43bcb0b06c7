#pragma once
// Kernels and shaders embedded at build time (cmake/Embed.cmake generates the tables).
#include <cstdint>
#include <span>
#include <string_view>

namespace vfx {

struct EmbeddedText {
    std::string_view name;  // file name, e.g. "convert.cl"
    std::string_view text;
};

struct EmbeddedSpirv {
    std::string_view name;  // source file name, e.g. "video.frag"
    std::span<const uint32_t> words;
};

std::span<const EmbeddedText> embedded_kernels();
std::span<const EmbeddedSpirv> embedded_shaders();

}  // namespace vfx
