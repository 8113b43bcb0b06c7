// Presets: JSON round trips, defaults, disabled stages, every error message, atomic saves and
// the shipped presets.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "compute/chain.hpp"
#include "compute/filter.hpp"
#include "compute/preset.hpp"
#include "compute/registry.hpp"
#include "core/error.hpp"
#include "support/media.hpp"

namespace vfx {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A test-only filter with every parameter type (never run on the GPU).
void register_types_filter() {
    static bool done = false;
    if (done) return;
    done = true;
    FilterInfo f;
    f.name = "zz_preset_types";
    f.help = "every parameter type";
    ParamSpec p;
    p.name = "mode";
    p.type = ParamType::enum_value;
    p.allowed = {"plain", "a,b:c"};
    p.default_value = std::string("plain");
    f.params.push_back(p);
    f.params.push_back(int_param("count", 2, -3, 10, "an int"));
    p = ParamSpec{};
    p.name = "on";
    p.type = ParamType::bool_value;
    p.default_value = false;
    f.params.push_back(p);
    f.params.push_back(float_param("gain", 0.5, -2, 2, "a float"));
    p = ParamSpec{};
    p.name = "list";
    p.type = ParamType::float_list;
    p.min = -1;
    p.max = 1;
    p.default_value = std::vector<double>{0.25, -0.5};
    f.params.push_back(p);
    f.factory = [](ClContext&, const FilterInstance&) -> std::unique_ptr<GpuFilter> {
        return nullptr;
    };
    register_filter(std::move(f));
}

class PresetTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() { register_types_filter(); }
};

