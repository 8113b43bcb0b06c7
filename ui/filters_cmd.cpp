// `vfx filters`: every registered filter and its parameters, for people or (--json) for tools.
// Both come from the registry, the same source the chain parser and the overlay use.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "compute/chain.hpp"
#include "compute/registry.hpp"
#include "options.hpp"

namespace vfx::ui {

namespace {

nlohmann::json value_json(const ParamValue& v) {
    return std::visit([](const auto& x) { return nlohmann::json(x); }, v);
}

}  // namespace

nlohmann::json filters_json() {
    nlohmann::json out = nlohmann::json::array();
    for (const FilterInfo* f : registered_filters()) {
        nlohmann::json params = nlohmann::json::array();
        for (const ParamSpec& p : f->params) {
            nlohmann::json j = {{"name", p.name},
                                {"type", std::string(to_string(p.type))},
                                {"default", value_json(p.default_value)},
                                {"help", p.help}};
            if (p.type == ParamType::enum_value) {
                j["allowed"] = p.allowed;
            } else if (p.type != ParamType::bool_value) {
                j["min"] = p.min;
                j["max"] = p.max;
            }
            params.push_back(std::move(j));
        }
        nlohmann::json takes = nlohmann::json::array();
        for (FrameKind k : {FrameKind::colour, FrameKind::mosaic})
            if (f->takes(k)) takes.push_back(std::string(to_string(k)));
        const char* gives = f->output == OutputKind::same     ? "same"
                            : f->output == OutputKind::colour ? "colour"
                                                              : "mosaic";
        out.push_back({{"name", f->name},
                       {"help", f->help},
                       {"pointwise", f->pointwise},
                       {"takes", std::move(takes)},
                       {"gives", gives},
                       {"uses_chain_input", f->uses_chain_input},
                       {"params", std::move(params)}});
    }
    return out;
}

int run_filters(const FiltersOptions& o) {
    if (o.json) {
        std::printf("%s\n", filters_json().dump(2).c_str());
        return 0;
    }
    std::printf("Filters (chain syntax: name=key=value:key=value,name2...):\n\n");
    for (const FilterInfo* f : registered_filters())
        std::printf("%s\n", filter_help(*f).c_str());
    return 0;
}

}  // namespace vfx::ui
