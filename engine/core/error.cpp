#include "core/error.hpp"

namespace vfx {

namespace {

// The length of the well-formed UTF-8 sequence at s[i] (Unicode's table 3-7: no overlong forms,
// no surrogates, nothing past U+10FFFF), or 0. C1 controls (U+0080..U+009F) count as not
// printable: 0.
size_t utf8_length(const std::string& s, size_t i) {
    const auto at = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const unsigned char c = at(0);
    size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    if (n == 0 || i + n > s.size() || at(1) < lo || at(1) > hi) return 0;
    for (size_t k = 2; k < n; ++k)
        if (at(k) < 0x80 || at(k) > 0xBF) return 0;
    if (c == 0xC2 && at(1) <= 0x9F) return 0;  // C1 control
    return n;
}

}  // namespace

std::string printable_line(std::string text) {
    std::string out;
    for (size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        const size_t n = c < 0x80 ? (c < 0x20 || c == 0x7f ? 0 : 1) : utf8_length(text, i);
        if (n == 0) {
            out += fmt::format("\\x{:02x}", c);
            ++i;
        } else {
            out.append(text, i, n);
            i += n;
        }
    }
    return out;
}

}  // namespace vfx
