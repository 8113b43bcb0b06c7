#include "compute/preset.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <vector>

#include "core/error.hpp"
#include "core/files.hpp"

namespace vfx {

namespace {

using nlohmann::json;

// nlohmann's messages start with "[json.exception.parse_error.101] "; the rest is one line.
std::string json_message(const json::exception& e) {
    std::string m = e.what();
    if (!m.empty() && m.front() == '[') {
        const size_t close = m.find("] ");
        if (close != std::string::npos) m.erase(0, close + 2);
    }
    for (char& c : m)
        if (c == '\n' || c == '\r') c = ' ';
    return m;
}

std::string range_text(const ParamSpec& p) {
    if (p.type == ParamType::int_value)
        return fmt::format("[{}, {}]", static_cast<int64_t>(p.min), static_cast<int64_t>(p.max));
    return fmt::format("[{}, {}]", p.min, p.max);
}

std::string number_text(const json& v) {
    if (v.is_number_unsigned()) return std::to_string(v.get<uint64_t>());
    if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
    return fmt::format("{}", v.get<double>());
}

// A JSON value as the chain text FilterInstance::set validates, after checking its JSON type.
std::string value_text(const FilterInfo& f, const ParamSpec& p, const json& v) {
    const auto wrong = [&](std::string_view expected) {
        fail("{}: {} must be {}, not {} {}", f.name, p.name, expected,
             v.is_array() || v.is_object() ? "an" : "a", v.type_name());
    };
    switch (p.type) {
        case ParamType::float_value:
            if (!v.is_number()) wrong(fmt::format("a number in {}", range_text(p)));
            return number_text(v);
        case ParamType::int_value:
            if (!v.is_number()) wrong(fmt::format("an integer in {}", range_text(p)));
            return number_text(v);
        case ParamType::enum_value:
            if (!v.is_string())
                wrong(fmt::format("a string (one of: {})", fmt::join(p.allowed, ", ")));
            return v.get<std::string>();
        case ParamType::bool_value:
            if (!v.is_boolean()) wrong("true or false");
            return v.get<bool>() ? "true" : "false";
        case ParamType::float_list: {
            const std::string expected = fmt::format("an array of numbers in {}", range_text(p));
            if (!v.is_array()) wrong(expected);
            std::string text;
            for (const json& item : v) {
                if (!item.is_number())
                    fail("{}: {} must be {}, not an array holding {} {}", f.name, p.name, expected,
                         item.is_array() || item.is_object() ? "an" : "a", item.type_name());
                if (!text.empty()) text += '|';
                text += number_text(item);
            }
            return text;
        }
    }
    fail("{}: {}: unsupported parameter type", f.name, p.name);
}

json value_json(const ParamValue& v) {
    return std::visit([](const auto& x) { return json(x); }, v);
}

void check_keys(const json& obj, std::initializer_list<std::string_view> known,
                std::string_view where) {
    for (const auto& [key, value] : obj.items()) {
        bool ok = false;
        for (std::string_view k : known)
            ok = ok || key == k;
        if (!ok) fail("{}unknown key \"{}\" (keys: {})", where, key, fmt::join(known, ", "));
    }
}

PresetStage parse_stage(const json& s) {
    if (!s.is_object())
        fail("must be an object like {{\"filter\": \"gaussian\", \"params\": {{...}}}}, not {} {}",
             s.is_array() ? "an" : "a", s.type_name());
    const auto filter = s.find("filter");
    if (filter == s.end() || !filter->is_string())
        fail("\"filter\" must be a filter name (a string)");
    PresetStage stage{make_filter(filter->get<std::string>()), true};
    const FilterInfo& info = *stage.filter.info;
    check_keys(s, {"filter", "enabled", "params"}, fmt::format("{}: ", info.name));
    if (const auto en = s.find("enabled"); en != s.end()) {
        if (!en->is_boolean())
            fail("{}: \"enabled\" must be true or false, not {}", info.name, en->type_name());
        stage.enabled = en->get<bool>();
    }
    if (const auto params = s.find("params"); params != s.end()) {
        if (!params->is_object())
            fail("{}: \"params\" must be an object of parameter values, not {} {}", info.name,
                 params->is_array() ? "an" : "a", params->type_name());
        for (const auto& [key, value] : params->items()) {
            const int i = info.param_index(key);
            // An unknown name: let set() give parse_chain's message (it lists the parameters).
            const std::string text =
                i < 0 ? std::string()
                      : value_text(info, info.params[static_cast<size_t>(i)], value);
            stage.filter.set(key, text);
        }
    }
    if (info.check) info.check(stage.filter);
    return stage;
}

}  // namespace

Chain Preset::chain() const {
    Chain c;
    for (const PresetStage& s : stages)
        if (s.enabled) c.filters.push_back(s.filter);
    return c;
}

Preset make_preset(const Chain& chain, std::string name, std::string description) {
    Preset p;
    p.name = std::move(name);
    p.description = std::move(description);
    for (const FilterInstance& f : chain.filters)
        p.stages.push_back({f, true});
    return p;
}

Preset parse_preset(const json& doc, std::string_view origin) {
    if (!doc.is_object() || !doc.contains("vfx_preset"))
        fail("{}: not a vfx preset (expected a JSON object with \"vfx_preset\": {})", origin,
             kPresetVersion);
    const json& version = doc["vfx_preset"];
    if (!version.is_number_integer() || version.get<int64_t>() != kPresetVersion)
        fail("{}: unsupported preset version {} (this vfx reads version {})", origin,
             version.dump(), kPresetVersion);
    check_keys(doc, {"vfx_preset", "name", "description", "chain"}, fmt::format("{}: ", origin));
    Preset p;
    for (const auto& [key, out] : {std::pair{"name", &p.name}, {"description", &p.description}}) {
        if (const auto v = doc.find(key); v != doc.end()) {
            if (!v->is_string())
                fail("{}: \"{}\" must be a string, not {} {}", origin, key,
                     v->is_array() || v->is_object() ? "an" : "a", v->type_name());
            *out = v->get<std::string>();
        }
    }
    const auto chain = doc.find("chain");
    if (chain == doc.end() || !chain->is_array())
        fail("{}: \"chain\" must be an array of stages ({})", origin,
             chain == doc.end() ? "missing" : fmt::format("found {}", chain->type_name()));
    if (chain->size() > kMaxChainFilters)
        fail("{}: the chain has {} stages; at most {}", origin, chain->size(), kMaxChainFilters);
    for (size_t i = 0; i < chain->size(); ++i) {
        try {
            p.stages.push_back(parse_stage((*chain)[i]));
        } catch (const Error& e) {
            fail("{}: chain[{}]: {}", origin, i, e.what());
        }
    }
    return p;
}

Preset read_preset(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) fail("{}: a folder, not a preset file", path);
    std::ifstream in(path, std::ios::binary);
    if (!in) fail("{}: cannot read preset: {}", path, std::strerror(errno));
    // Presets are a few kilobytes; a bound keeps /dev/zero or a video named .json from
    // filling memory.
    constexpr size_t kMaxPresetBytes = 1 << 20;
    std::string text(kMaxPresetBytes + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    if (in.bad()) fail("{}: cannot read preset", path);
    if (static_cast<size_t>(in.gcount()) > kMaxPresetBytes)
        fail("{}: larger than 1 MiB, not a preset", path);
    text.resize(static_cast<size_t>(in.gcount()));
    // Each object's keys once: a repeated key would otherwise silently take the last value
    // (a chain's text refuses a repeated parameter too).
    std::vector<std::set<std::string>> keys;
    std::string repeated;
    const json::parser_callback_t once = [&](int, json::parse_event_t ev, json& v) {
        if (ev == json::parse_event_t::object_start) keys.emplace_back();
        if (ev == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
        if (ev == json::parse_event_t::key && !keys.empty() &&
            !keys.back().insert(v.get<std::string>()).second && repeated.empty())
            repeated = v.get<std::string>();
        return true;
    };
    json doc;
    try {
        doc = json::parse(text, once);
    } catch (const json::exception& e) {
        fail("{}: not JSON: {}", path, json_message(e));
    }
    if (!repeated.empty()) fail("{}: key \"{}\" appears twice in one object", path, repeated);
    return parse_preset(doc, path);
}

Chain preset_from_json(const json& doc, std::string_view origin) {
    return parse_preset(doc, origin).chain();
}

Chain load_preset(const std::string& path) {
    return read_preset(path).chain();
}

json preset_to_json(const Preset& preset) {
    json stages = json::array();
    for (const PresetStage& s : preset.stages) {
        json params = json::object();
        const FilterInfo& info = *s.filter.info;
        for (size_t i = 0; i < info.params.size(); ++i)
            params[info.params[i].name] = value_json(s.filter.values[i]);
        stages.push_back({{"filter", info.name}, {"enabled", s.enabled}, {"params", params}});
    }
    return {{"vfx_preset", kPresetVersion},
            {"name", preset.name},
            {"description", preset.description},
            {"chain", stages}};
}

json preset_to_json(const Chain& chain, std::string name, std::string description) {
    return preset_to_json(make_preset(chain, std::move(name), std::move(description)));
}

std::string preset_text(const Preset& preset) {
    return preset_to_json(preset).dump(2) + "\n";
}

void save_preset(const std::string& path, const Preset& preset) {
    write_text_file(path, preset_text(preset), "preset").publish();
}

void save_preset(const std::string& path, const Chain& chain, std::string name,
                 std::string description) {
    save_preset(path, make_preset(chain, std::move(name), std::move(description)));
}

}  // namespace vfx
