// Chain text: parsing, every error message, escapes, printing round-trips; the registry.
#include <gtest/gtest.h>

#include <cmath>

#include "compute/chain.hpp"
#include "compute/filter.hpp"
#include "compute/registry.hpp"
#include "core/error.hpp"

namespace vfx {
namespace {

// A test-only filter with every parameter type (never run on the GPU).
void register_test_filter() {
    static bool done = false;
    if (done) return;
    done = true;
    FilterInfo f;
    f.name = "zz_types";
    f.help = "every parameter type";
    ParamSpec p;
    p.name = "mode";
    p.type = ParamType::enum_value;
    p.allowed = {"plain", "a,b", "c:d", "e=f", "g\\h", " lead", "trail "};
    p.default_value = std::string("plain");
    f.params.push_back(p);
    p = ParamSpec{};
    p.name = "count";
    p.type = ParamType::int_value;
    p.min = -3;
    p.max = 10;
    p.default_value = int64_t{2};
    f.params.push_back(p);
    p = ParamSpec{};
    p.name = "on";
    p.type = ParamType::bool_value;
    p.default_value = false;
    f.params.push_back(p);
    p = ParamSpec{};
    p.name = "list";
    p.type = ParamType::float_list;
    p.min = -1;
    p.max = 1;
    p.default_value = std::vector<double>{0.25, -0.5};
    f.params.push_back(p);
    f.pointwise = true;
    f.factory = [](ClContext&, const FilterInstance&) -> std::unique_ptr<GpuFilter> {
        return nullptr;
    };
    register_filter(std::move(f));
}

class ChainText : public ::testing::Test {
protected:
    static void SetUpTestSuite() { register_test_filter(); }
};

std::string error_of(std::string_view text) {
    try {
        parse_chain(text);
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST_F(ChainText, EmptyChainIsPassThrough) {
    EXPECT_TRUE(parse_chain("").empty());
    EXPECT_TRUE(parse_chain("   ").empty());
    EXPECT_EQ(format_chain(Chain{}), "");
}

TEST_F(ChainText, ParsesFiltersAndValues) {
    const Chain c = parse_chain("gaussian=sigma=1.5,unsharp=sigma=1:amount=0.5");
    ASSERT_EQ(c.filters.size(), 2u);
    EXPECT_EQ(c.filters[0].name(), "gaussian");
    EXPECT_EQ(c.filters[0].get_float("sigma"), 1.5);
    EXPECT_EQ(c.filters[1].name(), "unsharp");
    EXPECT_EQ(c.filters[1].get_float("sigma"), 1.0);
    EXPECT_EQ(c.filters[1].get_float("amount"), 0.5);
}

TEST_F(ChainText, BareNameTakesDefaultsAndOrderIsFree) {
    const Chain c = parse_chain("unsharp, gaussian ,unsharp=amount=2:sigma=3");
    ASSERT_EQ(c.filters.size(), 3u);
    EXPECT_EQ(c.filters[0].get_float("sigma"), 1.0);
    EXPECT_EQ(c.filters[0].get_float("amount"), 0.5);
    EXPECT_EQ(c.filters[1].get_float("sigma"), 1.5);
    EXPECT_EQ(c.filters[2].get_float("sigma"), 3.0);
    EXPECT_EQ(c.filters[2].get_float("amount"), 2.0);
    EXPECT_EQ(c.filters[1], make_filter("gaussian"));
}

// A chain of thousands of stages would run for minutes before its first frame (each compiled
// and tuned): refused past kMaxChainFilters with one line.
TEST_F(ChainText, LongestChainIsSixtyFourFilters) {
    std::string text = "sepia";
    for (size_t i = 1; i < kMaxChainFilters; ++i)
        text += ",sepia";
    EXPECT_EQ(parse_chain(text).filters.size(), kMaxChainFilters);
    EXPECT_EQ(error_of(text + ",sepia"), "the chain has more than 64 filters");
}

// What the user typed comes back in the error as one printable line: an escape sequence is not
// sent to the terminal raw, and a NUL (possible in a preset's JSON string) does not cut it short.
TEST_F(ChainText, ControlCharactersInAnErrorAreShownEscaped) {
    const std::string e = error_of(std::string("sep\x1b[31mia,x", 12));
    EXPECT_EQ(e.rfind("unknown filter 'sep\\x1b[31mia' (known: ", 0), 0u) << e;
    const std::string n = error_of(std::string("sep\0ia", 6));
    EXPECT_EQ(n.rfind("unknown filter 'sep\\x00ia' (known: ", 0), 0u) << n;
    EXPECT_EQ(printable_line("a\tb\nc\x7f\xc3\xa9"), "a\\x09b\\x0ac\\x7f\xc3\xa9");
    // Well-formed UTF-8 (2, 3 and 4 bytes) stays; a Latin-1 byte, a lone continuation byte, a
    // truncated sequence, an overlong form, a surrogate and a C1 control are escaped.
    const std::pair<const char*, const char*> utf8[] = {
        {"\xc3\xa9\xe2\x82\xac\xf0\x9f\x8e\xa5", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x8e\xa5"},
        {"caf\xe9", "caf\\xe9"},
        {"\x80x", "\\x80x"},
        {"\xe2\x82", "\\xe2\\x82"},
        {"\xc0\xaf", "\\xc0\\xaf"},
        {"\xed\xa0\x80", "\\xed\\xa0\\x80"},
        {"\xc2\x9b", "\\xc2\\x9b"}};
    for (const auto& [in, shown] : utf8)
        EXPECT_EQ(printable_line(in), shown) << shown;
}

TEST_F(ChainText, Errors) {
    {  // names the unknown filter and every known one, in the registry's order
        std::string known;
        for (const FilterInfo* f : registered_filters())
            known += (known.empty() ? "" : ", ") + f->name;
        EXPECT_EQ(error_of("gausian"), "unknown filter 'gausian' (known: " + known + ")");
        EXPECT_NE(known.find("gaussian, "), std::string::npos);
    }
    EXPECT_EQ(error_of("gaussian=sigm=1"),
              "gaussian: unknown parameter 'sigm' (parameters: sigma)");
    EXPECT_EQ(error_of("gaussian=sigma=99"), "gaussian: sigma=99 is out of range [0.1, 32]");
    EXPECT_EQ(error_of("gaussian=sigma=0.05"), "gaussian: sigma=0.05 is out of range [0.1, 32]");
    EXPECT_EQ(error_of("unsharp=amount=-1"), "unsharp: amount=-1 is out of range [0, 5]");
    EXPECT_EQ(error_of("gaussian=sigma=abc"),
              "gaussian: sigma='abc' is not a number (expected a number in [0.1, 32])");
    EXPECT_EQ(error_of("gaussian=sigma="),
              "gaussian: sigma='' is not a number (expected a number in [0.1, 32])");
    EXPECT_EQ(error_of("gaussian=sigma=nan"),
              "gaussian: sigma='nan' is not a number (expected a number in [0.1, 32])");
    EXPECT_EQ(error_of("gaussian=sigma=inf"),
              "gaussian: sigma='inf' is not a number (expected a number in [0.1, 32])");
    EXPECT_EQ(error_of("gaussian=sigma=1:sigma=2"), "gaussian: duplicate parameter 'sigma'");
    // Values each in range that do not fit together (FilterInfo::check).
    EXPECT_EQ(error_of("median,ccm=matrix=1|0|0"),
              "ccm: matrix needs 9 values (a|b|c|d|e|f|g|h|i, row-major), got 3");
    EXPECT_EQ(error_of("blacklevel=black=10:white=5"),
              "blacklevel: white=5 must be greater than black=10");
    EXPECT_EQ(error_of("gaussian=sigma"), "malformed chain at character 15: expected '='");
    EXPECT_EQ(error_of("unsharp=sigma:amount=1"), "malformed chain at character 14: expected '='");
    EXPECT_EQ(error_of(",gaussian"), "malformed chain at character 1: empty filter name");
    EXPECT_EQ(error_of("gaussian,"), "malformed chain at character 10: empty filter name");
    EXPECT_EQ(error_of("gaussian,,unsharp"), "malformed chain at character 10: empty filter name");
    EXPECT_EQ(error_of("=sigma=1"), "malformed chain at character 1: empty filter name");
    EXPECT_EQ(error_of("gaussian="), "malformed chain at character 10: empty parameter name");
    EXPECT_EQ(error_of("gaussian=sigma=1:"),
              "malformed chain at character 18: empty parameter name");
    EXPECT_EQ(error_of("gaussian=:sigma=1"),
              "malformed chain at character 10: empty parameter name");
    EXPECT_EQ(error_of("gaussian:sigma=1"), "malformed chain at character 9: expected '=' or ','");
    EXPECT_EQ(error_of("gaussian=sigma=1=2"),
              "malformed chain at character 17: unexpected '=' in the value of 'sigma' (write \\= "
              "for a literal '=')");
    EXPECT_EQ(error_of("zz_types=mode=a\\"), "malformed chain at character 16: trailing backslash");
    EXPECT_EQ(error_of("zz_types=mode=nope"),
              "zz_types: mode='nope' is not one of: plain, a,b, c:d, e=f, g\\h,  lead, trail ");
    EXPECT_EQ(error_of("zz_types=count=1.5"),
              "zz_types: count='1.5' is not an integer (expected an integer in [-3, 10])");
    EXPECT_EQ(error_of("zz_types=count=11"), "zz_types: count=11 is out of range [-3, 10]");
    EXPECT_EQ(error_of("zz_types=on=maybe"),
              "zz_types: on='maybe' is not a boolean (expected true or false)");
    EXPECT_EQ(error_of("zz_types=list=0.5|x"),
              "zz_types: list='0.5|x' is not a list of numbers (expected numbers in [-1, 1] "
              "separated by '|')");
    EXPECT_EQ(error_of("zz_types=list=0.5|2"), "zz_types: list=0.5|2: 2 is out of range [-1, 1]");
    // Every message is one line.
    for (const char* bad : {"gausian", "gaussian=sigma=1=2", "zz_types=mode=nope"})
        EXPECT_EQ(error_of(bad).find('\n'), std::string::npos);
}

// A source that declares its Bayer layout: a filter reading the mosaic as another is named.
TEST_F(ChainText, CfaMismatchNamesTheFilterAndThePattern) {
    EXPECT_EQ(cfa_mismatch(parse_chain("wb=pattern=bggr,demosaic"), "bayer_bggr8"),
              "'demosaic' (filter 2) reads the mosaic as rggb, but the source is bayer_bggr8 "
              "(bggr): colours will be wrong; give it pattern=bggr");
    EXPECT_EQ(cfa_mismatch(parse_chain("wb=pattern=gbrg,demosaic=pattern=gbrg"), "bayer_gbrg16le"),
              "");
    EXPECT_EQ(cfa_mismatch(parse_chain("demosaic"), "gray"), "");  // nothing declared
    EXPECT_EQ(cfa_mismatch(parse_chain("wb=pattern=grbg,gaussian"), "bayer_grbg8"),
              "'gaussian' (filter 2) reads colour, so it gets the source's bayer_grbg8 mosaic as "
              "a grey picture; start the chain with demosaic=pattern=grbg");
    EXPECT_EQ(cfa_mismatch(parse_chain("demosaic=pattern=grbg,gaussian"), "bayer_grbg8"), "");
    EXPECT_EQ(cfa_mismatch(parse_chain("gaussian"), "gray"), "");
}

TEST_F(ChainText, TypesAndEscapes) {
    Chain c = parse_chain("zz_types=mode=a\\,b:count=-3:on=true:list=1|-1|0.125");
    ASSERT_EQ(c.filters.size(), 1u);
    const FilterInstance& f = c.filters[0];
    EXPECT_EQ(f.get_enum("mode"), "a,b");
    EXPECT_EQ(f.get_int("count"), -3);
    EXPECT_TRUE(f.get_bool("on"));
    EXPECT_EQ(f.get_float_list("list"), (std::vector<double>{1, -1, 0.125}));
    EXPECT_EQ(parse_chain("zz_types=mode=c\\:d").filters[0].get_enum("mode"), "c:d");
    EXPECT_EQ(parse_chain("zz_types=mode=e\\=f").filters[0].get_enum("mode"), "e=f");
    EXPECT_EQ(parse_chain("zz_types=mode=g\\\\h").filters[0].get_enum("mode"), "g\\h");
    EXPECT_EQ(parse_chain("zz_types=mode=\\ lead").filters[0].get_enum("mode"), " lead");
    EXPECT_EQ(parse_chain("zz_types=mode=trail\\ ").filters[0].get_enum("mode"), "trail ");
    EXPECT_EQ(parse_chain("zz_types=list=").filters[0].get_float_list("list").size(), 0u);
    EXPECT_EQ(parse_chain("zz_types=on=0").filters[0].get_bool("on"), false);
    // Wrong-typed access is an error, not a crash.
    EXPECT_THROW((void)f.get_float("mode"), Error);
    EXPECT_THROW((void)f.get_float("nope"), Error);
}

TEST_F(ChainText, FormatPrintsEveryParameterAndRoundTrips) {
    EXPECT_EQ(format_chain(parse_chain("gaussian,unsharp=amount=2")),
              "gaussian=sigma=1.5,unsharp=sigma=1:amount=2");
    EXPECT_EQ(format_chain(parse_chain("zz_types=mode=e\\=f")),
              "zz_types=mode=e\\=f:count=2:on=false:list=0.25|-0.5");
    const char* texts[] = {
        "gaussian=sigma=0.30000000000000004",
        "gaussian=sigma=0.1,unsharp=sigma=32:amount=5,gaussian",
        "zz_types=mode=a\\,b:count=10:on=yes:list=1|-1|0.1",
        "zz_types=mode=g\\\\h",
        "zz_types=mode=\\ lead,zz_types=mode=trail\\ ",
        "zz_types=mode=c\\:d:list=",
    };
    for (const char* t : texts) {
        const Chain c = parse_chain(t);
        const std::string printed = format_chain(c);
        EXPECT_EQ(parse_chain(printed), c) << t << " -> " << printed;
        EXPECT_EQ(format_chain(parse_chain(printed)), printed);
    }
    // Arbitrary doubles survive exactly.
    Chain c = parse_chain("gaussian");
    for (double v : {1.0 / 3.0, 0.1 + 0.2, 31.999999999999996, std::nextafter(1.5, 2.0)}) {
        c.filters[0].values[0] = v;
        EXPECT_EQ(parse_chain(format_chain(c)).filters[0].get_float("sigma"), v) << format_chain(c);
    }
}

TEST_F(ChainText, SetValidatesLikeParse) {
    FilterInstance f = make_filter("unsharp");
    f.set("amount", "1.25");
    EXPECT_EQ(f.get_float("amount"), 1.25);
    try {
        f.set("amount", "9");
        ADD_FAILURE();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "unsharp: amount=9 is out of range [0, 5]");
    }
    EXPECT_THROW(make_filter("nope"), Error);
}

TEST(Registry, StableOrderLookupAndValidation) {
    register_test_filter();
    const auto all = registered_filters();
    ASSERT_GE(all.size(), 2u);
    for (size_t i = 1; i < all.size(); ++i)
        EXPECT_LT(all[i - 1]->name, all[i]->name);
    const FilterInfo* g = find_filter("gaussian");
    ASSERT_NE(g, nullptr);
    EXPECT_FALSE(g->pointwise);
    ASSERT_EQ(g->params.size(), 1u);
    EXPECT_EQ(g->params[0].name, "sigma");
    EXPECT_EQ(g->params[0].min, 0.1);
    EXPECT_EQ(g->params[0].max, 32.0);
    EXPECT_EQ(std::get<double>(g->params[0].default_value), 1.5);
    EXPECT_EQ(find_filter("gaussian"), g);  // stable pointers
    EXPECT_EQ(find_filter("nope"), nullptr);
    const FilterInfo* u = find_filter("unsharp");
    ASSERT_NE(u, nullptr);
    EXPECT_EQ(u->param_index("amount"), 1);
    EXPECT_NE(filter_help(*u).find("amount=<float> in [0, 5], default 0.5"), std::string::npos)
        << filter_help(*u);

    FilterInfo dup = *g;
    EXPECT_THROW(register_filter(dup), Error);  // name taken
    FilterInfo bad;
    bad.name = "zz_bad";
    bad.factory = g->factory;
    ParamSpec p;
    p.name = "x";
    p.min = 0;
    p.max = 1;
    p.default_value = 2.0;  // outside its range
    bad.params.push_back(p);
    EXPECT_THROW(register_filter(bad), Error);
    bad.params[0].default_value = int64_t{0};  // wrong type for a float
    EXPECT_THROW(register_filter(bad), Error);
    EXPECT_EQ(find_filter("zz_bad"), nullptr);
}

}  // namespace
}  // namespace vfx
