#pragma once
// Presets: a chain with its values, a name and a description, saved as JSON.
//
//   {"vfx_preset": 1, "name": "Soft", "description": "one line",
//    "chain": [{"filter": "gaussian", "enabled": true, "params": {"sigma": 1.5}},
//              {"filter": "unsharp", "enabled": false, "params": {"amount": 0.5}}]}
//
// Values are JSON numbers (float and int parameters), strings (enum), booleans (bool) and
// arrays of numbers (float lists). A missing parameter takes its default; "enabled" defaults to
// true, and a disabled stage stays in the preset (and is written back on save) but is not part
// of the chain that runs. "name", "description" and "enabled" are optional; nothing else may
// appear. Every value is validated exactly as parse_chain validates chain text.
//
// Errors are vfx::Error with one line that names the file (`origin`), the stage and filter, the
// parameter and what is wrong, e.g.
//   presets/soft.json: chain[0]: gaussian: sigma=99 is out of range [0.1, 32]
//   presets/soft.json: chain[1]: unsharp: amount must be a number in [0, 5], not a string
//   presets/soft.json: not JSON: parse error at line 3, column 1: ...
//   presets/soft.json: unsupported preset version 2 (this vfx reads version 1)
// Loading either returns a whole chain or throws: a caller that assigns the result keeps its
// current chain when the file is broken.
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "compute/chain.hpp"

namespace vfx {

inline constexpr int kPresetVersion = 1;

struct PresetStage {
    FilterInstance filter;
    bool enabled = true;

    bool operator==(const PresetStage&) const = default;
};

struct Preset {
    std::string name;
    std::string description;
    std::vector<PresetStage> stages;  // every stage of the file, enabled or not, in order

    // The chain that runs: the enabled stages, in order.
    Chain chain() const;

    bool operator==(const Preset&) const = default;
};

// A preset of every filter of `chain`, all enabled.
Preset make_preset(const Chain& chain, std::string name, std::string description);

// Parses and validates a preset document; `origin` (usually the file name) starts every message.
Preset parse_preset(const nlohmann::json& doc, std::string_view origin);
// Reads a preset file (its path is the origin of messages).
Preset read_preset(const std::string& path);

// The chain that runs, i.e. parse_preset(...).chain() / read_preset(path).chain().
Chain preset_from_json(const nlohmann::json& doc, std::string_view origin);
Chain load_preset(const std::string& path);

nlohmann::json preset_to_json(const Preset& preset);
nlohmann::json preset_to_json(const Chain& chain, std::string name, std::string description);

// The preset file's text: indented JSON and a final newline (what save_preset writes).
std::string preset_text(const Preset& preset);

// Writes the preset as indented JSON, atomically: a temporary file next to `path`, renamed over
// it once complete. Throws vfx::Error naming `path` when it cannot be written.
void save_preset(const std::string& path, const Preset& preset);
void save_preset(const std::string& path, const Chain& chain, std::string name,
                 std::string description);

}  // namespace vfx
