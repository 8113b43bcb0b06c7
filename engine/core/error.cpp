#include "core/error.hpp"

namespace vfx {

std::string printable_line(std::string text) {
    std::string out;
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x20 || c == 0x7f)
            out += fmt::format("\\x{:02x}", c);
        else
            out += ch;
    }
    return out;
}

}  // namespace vfx
