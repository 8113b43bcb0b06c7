// Point-wise fusion: a run of adjacent point-wise filters runs as one generated kernel that
// computes the same pixels, bit for bit, as the filters run one by one — for every variant the
// tuner may choose, colour (8 and 16 bit) and mosaic frames, odd sizes.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "compute/pointwise.hpp"
#include "compute_test_util.hpp"

namespace vfx {
namespace {

using test::Image;
using test::SourceCase;

const SourceCase kRgba8{"rgba", AV_PIX_FMT_RGBA, test::make_sf(PlaneLayout::rgba, 8, 1, 0, 0, 0)};
const SourceCase kRgba16{"rgba64le", AV_PIX_FMT_RGBA64LE,
                         test::make_sf(PlaneLayout::rgba, 16, 2, 0, 0, 0)};
const SourceCase kGray8{"gray", AV_PIX_FMT_GRAY8, test::make_sf(PlaneLayout::gray, 8, 1, 0, 0, 0)};
const SourceCase kGray16{"gray16le", AV_PIX_FMT_GRAY16LE,
                         test::make_sf(PlaneLayout::gray, 16, 2, 0, 0, 0)};

constexpr const char* kColourRun =
    "color=brightness=0.05:contrast=1.3:saturation=1.6:hue=25,gamma=curve=srgb,"
    "ccm=matrix=1.2|-0.1|-0.1|-0.05|1.1|-0.05|0|-0.2|1.2,wb=r=1.1:b=0.9,sepia,"
    "blacklevel=black=10:white=240";
constexpr const char* kMosaicRun =
    "blacklevel=black=12:white=250,wb=r=1.8:g=1:b=1.4:pattern=grbg,gamma=value=2.2";

struct Result {
    Image img;
    std::vector<StageTime> stages;
};

Result run(const std::string& chain, const HostFrame& frame, bool fuse) {
    ClContext& cl = *test::test_cl();
    FrameProcessor proc(cl, parse_chain(chain));
    proc.set_fusion(fuse);
    PendingFrame p;
    Result r;
    r.img = test::process(proc, cl, frame, &p);
    r.stages = p.timings();
    return r;
}

void expect_fused_equals_unfused(const SourceCase& c, const std::string& chain, int w, int h,
                                 size_t filters) {
    std::mt19937 rng(static_cast<unsigned>(w * 131 + h));
    const HostFrame frame = test::random_frame(c, w, h, {}, rng);
    const Result one_by_one = run(chain, frame, false);
    const Result fused = run(chain, frame, true);
    ASSERT_EQ(one_by_one.img.px.size(), fused.img.px.size());
    EXPECT_TRUE(one_by_one.img.px == fused.img.px) << c.name << " " << w << "x" << h;
    // upload, convert, the chain's stages (and "display" for a mosaic left at the end).
    const size_t extra = c.format.layout == PlaneLayout::gray ? 3 : 2;
    ASSERT_EQ(one_by_one.stages.size(), extra + filters);
    ASSERT_EQ(fused.stages.size(), extra + 1) << "one kernel for the whole run";
    EXPECT_NE(fused.stages[2].name.find('+'), std::string::npos) << fused.stages[2].name;
}

TEST(PointwiseFusion, ColourRunEqualsFiltersOneByOne) {
    VFX_REQUIRE_CL();
    for (auto [w, h] : {std::pair{67, 29}, {1, 1}, {5, 3}, {130, 7}, {64, 4}})
        for (const SourceCase* c : {&kRgba8, &kRgba16})
            expect_fused_equals_unfused(*c, kColourRun, w, h, 6);
}

TEST(PointwiseFusion, MosaicRunEqualsFiltersOneByOne) {
    VFX_REQUIRE_CL();
    for (auto [w, h] : {std::pair{67, 29}, {2, 2}, {33, 5}})
        for (const SourceCase* c : {&kGray8, &kGray16})
            expect_fused_equals_unfused(*c, kMosaicRun, w, h, 3);
}

// Gamma takes stored values and gives stored values (no rounding after it in a fused run):
// first in the run, twice in a row, followed by an op on floats, and last after one.
constexpr const char* kTableRun = "gamma=curve=srgb,gamma=value=1.8,sepia,gamma=value=2.2";
constexpr const char* kMosaicTableRun = "gamma=value=2.2,gamma=curve=srgb,wb=r=1.5";

TEST(PointwiseFusion, TableLookupsFirstAndBackToBack) {
    VFX_REQUIRE_CL();
    for (auto [w, h] : {std::pair{67, 29}, {3, 2}})
        for (const SourceCase* c : {&kRgba8, &kRgba16})
            expect_fused_equals_unfused(*c, kTableRun, w, h, 4);
    for (const SourceCase* c : {&kGray8, &kGray16})
        expect_fused_equals_unfused(*c, kMosaicTableRun, 33, 5, 3);
}

// Gains of 0.5, 1.5 and 2.5 make exact halves of odd values: the rounding between ops (to
// nearest, ties to even) decides them, before an op on floats and before a table.
TEST(PointwiseFusion, TiesBetweenOpsRoundToEven) {
    VFX_REQUIRE_CL();
    for (const SourceCase* c : {&kRgba8, &kRgba16}) {
        expect_fused_equals_unfused(*c, "wb=r=0.5:g=1.5:b=2.5,sepia", 37, 11, 2);
        expect_fused_equals_unfused(*c, "wb=r=0.5:g=1.5:b=2.5,gamma=curve=srgb", 37, 11, 2);
    }
    for (const SourceCase* c : {&kGray8, &kGray16})
        expect_fused_equals_unfused(*c, "wb=r=0.5:g=1.5:b=2.5:pattern=gbrg,gamma=value=2.2", 37, 11,
                                    2);
}

TEST(PointwiseFusion, OnlyAdjacentPointwiseFiltersFuse) {
    VFX_REQUIRE_CL();
    ClContext& cl = *test::test_cl();
    const Chain chain = parse_chain("sepia,gamma,median,color=saturation=0,grayscale,box,wb");
    FrameProcessor proc(cl, chain);
    std::mt19937 rng(3);
    const HostFrame frame = test::random_frame(kRgba8, 21, 9, {}, rng);
    PendingFrame p;
    test::process(proc, cl, frame, &p);
    std::vector<std::string> names;
    for (const StageTime& s : p.timings())
        names.push_back(s.name);
    EXPECT_EQ(names, (std::vector<std::string>{"upload", "convert", "sepia+gamma", "median",
                                               "color+grayscale", "box", "wb"}));
}

// Runs `chain`'s stages (fused or not) over a raw frame of geometry g, ping-ponging between
// buffers; returns the rows' pixel bytes (no padding). `choice`: the fused stage's variant.
std::vector<uint8_t> run_stages(const std::string& chain, const FrameGeometry& g,
                                const std::vector<uint8_t>& in, bool fuse,
                                std::string* choice = nullptr) {
    ClContext& cl = *test::test_cl();
    const Chain c = parse_chain(chain);
    std::vector<ChainStage> stages =
        make_stages(cl, c, fuse, [&](size_t i) { return c.filters[i].name(); });
    ClMem a = cl.buffer(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, in.size(),
                        const_cast<uint8_t*>(in.data()));
    ClMem b = cl.buffer(CL_MEM_READ_WRITE, in.size());
    std::vector<ClEvent> events;
    std::vector<ClMem> keep;
    for (ChainStage& st : stages) {
        FilterIo io{cl, cl.queue(), a.get(), b.get(), g, events, keep};
        io.source_bits = is_deep(g.format) ? 16 : 8;
        st.filter->enqueue(io);
        std::swap(a, b);
    }
    VFX_CL(clFinish(cl.queue()));
    if (choice) {
        auto* pw = dynamic_cast<PointwiseFilter*>(stages.front().filter.get());
        *choice = pw && pw->last_choice() ? pw->last_choice()->label() : "";
    }
    std::vector<uint8_t> out(in.size());
    VFX_CL(clEnqueueReadBuffer(cl.queue(), a.get(), CL_TRUE, 0, out.size(), out.data(), 0, nullptr,
                               nullptr));
    const size_t row = g.width * bytes_per_pixel(g.format);
    std::vector<uint8_t> pixels;
    for (uint32_t y = 0; y < g.height; ++y)
        pixels.insert(pixels.end(), out.begin() + static_cast<ptrdiff_t>(y * g.pitch),
                      out.begin() + static_cast<ptrdiff_t>(y * g.pitch + row));
    return pixels;
}

// Every candidate the tuner may pick computes the same frame (odd widths exercise each vector
// width's partial last work-item of a row; 300 rows: the rows whose work-items prefetch the input
// PF rows further down, and those past which they do not).
TEST(PointwiseFusion, EveryVariantGivesTheSameFrame) {
    VFX_REQUIRE_CL();
    ClContext& cl = *test::test_cl();
    ASSERT_GE(PointwiseFilter::variant_labels(false, WorkFormat::rgba8).size(), 2u);
    // A run with a table op has candidates more on 8-bit frames (the table in __local memory),
    // none on 16-bit ones (a 16-bit table stays in global memory).
    ASSERT_GT(PointwiseFilter::variant_labels(true, WorkFormat::rgba8).size(),
              PointwiseFilter::variant_labels(false, WorkFormat::rgba8).size());
    ASSERT_EQ(PointwiseFilter::variant_labels(true, WorkFormat::rgba16),
              PointwiseFilter::variant_labels(false, WorkFormat::rgba16));
    // On a mosaic the word forms (QW) are the plain program: not offered there.
    for (const std::string& label : PointwiseFilter::variant_labels(true, WorkFormat::mono8))
        EXPECT_EQ(label.find("-DQW="), std::string::npos) << label;
    for (WorkFormat f :
         {WorkFormat::rgba8, WorkFormat::rgba16, WorkFormat::mono8, WorkFormat::mono16}) {
        for (auto [w, h] : {std::pair{83u, 13u}, {3u, 2u}, {64u, 3u}, {83u, 300u}}) {
            const FrameGeometry g = make_geometry(w, h, f);
            std::vector<uint8_t> in(g.size_bytes());
            std::mt19937 rng(w + h);
            for (auto& v : in)
                v = static_cast<uint8_t>(rng());
            for (const char* chain : is_mono(f) ? std::vector{kMosaicRun, kMosaicTableRun}
                                                : std::vector{kColourRun, kTableRun}) {
                const std::vector<uint8_t> reference = run_stages(chain, g, in, false);
                // Every chain here has a table op (gamma), so the candidates of a run with one;
                // those of a run without one are a subset.
                for (const std::string& label : PointwiseFilter::variant_labels(true, f)) {
                    cl.tuner().force(label);
                    std::string chosen;
                    const std::vector<uint8_t> got = run_stages(chain, g, in, true, &chosen);
                    EXPECT_EQ(chosen, label);
                    EXPECT_TRUE(got == reference) << to_string(f) << " " << w << "x" << h
                                                  << " variant " << label << " " << chain;
                }
                cl.tuner().force("");
            }
        }
    }
}

}  // namespace
}  // namespace vfx
