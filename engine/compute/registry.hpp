#pragma once
// The filter registry: every filter the chain text may name, with its parameters and the
// factory of its GPU implementation. Built-in filters are registered on first use.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace vfx {

class ClContext;
class GpuFilter;
struct FilterInstance;

enum class ParamType : uint8_t { float_value, int_value, enum_value, bool_value, float_list };
std::string_view to_string(ParamType t);  // "float", "int", "enum", "bool", "float list"

// The value of one parameter; the alternative follows ParamType:
// float -> double, int -> int64_t, enum -> std::string (one of `allowed`), bool -> bool,
// float_list -> std::vector<double> (written `a|b|c` in chain text).
using ParamValue = std::variant<double, int64_t, std::string, bool, std::vector<double>>;

struct ParamSpec {
    std::string name;
    ParamType type = ParamType::float_value;
    ParamValue default_value = 0.0;
    double min = 0, max = 0;           // inclusive range: float, int, each float_list element
    std::vector<std::string> allowed;  // enum values
    std::string help;                  // one line
};

// Builders for registrations: a float or int parameter with its default, inclusive range and
// one-line help; an enum with its default and allowed values.
ParamSpec float_param(const char* name, double def, double min, double max, const char* help);
ParamSpec int_param(const char* name, int64_t def, double min, double max, const char* help);
ParamSpec enum_param(const char* name, const char* def, std::vector<std::string> allowed,
                     const char* help);

using FilterFactory = std::function<std::unique_ptr<GpuFilter>(ClContext&, const FilterInstance&)>;

// What a chain carries between two stages: a colour frame (rgba8/rgba16) or a sensor mosaic
// (one channel, mono8/mono16; see core/format.hpp).
enum class FrameKind : uint8_t { colour, mosaic };
std::string_view to_string(FrameKind k);  // "colour", "mosaic"

// The kind a filter's output has: the same as its input, or a fixed one.
enum class OutputKind : uint8_t { same, colour, mosaic };

struct FilterInfo {
    std::string name;  // [a-z0-9_]+
    std::string help;  // one line
    std::vector<ParamSpec> params;
    bool pointwise = false;  // output pixel depends only on the same input pixel
    FilterFactory factory;
    // Frame kinds the filter reads, and what it writes. The defaults are a colour -> colour
    // filter; FrameProcessor checks a chain's kinds against its source before a frame's work.
    bool takes_colour = true;
    bool takes_mosaic = false;
    OutputKind output = OutputKind::same;
    // Reads FilterIo::input (the chain's input frame): the processor keeps it alive through
    // the chain (one more frame buffer) only when a filter of the chain says so.
    bool uses_chain_input = false;
    // Reads the frame and writes nothing to it (statistics: the histogram). The processor
    // hands it the current frame as both FilterIo::src and dst and the frame goes on
    // unchanged, with no copy. It must not write io.dst when io.dst == io.src.
    bool observes = false;
    // Values each within its range that do not fit together (ccm's nine matrix values,
    // blacklevel's white above black): parse_chain and presets call it, so such a chain is
    // refused with one line before any work. Throws vfx::Error; optional.
    std::function<void(const FilterInstance&)> check;

    bool takes(FrameKind k) const { return k == FrameKind::colour ? takes_colour : takes_mosaic; }
    FrameKind output_kind(FrameKind in) const {
        return output == OutputKind::same     ? in
               : output == OutputKind::colour ? FrameKind::colour
                                              : FrameKind::mosaic;
    }

    // Index into `params`, -1 when there is no such parameter.
    int param_index(std::string_view param) const;
};

// Adds a filter. Throws vfx::Error for a duplicate or invalid name, a parameter listed twice,
// a default of the wrong type or outside its range, or a missing factory.
void register_filter(FilterInfo info);

// nullptr when no filter has that name.
const FilterInfo* find_filter(std::string_view name);

// Every registered filter, sorted by name (stable for help output and error messages).
// The pointers stay valid for the program's lifetime.
std::vector<const FilterInfo*> registered_filters();

// Help text for one filter: its line, then one line per parameter with type, range or allowed
// values, default and help, e.g. "  sigma=<float> [0.1, 32], default 1.5: ...".
std::string filter_help(const FilterInfo& info);

// One value written as chain text (unescaped): floats round-trip exactly ("{}" of double).
std::string format_param_value(const ParamValue& v);

}  // namespace vfx
