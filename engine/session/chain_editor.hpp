#pragma once
// The overlay's chain editor without a window: the stages the user sees (enabled or not),
// the operations the overlay's widgets perform, the chain they hand to the player, and
// preset load/save. Every operation validates first and changes nothing when it throws
// (vfx::Error, one line), so a broken preset or a bad value leaves the editor as it was.
// Single-threaded (the render thread).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "compute/chain.hpp"
#include "compute/preset.hpp"

namespace vfx {

class ChainEditor {
public:
    ChainEditor() = default;
    // Every filter of `chain`, enabled.
    explicit ChainEditor(const Chain& chain);

    // Every stage, enabled or not, in chain order.
    const std::vector<PresetStage>& stages() const { return stages_; }
    size_t size() const { return stages_.size(); }

    // A filter with its defaults, inserted before stage `at` (at == size(): appended).
    // Throws for an unknown filter or `at` > size().
    void insert(size_t at, std::string_view filter);
    void add(std::string_view filter) { insert(size(), filter); }
    void remove(size_t i);
    // Moves stage `from` so that it ends up at index `to` (both < size()).
    void move(size_t from, size_t to);
    void set_enabled(size_t i, bool enabled);
    // One parameter, validated as chain text is (FilterInstance::set; the same messages).
    void set_param(size_t i, std::string_view param, const ParamValue& value);
    void set_param_text(size_t i, std::string_view param, std::string_view text);

    // What runs: the enabled stages, in order. Disabled stages stay in the editor only.
    Chain chain() const;
    std::string chain_text() const { return format_chain(chain()); }

    // Presets (compute/preset.hpp): the stages with their enabled flags, name and description.
    Preset preset() const;
    // Replaces every stage (and the name and description) with the preset's; throws, leaving
    // the editor untouched, when the file is broken.
    void load_preset(const std::string& path);
    // Writes the editor's stages as a preset (atomically); `name` "" keeps the current name
    // (the file's stem when there is none).
    void save_preset(const std::string& path, std::string name = "") const;
    const std::string& name() const { return name_; }
    const std::string& description() const { return description_; }

    // Bumped by every change, to notice one cheaply.
    uint64_t revision() const { return revision_; }

private:
    void check_index(size_t i, const char* what) const;

    std::vector<PresetStage> stages_;
    std::string name_, description_;
    uint64_t revision_ = 0;
};

}  // namespace vfx
