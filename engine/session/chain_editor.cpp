#include "session/chain_editor.hpp"

#include <filesystem>

#include "core/error.hpp"

namespace vfx {

ChainEditor::ChainEditor(const Chain& chain) {
    for (const FilterInstance& f : chain.filters)
        stages_.push_back({f, true});
}

void ChainEditor::check_index(size_t i, const char* what) const {
    if (i >= stages_.size())
        fail("chain editor: {}: no stage {} (the chain has {})", what, i + 1, stages_.size());
}

void ChainEditor::insert(size_t at, std::string_view filter) {
    if (at > stages_.size())
        fail("chain editor: insert: position {} is past the end ({} stages)", at + 1,
             stages_.size());
    if (stages_.size() >= kMaxChainFilters)
        fail("chain editor: the chain has {} stages, the most it takes", stages_.size());
    FilterInstance f = make_filter(filter);
    stages_.insert(stages_.begin() + static_cast<std::ptrdiff_t>(at), {std::move(f), true});
    ++revision_;
}

void ChainEditor::remove(size_t i) {
    check_index(i, "remove");
    stages_.erase(stages_.begin() + static_cast<std::ptrdiff_t>(i));
    ++revision_;
}

void ChainEditor::move(size_t from, size_t to) {
    check_index(from, "move");
    check_index(to, "move");
    if (from == to) return;
    PresetStage s = std::move(stages_[from]);
    stages_.erase(stages_.begin() + static_cast<std::ptrdiff_t>(from));
    stages_.insert(stages_.begin() + static_cast<std::ptrdiff_t>(to), std::move(s));
    ++revision_;
}

void ChainEditor::set_enabled(size_t i, bool enabled) {
    check_index(i, "enable");
    if (stages_[i].enabled == enabled) return;
    stages_[i].enabled = enabled;
    ++revision_;
}

void ChainEditor::set_param(size_t i, std::string_view param, const ParamValue& value) {
    set_param_text(i, param, format_param_value(value));
}

void ChainEditor::set_param_text(size_t i, std::string_view param, std::string_view text) {
    check_index(i, "set");
    FilterInstance f = stages_[i].filter;
    f.set(param, text);  // throws: the stage is untouched
    if (f == stages_[i].filter) return;
    stages_[i].filter = std::move(f);
    ++revision_;
}

Chain ChainEditor::chain() const {
    return preset().chain();
}

Preset ChainEditor::preset() const {
    Preset p;
    p.name = name_;
    p.description = description_;
    p.stages = stages_;
    return p;
}

void ChainEditor::load_preset(const std::string& path) {
    Preset p = read_preset(path);  // throws: nothing changed
    stages_ = std::move(p.stages);
    name_ = std::move(p.name);
    description_ = std::move(p.description);
    ++revision_;
}

void ChainEditor::save_preset(const std::string& path, std::string name) const {
    Preset p = preset();
    if (!name.empty())
        p.name = std::move(name);
    else if (p.name.empty())
        p.name = std::filesystem::path(path).stem().string();
    vfx::save_preset(path, p);
}

}  // namespace vfx
