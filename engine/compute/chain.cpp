#include "compute/chain.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/error.hpp"

namespace vfx {

namespace {

bool is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

std::string known_filters() {
    std::vector<std::string> names;
    for (const FilterInfo* f : registered_filters())
        names.push_back(f->name);
    return fmt::format("{}", fmt::join(names, ", "));
}

std::string param_names(const FilterInfo& f) {
    if (f.params.empty()) return "none";
    std::vector<std::string> names;
    for (const ParamSpec& p : f.params)
        names.push_back(p.name);
    return fmt::format("{}", fmt::join(names, ", "));
}

const FilterInfo& lookup_filter(std::string_view name) {
    const FilterInfo* f = find_filter(name);
    if (!f) fail("unknown filter '{}' (known: {})", name, known_filters());
    return *f;
}

size_t lookup_param(const FilterInfo& f, std::string_view param) {
    const int i = f.param_index(param);
    if (i < 0) fail("{}: unknown parameter '{}' (parameters: {})", f.name, param, param_names(f));
    return static_cast<size_t>(i);
}

// Whole-string number parsing (no leading '+' in from_chars: accepted here once).
bool parse_double(std::string_view s, double& out) {
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    if (s.empty()) return false;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size() && std::isfinite(out);
}

bool parse_int(std::string_view s, int64_t& out) {
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    if (s.empty()) return false;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size();
}

ParamValue parse_value(const FilterInfo& f, const ParamSpec& p, std::string_view text) {
    switch (p.type) {
        case ParamType::float_value: {
            double v = 0;
            if (!parse_double(text, v))
                fail("{}: {}='{}' is not a number (expected a number in [{}, {}])", f.name, p.name,
                     text, p.min, p.max);
            if (v < p.min || v > p.max)
                fail("{}: {}={} is out of range [{}, {}]", f.name, p.name, text, p.min, p.max);
            return v;
        }
        case ParamType::int_value: {
            int64_t v = 0;
            const auto lo = static_cast<int64_t>(p.min), hi = static_cast<int64_t>(p.max);
            if (!parse_int(text, v))
                fail("{}: {}='{}' is not an integer (expected an integer in [{}, {}])", f.name,
                     p.name, text, lo, hi);
            if (v < lo || v > hi)
                fail("{}: {}={} is out of range [{}, {}]", f.name, p.name, text, lo, hi);
            return v;
        }
        case ParamType::enum_value:
            if (std::find(p.allowed.begin(), p.allowed.end(), text) == p.allowed.end())
                fail("{}: {}='{}' is not one of: {}", f.name, p.name, text,
                     fmt::join(p.allowed, ", "));
            return std::string(text);
        case ParamType::bool_value:
            if (text == "true" || text == "1" || text == "yes" || text == "on") return true;
            if (text == "false" || text == "0" || text == "no" || text == "off") return false;
            fail("{}: {}='{}' is not a boolean (expected true or false)", f.name, p.name, text);
        case ParamType::float_list: {
            std::vector<double> list;
            if (text.empty()) return list;
            size_t pos = 0;
            while (true) {
                const size_t bar = text.find('|', pos);
                const std::string_view item =
                    text.substr(pos, bar == std::string_view::npos ? text.npos : bar - pos);
                double v = 0;
                if (!parse_double(item, v))
                    fail(
                        "{}: {}='{}' is not a list of numbers (expected numbers in [{}, {}] "
                        "separated by '|')",
                        f.name, p.name, text, p.min, p.max);
                if (v < p.min || v > p.max)
                    fail("{}: {}={}: {} is out of range [{}, {}]", f.name, p.name, text, item,
                         p.min, p.max);
                list.push_back(v);
                if (bar == std::string_view::npos) break;
                pos = bar + 1;
            }
            return list;
        }
    }
    fail("{}: {}: unsupported parameter type", f.name, p.name);
}

// Cursor over the chain text; positions in messages are 1-based characters.
class Parser {
public:
    explicit Parser(std::string_view text) : s_(text) {}

    Chain parse() {
        Chain chain;
        skip_blanks();
        if (at_end()) return chain;
        while (true) {
            if (chain.filters.size() == kMaxChainFilters)
                fail("the chain has more than {} filters", kMaxChainFilters);
            chain.filters.push_back(parse_filter());
            const FilterInstance& f = chain.filters.back();
            if (f.info->check) f.info->check(f);
            if (at_end()) break;
            // parse_filter stops only at the end or at an unescaped ','.
            ++pos_;
        }
        return chain;
    }

private:
    [[noreturn]] void malformed(size_t at, std::string_view what) const {
        fail("malformed chain at character {}: {}", at + 1, what);
    }
    bool at_end() const { return pos_ >= s_.size(); }
    char cur() const { return s_[pos_]; }
    void skip_blanks() {
        while (!at_end() && is_blank(cur()))
            ++pos_;
    }

    // A run of text up to an unescaped character of `stops` (or the end), escapes resolved,
    // unescaped blanks at both ends trimmed. `start` receives where the token began.
    std::string token(std::string_view stops, size_t& start) {
        skip_blanks();
        start = pos_;
        std::string out;
        size_t keep = 0;  // length of `out` up to its last character that is not a plain blank
        while (!at_end() && stops.find(cur()) == std::string_view::npos) {
            if (cur() == '\\') {
                if (pos_ + 1 >= s_.size()) malformed(pos_, "trailing backslash");
                out += s_[pos_ + 1];
                keep = out.size();
                pos_ += 2;
                continue;
            }
            out += cur();
            if (!is_blank(cur())) keep = out.size();
            ++pos_;
        }
        out.resize(keep);
        return out;
    }

