#include "compute/registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <mutex>

#include "compute/builtin_filters.hpp"
#include "core/error.hpp"

namespace vfx {

std::string_view to_string(FrameKind k) {
    return k == FrameKind::colour ? "colour" : "mosaic";
}

namespace {

struct Registry {
    std::mutex mutex;
    std::vector<std::unique_ptr<FilterInfo>> filters;  // sorted by name
};

bool valid_name(std::string_view s) {
    if (s.empty()) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
}

size_t expected_index(ParamType t) {
    switch (t) {
        case ParamType::float_value:
            return 0;
        case ParamType::int_value:
            return 1;
        case ParamType::enum_value:
            return 2;
        case ParamType::bool_value:
            return 3;
        case ParamType::float_list:
            return 4;
    }
    return 0;
}

void check_spec(const FilterInfo& f, const ParamSpec& p) {
    if (!valid_name(p.name)) fail("filter {}: invalid parameter name '{}'", f.name, p.name);
    if (p.default_value.index() != expected_index(p.type))
        fail("filter {}: default of '{}' is not a {}", f.name, p.name, to_string(p.type));
    auto in_range = [&](double v) { return v >= p.min && v <= p.max; };
    switch (p.type) {
        case ParamType::float_value:
            if (!in_range(std::get<double>(p.default_value)))
                fail("filter {}: default of '{}' is out of its range", f.name, p.name);
            break;
        case ParamType::int_value:
            if (!in_range(static_cast<double>(std::get<int64_t>(p.default_value))))
                fail("filter {}: default of '{}' is out of its range", f.name, p.name);
            break;
        case ParamType::float_list:
            for (double v : std::get<std::vector<double>>(p.default_value))
                if (!in_range(v))
                    fail("filter {}: default of '{}' is out of its range", f.name, p.name);
            break;
        case ParamType::enum_value:
            if (std::find(p.allowed.begin(), p.allowed.end(),
                          std::get<std::string>(p.default_value)) == p.allowed.end())
                fail("filter {}: default of '{}' is not an allowed value", f.name, p.name);
            break;
        case ParamType::bool_value:
            break;
    }
}

void add_locked(Registry& r, FilterInfo info) {
    if (!valid_name(info.name)) fail("invalid filter name '{}'", info.name);
    if (!info.factory) fail("filter {} has no factory", info.name);
    for (size_t i = 0; i < info.params.size(); ++i) {
        check_spec(info, info.params[i]);
        for (size_t j = 0; j < i; ++j)
            if (info.params[j].name == info.params[i].name)
                fail("filter {}: parameter '{}' listed twice", info.name, info.params[i].name);
    }
    auto it = std::lower_bound(r.filters.begin(), r.filters.end(), info.name,
                               [](const auto& f, const std::string& n) { return f->name < n; });
    if (it != r.filters.end() && (*it)->name == info.name)
        fail("filter {} is already registered", info.name);
    r.filters.insert(it, std::make_unique<FilterInfo>(std::move(info)));
}

Registry& registry() {
    static Registry r;
    static std::once_flag once;
    std::call_once(once, [] {
        for (FilterInfo& f : builtin_filters())
            add_locked(r, std::move(f));
    });
    return r;
}

}  // namespace

std::string_view to_string(ParamType t) {
    switch (t) {
        case ParamType::float_value:
            return "float";
        case ParamType::int_value:
            return "int";
        case ParamType::enum_value:
            return "enum";
        case ParamType::bool_value:
            return "bool";
        case ParamType::float_list:
            return "float list";
    }
    return "?";
}

int FilterInfo::param_index(std::string_view param) const {
    for (size_t i = 0; i < params.size(); ++i)
        if (params[i].name == param) return static_cast<int>(i);
    return -1;
}

void register_filter(FilterInfo info) {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    add_locked(r, std::move(info));
}

const FilterInfo* find_filter(std::string_view name) {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    for (const auto& f : r.filters)
        if (f->name == name) return f.get();
    return nullptr;
}

std::vector<const FilterInfo*> registered_filters() {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    std::vector<const FilterInfo*> out;
    out.reserve(r.filters.size());
    for (const auto& f : r.filters)
        out.push_back(f.get());
    return out;
}

std::string format_param_value(const ParamValue& v) {
    switch (v.index()) {
        case 0:
            return fmt::format("{}", std::get<double>(v));
        case 1:
            return fmt::format("{}", std::get<int64_t>(v));
        case 2:
            return std::get<std::string>(v);
        case 3:
            return std::get<bool>(v) ? "true" : "false";
        case 4:
            return fmt::format("{}", fmt::join(std::get<std::vector<double>>(v), "|"));
    }
    return {};
}

ParamSpec float_param(const char* name, double def, double min, double max, const char* help) {
    ParamSpec p;
    p.name = name;
    p.type = ParamType::float_value;
    p.default_value = def;
    p.min = min;
    p.max = max;
    p.help = help;
    return p;
}

ParamSpec int_param(const char* name, int64_t def, double min, double max, const char* help) {
    ParamSpec p = float_param(name, 0, min, max, help);
    p.type = ParamType::int_value;
    p.default_value = def;
    return p;
}

ParamSpec enum_param(const char* name, const char* def, std::vector<std::string> allowed,
                     const char* help) {
    ParamSpec p;
    p.name = name;
    p.type = ParamType::enum_value;
    p.default_value = std::string(def);
    p.allowed = std::move(allowed);
    p.help = help;
    return p;
}

std::string filter_help(const FilterInfo& info) {
    std::string out = fmt::format("{}: {}\n", info.name, info.help);
    for (const ParamSpec& p : info.params) {
        std::string kind;
        switch (p.type) {
            case ParamType::float_value:
                kind = fmt::format("<float> in [{}, {}]", p.min, p.max);
                break;
            case ParamType::int_value:
                kind = fmt::format("<int> in [{}, {}]", static_cast<int64_t>(p.min),
                                   static_cast<int64_t>(p.max));
                break;
            case ParamType::enum_value:
                kind = fmt::format("<{}>", fmt::join(p.allowed, "|"));
                break;
            case ParamType::bool_value:
                kind = "<true|false>";
                break;
            case ParamType::float_list:
                kind = fmt::format("<float|float|...> each in [{}, {}]", p.min, p.max);
                break;
        }
        out += fmt::format("  {}={}, default {}: {}\n", p.name, kind,
                           format_param_value(p.default_value), p.help);
    }
    return out;
}

}  // namespace vfx