std::string error_of(const json& doc) {
    try {
        preset_from_json(doc, "p.json");
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

json doc_of(json chain) {
    return {{"vfx_preset", 1}, {"chain", std::move(chain)}};
}

std::string write_file(const std::string& name, const std::string& text) {
    const std::string path = test::scratch_dir() + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

std::vector<std::string> shipped_presets() {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(test::source_dir() + "/assets/presets"))
        if (e.path().extension() == ".json") out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

TEST_F(PresetTest, SaveThenLoadGivesAnEqualChain) {
    Chain chain = parse_chain(
        "zz_preset_types=mode=a\\,b\\:c:count=-3:on=true:gain=0.1:list=1|-1|0.3333333333333333,"
        "gaussian=sigma=1.7,median=radius=2,gamma=curve=srgb,"
        "ccm=matrix=1.72|-0.58|-0.14|-0.2|1.46|-0.26|0.03|-0.52|1.49,histogram");
    const std::string path = test::scratch_dir() + "/round.json";
    save_preset(path, chain, "Round", "a round trip");
    EXPECT_EQ(load_preset(path), chain);
    const Preset p = read_preset(path);
    EXPECT_EQ(p.name, "Round");
    EXPECT_EQ(p.description, "a round trip");
    EXPECT_EQ(format_chain(p.chain()), format_chain(chain));
    // Values are typed JSON, not chain text.
    const json j = preset_to_json(chain, "Round", "");
    EXPECT_EQ(j["vfx_preset"], 1);
    const json& t = j["chain"][0];
    EXPECT_EQ(t["filter"], "zz_preset_types");
    EXPECT_EQ(t["enabled"], true);
    EXPECT_TRUE(t["params"]["mode"].is_string());
    EXPECT_TRUE(t["params"]["count"].is_number_integer());
    EXPECT_TRUE(t["params"]["on"].is_boolean());
    EXPECT_TRUE(t["params"]["gain"].is_number_float());
    EXPECT_TRUE(t["params"]["list"].is_array());
    EXPECT_EQ(j["chain"][1]["params"]["sigma"], 1.7);
    // And from the JSON object directly, without a file.
    EXPECT_EQ(preset_from_json(j, "mem"), chain);
    // The empty chain too.
    save_preset(path, Chain{}, "", "");
    EXPECT_TRUE(load_preset(path).empty());
}

TEST_F(PresetTest, MissingParamsAndKeysTakeDefaults) {
    const Chain c = preset_from_json(
        doc_of({{{"filter", "gaussian"}}, {{"filter", "unsharp"}, {"params", {{"amount", 2}}}}}),
        "p.json");
    EXPECT_EQ(c, parse_chain("gaussian,unsharp=amount=2"));
    const Preset p = parse_preset(doc_of(json::array()), "p.json");
    EXPECT_EQ(p.name, "");
    EXPECT_EQ(p.description, "");
    EXPECT_TRUE(p.stages.empty());
    // Integral floats are accepted for int parameters, as chain text "2" would be.
    EXPECT_EQ(
        preset_from_json(doc_of({{{"filter", "median"}, {"params", {{"radius", 2.0}}}}}), "p.json"),
        parse_chain("median=radius=2"));
}

TEST_F(PresetTest, DisabledStagesAreKeptButDoNotRun) {
    const json doc = doc_of({{{"filter", "gaussian"}, {"enabled", false}},
                             {{"filter", "median"}, {"enabled", true}},
                             {{"filter", "sepia"}, {"enabled", false}}});
    const Preset p = parse_preset(doc, "p.json");
    ASSERT_EQ(p.stages.size(), 3u);
    EXPECT_FALSE(p.stages[0].enabled);
    EXPECT_TRUE(p.stages[1].enabled);
    EXPECT_EQ(p.chain(), parse_chain("median"));
    EXPECT_EQ(preset_from_json(doc, "p.json"), parse_chain("median"));
    // The disabled stages survive a save and a load.
    const std::string path = test::scratch_dir() + "/disabled.json";
    save_preset(path, p);
    EXPECT_EQ(read_preset(path), p);
    EXPECT_EQ(load_preset(path), parse_chain("median"));
}

TEST_F(PresetTest, EveryErrorIsOneLineNamingFileStageFilterAndParameter) {
    struct Case {
        json doc;
        std::string expected;
    };
    const std::vector<Case> cases = {
        {json::array(), "p.json: not a vfx preset (expected a JSON object with \"vfx_preset\": 1)"},
        {{{"chain", json::array()}}, "p.json: not a vfx preset"},
        {{{"vfx_preset", 2}, {"chain", json::array()}},
         "p.json: unsupported preset version 2 (this vfx reads version 1)"},
        {{{"vfx_preset", "1"}, {"chain", json::array()}},
         "p.json: unsupported preset version \"1\""},
        {{{"vfx_preset", 1}}, "p.json: \"chain\" must be an array of stages (missing)"},
        {{{"vfx_preset", 1}, {"chain", {{"a", 1}}}},
         "p.json: \"chain\" must be an array of stages (found object)"},
        {{{"vfx_preset", 1}, {"chain", json::array()}, {"nmae", "x"}},
         "p.json: unknown key \"nmae\" (keys: vfx_preset, name, description, chain)"},
        {{{"vfx_preset", 1}, {"chain", json::array()}, {"name", 3}},
         "p.json: \"name\" must be a string, not a number"},
        {doc_of({"gaussian"}), "p.json: chain[0]: must be an object like"},
        {doc_of({{{"params", json::object()}}}),
         "p.json: chain[0]: \"filter\" must be a filter name (a string)"},
        {doc_of({{{"filter", "median"}}, {{"filter", "gausian"}}}),
         "p.json: chain[1]: unknown filter 'gausian' (known: "},
        {doc_of({{{"filter", "gaussian"}, {"parms", json::object()}}}),
         "p.json: chain[0]: gaussian: unknown key \"parms\" (keys: filter, enabled, params)"},
        {doc_of({{{"filter", "gaussian"}, {"enabled", "yes"}}}),
         "p.json: chain[0]: gaussian: \"enabled\" must be true or false, not string"},
        {doc_of({{{"filter", "gaussian"}, {"params", json::array()}}}),
         "p.json: chain[0]: gaussian: \"params\" must be an object of parameter values, not an "
         "array"},
        {doc_of({{{"filter", "gaussian"}, {"params", {{"sigm", 1}}}}}),
         "p.json: chain[0]: gaussian: unknown parameter 'sigm' (parameters: sigma)"},
        {doc_of({{{"filter", "median"}}, {{"filter", "gaussian"}, {"params", {{"sigma", 99}}}}}),
         "p.json: chain[1]: gaussian: sigma=99 is out of range [0.1, 32]"},
        {doc_of({{{"filter", "gaussian"}, {"params", {{"sigma", "1.5"}}}}}),
         "p.json: chain[0]: gaussian: sigma must be a number in [0.1, 32], not a string"},
        {doc_of({{{"filter", "median"}, {"params", {{"radius", 1.5}}}}}),
         "p.json: chain[0]: median: radius='1.5' is not an integer (expected an integer in [1, "
         "2])"},
        {doc_of({{{"filter", "median"}, {"params", {{"radius", 3}}}}}),
         "p.json: chain[0]: median: radius=3 is out of range [1, 2]"},
        {doc_of({{{"filter", "median"}, {"params", {{"radius", true}}}}}),
         "p.json: chain[0]: median: radius must be an integer in [1, 2], not a boolean"},
        {doc_of({{{"filter", "gamma"}, {"params", {{"curve", "linear"}}}}}),
         "p.json: chain[0]: gamma: curve='linear' is not one of: power, srgb"},
        {doc_of({{{"filter", "gamma"}, {"params", {{"curve", 1}}}}}),
         "p.json: chain[0]: gamma: curve must be a string (one of: power, srgb), not a number"},
        {doc_of({{{"filter", "zz_preset_types"}, {"params", {{"on", "true"}}}}}),
         "p.json: chain[0]: zz_preset_types: on must be true or false, not a string"},
        {doc_of({{{"filter", "zz_preset_types"}, {"params", {{"list", 0.5}}}}}),
         "p.json: chain[0]: zz_preset_types: list must be an array of numbers in [-1, 1], not a "
         "number"},
        {doc_of({{{"filter", "zz_preset_types"}, {"params", {{"list", {0.5, "x"}}}}}}),
         "p.json: chain[0]: zz_preset_types: list must be an array of numbers in [-1, 1], not an "
         "array holding a string"},
        {doc_of({{{"filter", "zz_preset_types"}, {"params", {{"list", {0.5, 3}}}}}}),
         "p.json: chain[0]: zz_preset_types: list=0.5|3: 3 is out of range [-1, 1]"},
        {doc_of({{{"filter", "zz_preset_types"}, {"params", {{"gain", nullptr}}}}}),
         "p.json: chain[0]: zz_preset_types: gain must be a number in [-2, 2], not a null"},
        // Values each in range that do not fit together: refused on reading, not at the run.
        {doc_of({{{"filter", "ccm"}, {"params", {{"matrix", {1, 0, 0}}}}}}),
         "p.json: chain[0]: ccm: matrix needs 9 values (a|b|c|d|e|f|g|h|i, row-major), got 3"},
        {doc_of({{{"filter", "blacklevel"}, {"params", {{"black", 10}, {"white", 5}}}}}),
         "p.json: chain[0]: blacklevel: white=5 must be greater than black=10"},
    };
    for (const Case& c : cases) {
        const std::string msg = error_of(c.doc);
        EXPECT_EQ(msg.find(c.expected), 0u) << "doc: " << c.doc.dump() << "\n  got: " << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
}

TEST_F(PresetTest, FileErrorsNameTheFile) {
    const std::string dir = test::scratch_dir();
    auto error_of_file = [](const std::string& path) -> std::string {
        try {
            load_preset(path);
        } catch (const Error& e) {
            return e.what();
        }
        return "(no error)";
    };
    const std::string missing = dir + "/missing.json";
    EXPECT_EQ(error_of_file(missing), missing + ": cannot read preset: No such file or directory");
    const std::string broken = write_file("broken.json", "{\"vfx_preset\": 1,\n  \"chain\": [\n");
    const std::string msg = error_of_file(broken);
    EXPECT_EQ(msg.find(broken + ": not JSON: parse error at line 3"), 0u) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_EQ(msg.find("json.exception"), std::string::npos) << msg;
    const std::string empty = write_file("empty.json", "");
    EXPECT_EQ(error_of_file(empty).find(empty + ": not JSON: "), 0u) << error_of_file(empty);
    const std::string range = write_file(
        "range.json",
        R"({"vfx_preset": 1, "chain": [{"filter": "unsharp", "params": {"amount": 9}}]})");
    EXPECT_EQ(error_of_file(range), range + ": chain[0]: unsharp: amount=9 is out of range [0, 5]");
    // A key twice in one object (JSON allows it; the last would silently win).
    const std::string twice = write_file(
        "twice.json",
        R"({"vfx_preset": 1, "chain": [{"filter": "gaussian", "params": {"sigma": 1, "sigma": 2}}]})");
    EXPECT_EQ(error_of_file(twice), twice + ": key \"sigma\" appears twice in one object");
    EXPECT_EQ(error_of_file(dir), dir + ": a folder, not a preset file");
    const std::string huge = write_file("huge.json", std::string(3 << 20, ' '));
    EXPECT_EQ(error_of_file(huge), huge + ": larger than 1 MiB, not a preset");
    // Saving into a folder that does not exist.
    try {
        save_preset(dir + "/no/such/dir/x.json", Chain{}, "", "");
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(
            std::string(e.what()).find("preset '" + dir + "/no/such/dir/x.json': cannot write: "),
            0u)
            << e.what();
    }
}

TEST_F(PresetTest, ABrokenFileLeavesTheCurrentChainUntouched) {
    const std::string good = test::source_dir() + "/assets/presets/denoise.json";
    Chain current = load_preset(good);
    const Chain before = current;
    const std::string bad = write_file(
        "bad.json",
        R"({"vfx_preset": 1, "chain": [{"filter": "median"}, {"filter": "gaussian", "params": {"sigma": -1}}]})");
    EXPECT_THROW(current = load_preset(bad), Error);
    EXPECT_EQ(current, before);
}

TEST_F(PresetTest, SaveReplacesAtomicallyAndLeavesNoTemporaryFile) {
    const std::string dir = test::scratch_dir();
    const std::string path = dir + "/p.json";
    std::ofstream(path) << "old contents";
    save_preset(path, parse_chain("gaussian=sigma=2"), "G", "blur");
    EXPECT_EQ(load_preset(path), parse_chain("gaussian=sigma=2"));
    save_preset(path, parse_chain("sepia"), "S", "");
    EXPECT_EQ(load_preset(path), parse_chain("sepia"));
    size_t files = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
        ++files;
        EXPECT_EQ(e.path().filename(), "p.json") << "left behind: " << e.path();
    }
    EXPECT_EQ(files, 1u);
}

TEST_F(PresetTest, ShippedPresetsLoadAndRoundTrip) {
    const auto presets = shipped_presets();
    ASSERT_GE(presets.size(), 3u);
    for (const char* name : {"camera-preview.json", "denoise.json", "stylise.json"})
        EXPECT_TRUE(fs::exists(test::source_dir() + "/assets/presets/" + name)) << name;
    for (const std::string& path : presets) {
        SCOPED_TRACE(path);
        const Preset p = read_preset(path);
        EXPECT_FALSE(p.name.empty());
        EXPECT_FALSE(p.description.empty());
        EXPECT_FALSE(p.chain().empty());
        // Its chain text parses back to the same chain; a re-save reads back equal.
        EXPECT_EQ(parse_chain(format_chain(p.chain())), p.chain());
        const std::string copy = test::scratch_dir() + "/copy.json";
        save_preset(copy, p);
        EXPECT_EQ(read_preset(copy), p);
    }
    // The camera preset turns an RGGB mosaic into colour, with a white-preserving matrix.
    const Chain cam = load_preset(test::source_dir() + "/assets/presets/camera-preview.json");
    bool demosaic = false;
    for (const FilterInstance& f : cam.filters) {
        if (f.name() == "demosaic") {
            demosaic = true;
            EXPECT_EQ(f.get_enum("method"), "mhc");
            EXPECT_EQ(f.get_enum("pattern"), "rggb");
        }
        if (f.name() == "wb") {
            EXPECT_GT(f.get_float("r"), 1.0);
        }
        if (f.name() == "gamma") {
            EXPECT_EQ(f.get_enum("curve"), "srgb");
        }
        if (f.name() == "ccm") {
            const auto& m = f.get_float_list("matrix");
            ASSERT_EQ(m.size(), 9u);
            for (int r = 0; r < 3; ++r)
                EXPECT_NEAR(m[r * 3] + m[r * 3 + 1] + m[r * 3 + 2], 1.0, 1e-9) << "row " << r;
        }
    }
    EXPECT_TRUE(demosaic);
    EXPECT_EQ(find_filter(cam.filters.front().name())->takes(FrameKind::mosaic), true);
}

}  // namespace
}  // namespace vfx