    FilterInstance parse_filter() {
        size_t start = 0;
        const std::string name = token(",=:", start);
        if (name.empty()) malformed(start, "empty filter name");
        if (!at_end() && cur() == ':') malformed(pos_, "expected '=' or ','");
        FilterInstance inst = make_filter(name);
        if (at_end() || cur() == ',') return inst;
        ++pos_;  // '='
        std::vector<bool> seen(inst.info->params.size(), false);
        while (true) {
            const std::string key = token(",=:", start);
            if (key.empty()) malformed(start, "empty parameter name");
            if (at_end() || cur() != '=') malformed(pos_, "expected '='");
            ++pos_;
            const size_t index = lookup_param(*inst.info, key);
            if (seen[index]) fail("{}: duplicate parameter '{}'", name, key);
            seen[index] = true;
            const std::string value = token(",:=", start);
            if (!at_end() && cur() == '=')
                malformed(pos_, fmt::format("unexpected '=' in the value of '{}' (write \\= for "
                                            "a literal '=')",
                                            key));
            inst.values[index] = parse_value(*inst.info, inst.info->params[index], value);
            if (at_end() || cur() == ',') return inst;
            ++pos_;  // ':'
        }
    }

    std::string_view s_;
    size_t pos_ = 0;
};

std::string escape(std::string_view v) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) {
        const char c = v[i];
        // Blanks at either end would be trimmed by the parser: escape them too.
        const bool edge_blank = is_blank(c) && (i == 0 || i + 1 == v.size());
        if (c == ',' || c == ':' || c == '=' || c == '\\' || edge_blank) out += '\\';
        out += c;
    }
    return out;
}

template <typename T>
const T& typed(const FilterInstance& f, std::string_view param, ParamType want) {
    const size_t i = lookup_param(*f.info, param);
    const ParamSpec& p = f.info->params[i];
    if (p.type != want)
        fail("{}: parameter '{}' is a {}, not a {}", f.info->name, param, to_string(p.type),
             to_string(want));
    return std::get<T>(f.values[i]);
}

}  // namespace

double FilterInstance::get_float(std::string_view param) const {
    return typed<double>(*this, param, ParamType::float_value);
}
int64_t FilterInstance::get_int(std::string_view param) const {
    return typed<int64_t>(*this, param, ParamType::int_value);
}
bool FilterInstance::get_bool(std::string_view param) const {
    return typed<bool>(*this, param, ParamType::bool_value);
}
const std::string& FilterInstance::get_enum(std::string_view param) const {
    return typed<std::string>(*this, param, ParamType::enum_value);
}
const std::vector<double>& FilterInstance::get_float_list(std::string_view param) const {
    return typed<std::vector<double>>(*this, param, ParamType::float_list);
}

void FilterInstance::set(std::string_view param, std::string_view text) {
    const size_t i = lookup_param(*info, param);
    values[i] = parse_value(*info, info->params[i], text);
}

FilterInstance make_filter(std::string_view name) {
    FilterInstance inst;
    inst.info = &lookup_filter(name);
    for (const ParamSpec& p : inst.info->params)
        inst.values.push_back(p.default_value);
    return inst;
}

Chain parse_chain(std::string_view text) {
    return Parser(text).parse();
}

std::string cfa_mismatch(const Chain& chain, std::string_view pix_fmt) {
    constexpr std::string_view prefix = "bayer_";
    if (!pix_fmt.starts_with(prefix) || pix_fmt.size() < prefix.size() + 4) return {};
    const std::string_view declared = pix_fmt.substr(prefix.size(), 4);
    // A chain whose first filter reading one kind reads colour gets the mosaic as a grey
    // picture (FrameProcessor::enqueue): legal, but rarely what a raw input wants.
    for (size_t i = 0; i < chain.filters.size(); ++i) {
        const FilterInfo& info = *chain.filters[i].info;
        if (info.takes_colour == info.takes_mosaic) continue;
        if (info.takes_colour)
            return fmt::format(
                "'{}' (filter {}) reads colour, so it gets the source's {} mosaic as a grey "
                "picture; start the chain with demosaic=pattern={}",
                info.name, i + 1, pix_fmt, declared);
        break;
    }
    for (size_t i = 0; i < chain.filters.size(); ++i) {
        const FilterInstance& f = chain.filters[i];
        if (f.info->param_index("pattern") < 0) continue;
        const std::string& pattern = f.get_enum("pattern");
        if (pattern != declared)
            return fmt::format(
                "'{}' (filter {}) reads the mosaic as {}, but the source is {} ({}): colours will "
                "be wrong; give it pattern={}",
                f.info->name, i + 1, pattern, pix_fmt, declared, declared);
    }
    return {};
}

std::string format_chain(const Chain& chain) {
    std::string out;
    for (size_t i = 0; i < chain.filters.size(); ++i) {
        const FilterInstance& f = chain.filters[i];
        if (i > 0) out += ',';
        out += f.info->name;
        for (size_t j = 0; j < f.info->params.size(); ++j) {
            out += j == 0 ? '=' : ':';
            out += f.info->params[j].name;
            out += '=';
            out += escape(format_param_value(f.values[j]));
        }
    }
    return out;
}

}  // namespace vfx
