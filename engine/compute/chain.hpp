#pragma once
// Filter chains as the user writes them:
//   gaussian=sigma=1.5,unsharp=sigma=1:amount=0.5
// Filters are joined by `,`; a filter's parameters follow `=` as `key=value` pairs joined by `:`.
// A backslash makes the next character literal (`\,` `\:` `\=` `\\`). Keys are mandatory; a
// bare filter name takes every default; whitespace around names, keys and values is ignored.
// An empty (or all-blank) text is the empty chain: no filters, the conversion output passes
// through.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "compute/registry.hpp"

namespace vfx {

// One filter of a chain with a value for every parameter.
struct FilterInstance {
    const FilterInfo* info = nullptr;
    std::vector<ParamValue> values;  // one per info->params, same order

    const std::string& name() const { return info->name; }

    // Typed access by parameter name; throws vfx::Error for an unknown name or another type.
    double get_float(std::string_view param) const;
    int64_t get_int(std::string_view param) const;
    bool get_bool(std::string_view param) const;
    const std::string& get_enum(std::string_view param) const;
    const std::vector<double>& get_float_list(std::string_view param) const;

    // Sets one parameter from its text, validated exactly as parse_chain does (same messages).
    void set(std::string_view param, std::string_view text);

    bool operator==(const FilterInstance&) const = default;
};

// A filter with all its defaults. Throws vfx::Error for an unknown name.
FilterInstance make_filter(std::string_view name);

// The most filters a chain takes (a longer one is refused with one line): far beyond any real
// pipeline, well short of the compile and tuning time a chain of thousands would ask for.
inline constexpr size_t kMaxChainFilters = 64;

struct Chain {
    std::vector<FilterInstance> filters;

    bool empty() const { return filters.empty(); }
    bool operator==(const Chain&) const = default;
};

// Parses chain text. Throws vfx::Error with one line naming the problem, e.g.
//   unknown filter 'gausian' (known: gaussian, unsharp)
//   gaussian: unknown parameter 'sigm' (parameters: sigma)
//   gaussian: sigma=99 is out of range [0.1, 32]
//   gaussian: sigma='abc' is not a number (expected a number in [0.1, 32])
//   gaussian: duplicate parameter 'sigma'
//   malformed chain at character 12: expected '='
//   malformed chain at character 1: empty filter name
Chain parse_chain(std::string_view text);

// Chain text with every parameter written out and values escaped; parse_chain of it gives back
// an equal chain. The empty chain prints as "".
std::string format_chain(const Chain& chain);

// For a source that declares its colour filter array (FFmpeg's bayer_rggb8, bayer_bggr16le...):
// a one-line warning naming the first filter whose `pattern` says otherwise (the colours would
// come out wrong), or the colour filter that would get the mosaic as a grey picture (no
// demosaic first); "" when all is well or the source declares no layout.
std::string cfa_mismatch(const Chain& chain, std::string_view source_pixel_format);

}  // namespace vfx
