// The camera ISP filters (demosaic, mosaic, blacklevel, wb, ccm, gamma) and the composite ones
// (blend, histogram) against plain double-precision references written here; demosaic quality
// on a real photograph; the processor's mosaic path (frame kinds, kind errors, grey display,
// the chain's input for blend, histogram read-back).
#include <gtest/gtest.h>

#include <fstream>

#include "compute/chain.hpp"
#include "compute/filter.hpp"
#include "compute/processor.hpp"
#include "compute/stencil_variants.hpp"
#include "compute_test_util.hpp"
#include "core/error.hpp"
#include "support/media.hpp"

namespace vfx::test {
namespace {

// ---- one-channel images (mosaics) ----

struct Mono {
    int width = 0, height = 0;
    bool deep = false;  // 16-bit
    std::vector<uint16_t> px;

    uint16_t& at(int x, int y) {
        return px[static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)];
    }
    uint16_t at(int x, int y) const {
        return px[static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)];
    }
    double max_value() const { return deep ? 65535.0 : 255.0; }
    WorkFormat format() const { return deep ? WorkFormat::mono16 : WorkFormat::mono8; }
};

Mono random_mono(int w, int h, bool deep, std::mt19937& rng) {
    Mono m{w, h, deep, std::vector<uint16_t>(static_cast<size_t>(w) * static_cast<size_t>(h))};
    std::uniform_int_distribution<uint32_t> dist(0, deep ? 65535u : 255u);
    for (auto& v : m.px)
        v = static_cast<uint16_t>(dist(rng));
    return m;
}

ClMem upload_mono(ClContext& cl, const Mono& m, const FrameGeometry& g) {
    std::vector<uint8_t> bytes(g.size_bytes(), 0);
    for (int y = 0; y < m.height; ++y)
        for (int x = 0; x < m.width; ++x) {
            uint8_t* p = bytes.data() + static_cast<size_t>(y) * g.pitch +
                         static_cast<size_t>(x) * (m.deep ? 2 : 1);
            if (m.deep) {
                const uint16_t v = m.at(x, y);
                std::memcpy(p, &v, 2);
            } else {
                *p = static_cast<uint8_t>(m.at(x, y));
            }
        }
    return cl.buffer(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes.size(), bytes.data());
}

Mono download_mono(ClContext& cl, cl_mem buf, const FrameGeometry& g) {
    std::vector<uint8_t> bytes(g.size_bytes());
    VFX_CL(clEnqueueReadBuffer(cl.queue(), buf, CL_TRUE, 0, bytes.size(), bytes.data(), 0, nullptr,
                               nullptr));
    const bool deep = g.format == WorkFormat::mono16;
    Mono m{static_cast<int>(g.width), static_cast<int>(g.height), deep,
           std::vector<uint16_t>(size_t{g.width} * g.height)};
    for (int y = 0; y < m.height; ++y)
        for (int x = 0; x < m.width; ++x) {
            const uint8_t* p = bytes.data() + static_cast<size_t>(y) * g.pitch +
                               static_cast<size_t>(x) * (deep ? 2 : 1);
            if (deep) {
                uint16_t v = 0;
                std::memcpy(&v, p, 2);
                m.at(x, y) = v;
            } else {
                m.at(x, y) = *p;
            }
        }
    return m;
}

// A frame as a filter sees it: colour or mosaic.
struct Frame {
    bool mosaic = false;
    Image colour;
    Mono mono;
    int width() const { return mosaic ? mono.width : colour.width; }
    int height() const { return mosaic ? mono.height : colour.height; }
    WorkFormat format() const { return mosaic ? mono.format() : colour.format; }
};
Frame of(const Image& i) {
    return Frame{false, i, {}};
}
Frame of(const Mono& m) {
    return Frame{true, {}, m};
}

struct RunResult {
    Frame out;
    Histogram hist;
    bool has_hist = false;
};

// Runs the one filter of `chain_text` directly on `in` (FilterIo built by hand, as the
// processor does), with `input` as the chain's input frame and `bits` as the source depth.
// `in_place`: dst = src, as the processor runs an observing filter (the histogram).
RunResult run_filter(ClContext& cl, const std::string& chain_text, const Frame& in,
                     int source_bits = 0, const Frame* input = nullptr, bool in_place = false) {
    const Chain chain = parse_chain(chain_text);
    const FilterInstance& f = chain.filters.front();
    std::unique_ptr<GpuFilter> filter = f.info->factory(cl, f);
    const auto w = static_cast<uint32_t>(in.width()), h = static_cast<uint32_t>(in.height());
    const FrameGeometry gin = make_geometry(w, h, in.format());
    const FrameKind out_kind =
        f.info->output_kind(in.mosaic ? FrameKind::mosaic : FrameKind::colour);
    const FrameGeometry gout = make_geometry(
        w, h, out_kind == FrameKind::mosaic ? mono_of(in.format()) : rgba_of(in.format()));
    ClMem src = in.mosaic ? upload_mono(cl, in.mono, gin) : upload_image(cl, in.colour, gin);
    ClMem dst = in_place ? src : cl.buffer(CL_MEM_READ_WRITE, gout.size_bytes());
    std::vector<ClEvent> events;
    std::vector<ClMem> keep;
    FilterIo io{cl, cl.queue(), src.get(), dst.get(), gin, events, keep};
    if (!(gout == gin)) io.dst_g = &gout;
    ClMem input_buf;
    FrameGeometry ginput;
    if (input) {
        ginput = make_geometry(w, h, input->format());
        input_buf = input->mosaic ? upload_mono(cl, input->mono, ginput)
                                  : upload_image(cl, input->colour, ginput);
        io.input = input_buf.get();
        io.input_g = &ginput;
    }
    io.source_bits = source_bits;
    ClMem hist;
    io.histogram_out = &hist;
    filter->enqueue(io);
    EXPECT_FALSE(events.empty());
    VFX_CL(clFinish(cl.queue()));
    RunResult r;
    r.out.mosaic = out_kind == FrameKind::mosaic;
    if (r.out.mosaic)
        r.out.mono = download_mono(cl, dst.get(), gout);
    else
        r.out.colour = download_image(cl, dst.get(), gout);
    if (hist) {
        VFX_CL(clEnqueueReadBuffer(cl.queue(), hist.get(), CL_TRUE, 0, sizeof(Histogram::counts),
                                   r.hist.counts.data(), 0, nullptr, nullptr));
        r.has_hist = true;
    }
    return r;
}

// ---- references (double precision, written independently of the kernels) ----

int colour_index(char c) {
    return c == 'r' ? 0 : c == 'g' ? 1 : 2;
}
// Colour of site (x, y) for pattern "rggb" etc.
int site_colour(const std::string& pattern, int x, int y) {
    return colour_index(pattern[static_cast<size_t>((y % 2) * 2 + (x % 2))]);
}

// Mirror without repeating the edge: ... 2 1 | 0 1 2 ... n-1 | n-2 ...
int reflect101(int i, int n) {
    if (n == 1) return 0;
    while (i < 0 || i >= n) {
        if (i < 0) i = -i;
        if (i >= n) i = 2 * (n - 1) - i;
    }
    return i;
}

// Malvar-He-Cutler filters (x 8), rows top to bottom.
using K5 = std::array<std::array<double, 5>, 5>;
const K5 kG_at_RB = {
    {{0, 0, -1, 0, 0}, {0, 0, 2, 0, 0}, {-1, 2, 4, 2, -1}, {0, 0, 2, 0, 0}, {0, 0, -1, 0, 0}}};
const K5 kRow_at_G = {{{0, 0, 0.5, 0, 0},
                       {0, -1, 0, -1, 0},
                       {-1, 4, 5, 4, -1},
                       {0, -1, 0, -1, 0},
                       {0, 0, 0.5, 0, 0}}};  // the colour of the G site's row neighbours
const K5 kCol_at_G = {{{0, 0, -1, 0, 0},
                       {0, -1, 4, -1, 0},
                       {0.5, 0, 5, 0, 0.5},
                       {0, -1, 4, -1, 0},
                       {0, 0, -1, 0, 0}}};  // the colour of the column neighbours
const K5 kOpp_at_RB = {{{0, 0, -1.5, 0, 0},
                        {0, 2, 0, 2, 0},
                        {-1.5, 0, 6, 0, -1.5},
                        {0, 2, 0, 2, 0},
                        {0, 0, -1.5, 0, 0}}};
// Bilinear (x 8).
const K5 bG_at_RB = {
    {{0, 0, 0, 0, 0}, {0, 0, 2, 0, 0}, {0, 2, 0, 2, 0}, {0, 0, 2, 0, 0}, {0, 0, 0, 0, 0}}};
const K5 bRow_at_G = {
    {{0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, {0, 4, 0, 4, 0}, {0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}}};
const K5 bCol_at_G = {
    {{0, 0, 0, 0, 0}, {0, 0, 4, 0, 0}, {0, 0, 0, 0, 0}, {0, 0, 4, 0, 0}, {0, 0, 0, 0, 0}}};
const K5 bOpp_at_RB = {
    {{0, 0, 0, 0, 0}, {0, 2, 0, 2, 0}, {0, 0, 0, 0, 0}, {0, 2, 0, 2, 0}, {0, 0, 0, 0, 0}}};

double apply(const Mono& m, int x, int y, const K5& k) {
    double s = 0;
    for (int dy = -2; dy <= 2; ++dy)
        for (int dx = -2; dx <= 2; ++dx)
            s += k[static_cast<size_t>(dy + 2)][static_cast<size_t>(dx + 2)] *
                 m.at(reflect101(x + dx, m.width), reflect101(y + dy, m.height));
    return s / 8;
}

// Unrounded demosaic, 3 doubles per pixel.
std::vector<double> ref_demosaic_raw(const Mono& m, const std::string& pattern, bool mhc) {
    std::vector<double> out(static_cast<size_t>(m.width) * static_cast<size_t>(m.height) * 3);
    for (int y = 0; y < m.height; ++y)
        for (int x = 0; x < m.width; ++x) {
            double rgb[3];
            const int c = site_colour(pattern, x, y);
            rgb[c] = m.at(x, y);
            if (c == 1) {
                const int row_colour = site_colour(pattern, x + 1, y);
                rgb[row_colour] = apply(m, x, y, mhc ? kRow_at_G : bRow_at_G);
                rgb[2 - row_colour] = apply(m, x, y, mhc ? kCol_at_G : bCol_at_G);
            } else {
                rgb[1] = apply(m, x, y, mhc ? kG_at_RB : bG_at_RB);
                rgb[2 - c] = apply(m, x, y, mhc ? kOpp_at_RB : bOpp_at_RB);
            }
            for (int i = 0; i < 3; ++i)
                out[(static_cast<size_t>(y) * static_cast<size_t>(m.width) +
                     static_cast<size_t>(x)) *
                        3 +
                    static_cast<size_t>(i)] = rgb[i];
        }
    return out;
}

Image ref_demosaic(const Mono& m, const std::string& pattern, bool mhc) {
    const std::vector<double> raw = ref_demosaic_raw(m, pattern, mhc);
    Image out{m.width, m.height, m.deep ? WorkFormat::rgba16 : WorkFormat::rgba8,
              std::vector<uint16_t>(raw.size() / 3 * 4)};
    for (size_t i = 0; i < raw.size() / 3; ++i) {
        for (size_t c = 0; c < 3; ++c)
            out.px[4 * i + c] = ref_quantise(raw[3 * i + c], m.max_value());
        out.px[4 * i + 3] = static_cast<uint16_t>(m.max_value());
    }
    return out;
}

Mono ref_mosaic(const Image& in, const std::string& pattern) {
    Mono m{in.width, in.height, in.format == WorkFormat::rgba16,
           std::vector<uint16_t>(static_cast<size_t>(in.width) * static_cast<size_t>(in.height))};
    for (int y = 0; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x)
            m.at(x, y) = in.at(x, y, site_colour(pattern, x, y));
    return m;
}

// Applies f(value, channel or site colour) to R, G, B (alpha kept) or to each mosaic sample.
template <typename F>
Frame ref_pointwise(const Frame& in, const std::string& pattern, F f) {
    Frame out = in;
    if (in.mosaic) {
        for (int y = 0; y < in.mono.height; ++y)
            for (int x = 0; x < in.mono.width; ++x)
                out.mono.at(x, y) = ref_quantise(
                    f(static_cast<double>(in.mono.at(x, y)), site_colour(pattern, x, y)),
                    in.mono.max_value());
    } else {
        for (int y = 0; y < in.colour.height; ++y)
            for (int x = 0; x < in.colour.width; ++x)
                for (int c = 0; c < 3; ++c)
                    out.colour.at(x, y, c) = ref_quantise(
                        f(static_cast<double>(in.colour.at(x, y, c)), c), in.colour.max_value());
    }
    return out;
}

int frame_diff(const Frame& a, const Frame& b, std::string* where) {
    if (a.mosaic != b.mosaic) {
        *where = "kinds differ";
        return 1 << 20;
    }
    if (!a.mosaic) return max_diff(a.colour, b.colour, 0, 3, where);
    int worst = 0;
    for (int y = 0; y < a.mono.height; ++y)
        for (int x = 0; x < a.mono.width; ++x) {
            const int d = std::abs(int{a.mono.at(x, y)} - int{b.mono.at(x, y)});
            if (d > worst) {
                worst = d;
                *where = "(" + std::to_string(x) + "," + std::to_string(y) +
                         "): " + std::to_string(a.mono.at(x, y)) + " vs " +
                         std::to_string(b.mono.at(x, y));
            }
        }
    return worst;
}

Histogram ref_histogram(const Frame& in) {
    Histogram h;
    const bool deep = is_deep(in.format());
    auto bin = [deep](uint32_t v) -> uint32_t {
        return deep ? static_cast<uint32_t>(std::nearbyint(v * 255.0 / 65535.0)) : v;
    };
    for (int y = 0; y < in.height(); ++y)
        for (int x = 0; x < in.width(); ++x) {
            uint32_t rgb[3];
            for (int c = 0; c < 3; ++c)
                rgb[c] = bin(in.mosaic ? in.mono.at(x, y) : in.colour.at(x, y, c));
            const uint32_t l = (13933u * rgb[0] + 46871u * rgb[1] + 4732u * rgb[2] + 32768u) >> 16;
            for (int c = 0; c < 3; ++c)
                ++h.counts[static_cast<size_t>(c) * 256 + rgb[c]];
            ++h.counts[768 + l];
        }
    return h;
}

const std::array<const char*, 4> kPatterns = {"rggb", "bggr", "grbg", "gbrg"};
const std::array<std::pair<int, int>, 4> kSizes = {{{1, 1}, {2, 3}, {17, 13}, {640, 480}}};

class Isp : public ::testing::Test {
protected:
    void SetUp() override { VFX_REQUIRE_CL(); }
};

std::string what(const std::string& chain, int w, int h, WorkFormat f) {
    return chain + " " + std::to_string(w) + "x" + std::to_string(h) + " " +
           std::string(to_string(f));
}

void expect_frame(const Frame& got, const Frame& ref, int tolerance, const std::string& label) {
    std::string where;
    EXPECT_LE(frame_diff(got, ref, &where), tolerance) << label << " worst at " << where;
}

// ---- demosaic / mosaic ----

TEST_F(Isp, DemosaicBothMethodsAllPatternsSizesDepths) {
    ClContext& cl = *test_cl();
    std::mt19937 rng(101);
    for (bool deep : {false, true})
        for (auto [w, h] : kSizes)
            for (const char* pattern : kPatterns)
                for (const char* method : {"mhc", "bilinear"}) {
                    const Mono in = random_mono(w, h, deep, rng);
                    const std::string chain =
                        std::string("demosaic=method=") + method + ":pattern=" + pattern;
                    const RunResult r = run_filter(cl, chain, of(in));
                    expect_frame(r.out, of(ref_demosaic(in, pattern, std::string(method) == "mhc")),
                                 1, what(chain, w, h, in.format()));
                }
}

TEST_F(Isp, Demosaic1080p) {
    ClContext& cl = *test_cl();
    std::mt19937 rng(102);
    const Mono in = random_mono(1920, 1080, true, rng);
    const RunResult r = run_filter(cl, "demosaic=pattern=grbg", of(in));
    expect_frame(r.out, of(ref_demosaic(in, "grbg", true)), 1, "demosaic 1080p");
}

TEST_F(Isp, DemosaicOfFlatMosaicIsFlatBordersIncluded) {
    // Reflect-101 keeps the Bayer phase: a mosaic of a flat colour demosaics to that colour
    // everywhere, the borders included (with clamp-to-edge the phase would break there).
    ClContext& cl = *test_cl();
    for (const char* pattern : kPatterns) {
        Image flat{19, 11, WorkFormat::rgba16, {}};
        flat.px.resize(19 * 11 * 4);
        for (size_t i = 0; i < flat.px.size(); i += 4) {
            flat.px[i] = 30000, flat.px[i + 1] = 20000, flat.px[i + 2] = 9000,
            flat.px[i + 3] = 65535;
        }
        for (const char* method : {"mhc", "bilinear"}) {
            const RunResult r =
                run_filter(cl, std::string("demosaic=method=") + method + ":pattern=" + pattern,
                           of(ref_mosaic(flat, pattern)));
            expect_frame(r.out, of(flat), 0, std::string("flat ") + pattern + " " + method);
        }
    }
}

TEST_F(Isp, MosaicBitExact) {
    ClContext& cl = *test_cl();
    std::mt19937 rng(103);
    for (WorkFormat wf : {WorkFormat::rgba8, WorkFormat::rgba16})
        for (auto [w, h] : kSizes)
            for (const char* pattern : kPatterns) {
                const Image in = random_image(w, h, wf, rng);
                const std::string chain = std::string("mosaic=pattern=") + pattern;
                const RunResult r = run_filter(cl, chain, of(in));
                expect_frame(r.out, of(ref_mosaic(in, pattern)), 0, what(chain, w, h, wf));
            }
    const Image big = random_image(1920, 1080, WorkFormat::rgba8, rng);
    expect_frame(run_filter(cl, "mosaic=pattern=gbrg", of(big)).out, of(ref_mosaic(big, "gbrg")), 0,
                 "mosaic 1080p");
}

// Every tuned candidate (forced in turn) against the reference, on sizes that are not multiples
// of a work-item's block (4 x PY), on frames smaller than one block, and on widths that are
// multiples of 4 (demosaic's edge blocks of mono8 then take their words from the row: 4 wide,
// one block at both edges; 64 wide, blocks at each edge).
TEST_F(Isp, DemosaicAndMosaicEveryTunedVariant) {
    ClContext& cl = *test_cl();
    const std::pair<int, int> sizes[] = {{67, 29}, {1, 1},   {3, 200}, {5, 6},
                                         {9, 3},   {130, 7}, {4, 9},   {64, 11}};
    for (const KernelVariant& v : stencil::demosaic_variants()) {
        cl.tuner().force(v.label());
        std::mt19937 rng(104);
        for (bool deep : {false, true})
            for (auto [w, h] : sizes)
                for (const char* pattern : kPatterns)
                    for (const char* method : {"mhc", "bilinear"}) {
                        const Mono in = random_mono(w, h, deep, rng);
                        const std::string chain =
                            std::string("demosaic=method=") + method + ":pattern=" + pattern;
                        expect_frame(run_filter(cl, chain, of(in)).out,
                                     of(ref_demosaic(in, pattern, std::string(method) == "mhc")), 0,
                                     what(chain, w, h, in.format()) + " " + v.label());
                    }
    }
    for (const KernelVariant& v : stencil::mosaic_variants()) {
        cl.tuner().force(v.label());
        std::mt19937 rng(105);
        for (WorkFormat wf : {WorkFormat::rgba8, WorkFormat::rgba16})
            for (auto [w, h] : sizes)
                for (const char* pattern : kPatterns) {
                    const Image in = random_image(w, h, wf, rng);
                    const std::string chain = std::string("mosaic=pattern=") + pattern;
                    expect_frame(run_filter(cl, chain, of(in)).out, of(ref_mosaic(in, pattern)), 0,
                                 what(chain, w, h, wf) + " " + v.label());
                }
    }
    cl.tuner().force("");
}

// The candidates that prefetch the rows of the group up to 2048 places ahead (demosaic.cl's LP)
// or R rows down (RP) on frames of more than 2048 work-groups in each of their shapes, so that
// the prefetches are issued (on NVIDIA; elsewhere they are nothing): 4100 x 600 (prefetched
// tiles inside the frame and at its right edge, clamped to its width) and 3 x 40000 (one group
// per row of groups).
TEST_F(Isp, DemosaicPrefetchingVariantsOnFramesOfManyGroups) {
    ClContext& cl = *test_cl();
    const std::pair<int, int> sizes[] = {{4100, 600}, {3, 40000}};
    int prefetching = 0;
    for (const KernelVariant& v : stencil::demosaic_variants()) {
        if (v.options.find("-DLP=") == std::string::npos &&
            v.options.find("-DRP=") == std::string::npos)
            continue;
        ++prefetching;
        cl.tuner().force(v.label());
        std::mt19937 rng(107);
        for (bool deep : {false, true})
            for (auto [w, h] : sizes)
                for (const char* method : {"mhc", "bilinear"}) {
                    const Mono in = random_mono(w, h, deep, rng);
                    const std::string chain =
                        std::string("demosaic=method=") + method + ":pattern=grbg";
                    expect_frame(run_filter(cl, chain, of(in)).out,
                                 of(ref_demosaic(in, "grbg", std::string(method) == "mhc")), 0,
                                 what(chain, w, h, in.format()) + " " + v.label());
                }
    }
    cl.tuner().force("");
    EXPECT_GT(prefetching, 0) << "no demosaic candidate prefetches: this test checks nothing";
}

// Mosaics of 0 and max only, laid out so that each Malvar-He-Cutler filter reaches its largest
// and its smallest value (the samples under its positive weights at max and under its negative
// ones at 0, then the reverse) on each of the four Bayer phases: 28/16 max and -12/16 max, far
// outside the range, so the kernels must saturate them (and round the ties of 0/max averages).
// Every tuned candidate against the reference, both depths, all patterns, both methods.
TEST_F(Isp, DemosaicSaturatesTheFiltersExtremesEveryTunedVariant) {
    ClContext& cl = *test_cl();
    const std::array<const K5*, 4> filters = {&kRow_at_G, &kCol_at_G, &kG_at_RB, &kOpp_at_RB};
    // One 6 x 6 block per (filter, sign, phase), its centre at (2 + px, 2 + py): 8 x 4 blocks,
    // then an odd margin; every sample the extremes leave free is 0 or max at random.
    constexpr int kW = 8 * 6 + 3, kH = 4 * 6 + 1;
    std::mt19937 rng(106);
    for (bool deep : {false, true}) {
        Mono in{kW, kH, deep, std::vector<uint16_t>(size_t{kW} * kH)};
        const auto max = static_cast<uint16_t>(in.max_value());
        for (auto& v : in.px)
            v = (rng() & 1) ? max : 0;
        for (int b = 0; b < 32; ++b) {
            const K5& k = *filters[static_cast<size_t>(b % 4)];
            const bool high = (b / 4) % 2 == 0;
            const int phase = b / 8;
            const int cx = (b % 8) * 6 + 2 + phase % 2, cy = (b / 8) * 6 + 2 + phase / 2;
            for (int dy = -2; dy <= 2; ++dy)
                for (int dx = -2; dx <= 2; ++dx) {
                    const double wt = k[static_cast<size_t>(dy + 2)][static_cast<size_t>(dx + 2)];
                    if (wt != 0) in.at(cx + dx, cy + dy) = (wt > 0) == high ? max : 0;
                }
        }
        // The frame does reach the extremes: on every pattern, each block whose filter is the
        // one of its centre's site holds that filter's largest or smallest value there.
        for (const char* pattern : kPatterns) {
            const std::vector<double> raw = ref_demosaic_raw(in, pattern, true);
            int reached = 0;
            for (int b = 0; b < 32; ++b) {
                const size_t f = static_cast<size_t>(b % 4);
                const bool high = (b / 4) % 2 == 0;
                const int phase = b / 8;
                const int cx = (b % 8) * 6 + 2 + phase % 2, cy = (b / 8) * 6 + 2 + phase / 2;
                const int site = site_colour(pattern, cx, cy);
                const int row_colour = site_colour(pattern, cx + 1, cy);
                int channel = -1;  // the channel filter f makes at this site, if it is its site's
                if (site == 1 && f < 2) channel = f == 0 ? row_colour : 2 - row_colour;
                if (site != 1 && f >= 2) channel = f == 2 ? 1 : 2 - site;
                if (channel < 0) continue;
                double extreme = 0;
                for (const auto& row : *filters[f])
                    for (double wt : row)
                        if ((wt > 0) == high) extreme += wt * max / 8;
                EXPECT_EQ(raw[(static_cast<size_t>(cy) * kW + static_cast<size_t>(cx)) * 3 +
                              static_cast<size_t>(channel)],
                          extreme)
                    << pattern << " block " << b;
                ++reached;
            }
            EXPECT_EQ(reached, 16) << pattern;  // 4 filters x 2 signs x their 2 phases
        }
        for (const KernelVariant& v : stencil::demosaic_variants()) {
            cl.tuner().force(v.label());
            for (const char* pattern : kPatterns)
                for (const char* method : {"mhc", "bilinear"}) {
                    const std::string chain =
                        std::string("demosaic=method=") + method + ":pattern=" + pattern;
                    expect_frame(run_filter(cl, chain, of(in)).out,
                                 of(ref_demosaic(in, pattern, std::string(method) == "mhc")), 0,
                                 what(chain, kW, kH, in.format()) + " " + v.label());
                }
        }
    }
    cl.tuner().force("");
}

// ---- point-wise stages, on colour and on mosaics ----

// Random colour and mosaic frames of the test sizes (both depths), `body` run on each.
template <typename F>
void for_each_frame(uint32_t seed, F body) {
    std::mt19937 rng(seed);
    for (bool deep : {false, true})
        for (auto [w, h] : {std::pair{1, 1}, {2, 3}, {17, 13}, {64, 48}}) {
            body(of(random_image(w, h, deep ? WorkFormat::rgba16 : WorkFormat::rgba8, rng)));
            body(of(random_mono(w, h, deep, rng)));
        }
}

TEST_F(Isp, BlackLevel) {
    ClContext& cl = *test_cl();
    struct P {
        double black, white;  // white 0: 2^bits - 1
    };
    for_each_frame(104, [&](const Frame& in) {
        const int bits = is_deep(in.format()) ? 16 : 8;
        const double full = std::ldexp(1.0, bits) - 1;
        for (P p :
             {P{0, 0}, P{16, 235}, P{0, 1}, P{full - 1, full}, P{3, 0}, P{full / 4, full / 2}}) {
            const std::string chain = fmt::format("blacklevel=black={}:white={}", p.black, p.white);
            const double white = p.white > 0 ? p.white : full;
            const double max = is_deep(in.format()) ? 65535.0 : 255.0;
            const Frame ref = ref_pointwise(in, "rggb", [&](double v, int) {
                return std::clamp((v / max - p.black / full) / ((white - p.black) / full), 0.0,
                                  1.0) *
                       max;
            });
            expect_frame(run_filter(cl, chain, in, bits).out, ref, 1,
                         what(chain, in.width(), in.height(), in.format()));
        }
    });
    // A 10-bit source in a 16-bit frame: B and W are 10-bit code values.
    std::mt19937 rng(105);
    const Mono in = random_mono(33, 17, true, rng);
    const Frame ref = ref_pointwise(of(in), "rggb", [](double v, int) {
        return std::clamp((v / 65535 - 64.0 / 1023) / ((940.0 - 64) / 1023), 0.0, 1.0) * 65535;
    });
    expect_frame(run_filter(cl, "blacklevel=black=64:white=940", of(in), 10).out, ref, 1,
                 "blacklevel 10-bit");
    // parse_chain refuses white <= black (FilterInfo::check); the factory does too, for an
    // instance whose values were set one by one (the overlay's editor).
    EXPECT_THROW(parse_chain("blacklevel=black=100:white=50"), Error);
    FilterInstance bad = make_filter("blacklevel");
    bad.set("black", "100");
    bad.set("white", "50");
    EXPECT_THROW(bad.info->factory(cl, bad), Error);
}

TEST_F(Isp, WhiteBalanceAllPatterns) {
    ClContext& cl = *test_cl();
    struct G {
        double r, g, b;
    };
    for_each_frame(106, [&](const Frame& in) {
        for (const char* pattern : kPatterns)
            for (G gain : {G{1, 1, 1}, G{2.1, 1, 1.7}, G{0, 16, 0.5}, G{16, 0, 3.3}}) {
                if (!in.mosaic && std::string(pattern) != "rggb") continue;  // colour ignores it
                const std::string chain =
                    fmt::format("wb=r={}:g={}:b={}:pattern={}", gain.r, gain.g, gain.b, pattern);
                const Frame ref = ref_pointwise(in, pattern, [&](double v, int c) {
                    return v * (c == 0 ? gain.r : c == 1 ? gain.g : gain.b);
                });
                expect_frame(run_filter(cl, chain, in).out, ref, 1,
                             what(chain, in.width(), in.height(), in.format()));
            }
    });
}

TEST_F(Isp, ColourMatrix) {
    ClContext& cl = *test_cl();
    const std::vector<std::array<double, 9>> matrices = {
        {1, 0, 0, 0, 1, 0, 0, 0, 1},
        {1.6, -0.4, -0.2, -0.3, 1.5, -0.2, 0.05, -0.55, 1.5},
        {16, -16, 0.5, -16, 16, -16, 0, 0, 16},
        {0.2126, 0.7152, 0.0722, 0.2126, 0.7152, 0.0722, 0.2126, 0.7152, 0.0722}};
    for_each_frame(107, [&](const Frame& in) {
        if (in.mosaic) return;
        for (const auto& m : matrices) {
            const std::string chain = fmt::format("ccm=matrix={}", fmt::join(m, "|"));
            Frame ref = in;
            for (int y = 0; y < in.height(); ++y)
                for (int x = 0; x < in.width(); ++x)
                    for (int r = 0; r < 3; ++r) {
                        double s = 0;
                        for (int c = 0; c < 3; ++c)
                            s += m[static_cast<size_t>(3 * r + c)] * in.colour.at(x, y, c);
                        ref.colour.at(x, y, r) = ref_quantise(s, in.colour.max_value());
                    }
            expect_frame(run_filter(cl, chain, in).out, ref, 1,
                         what(chain, in.width(), in.height(), in.format()));
        }
    });
    EXPECT_THROW(
        make_filter("ccm").info->factory(cl, parse_chain("ccm=matrix=1|2|3").filters.front()),
        Error);
}

TEST_F(Isp, Gamma) {
    ClContext& cl = *test_cl();
    for_each_frame(108, [&](const Frame& in) {
        const double max = is_deep(in.format()) ? 65535.0 : 255.0;
        for (double g : {0.1, 1.0, 2.2, 10.0}) {
            const std::string chain = fmt::format("gamma=curve=power:value={}", g);
            const Frame ref = ref_pointwise(
                in, "rggb", [&](double v, int) { return std::pow(v / max, 1 / g) * max; });
            expect_frame(run_filter(cl, chain, in).out, ref, 1,
                         what(chain, in.width(), in.height(), in.format()));
        }
        const Frame ref = ref_pointwise(in, "rggb", [&](double v, int) {
            const double x = v / max;
            return (x <= 0.0031308 ? 12.92 * x : 1.055 * std::pow(x, 1 / 2.4) - 0.055) * max;
        });
        expect_frame(run_filter(cl, "gamma=curve=srgb", in).out, ref, 1,
                     what("gamma=curve=srgb", in.width(), in.height(), in.format()));
    });
    // Every 16-bit value once, through both curves (the steep end near 0 included).
    Mono ramp{256, 256, true, std::vector<uint16_t>(65536)};
    for (size_t i = 0; i < ramp.px.size(); ++i)
        ramp.px[i] = static_cast<uint16_t>(i);
    for (const char* chain : {"gamma=curve=srgb", "gamma=value=2.4", "gamma=value=0.1"}) {
        const FilterInstance f = parse_chain(chain).filters.front();
        const bool srgb = f.get_enum("curve") == "srgb";
        const double g = f.get_float("value");
        const Frame ref = ref_pointwise(of(ramp), "rggb", [&](double v, int) {
            const double x = v / 65535;
            return (srgb ? (x <= 0.0031308 ? 12.92 * x : 1.055 * std::pow(x, 1 / 2.4) - 0.055)
                         : std::pow(x, 1 / g)) *
                   65535;
        });
        expect_frame(run_filter(cl, chain, of(ramp)).out, ref, 1, std::string(chain) + " ramp");
    }
}

// ---- blend and histogram ----

double ref_blend(double b, double t, const std::string& mode, double a) {
    double m = t;
    if (mode == "add") m = std::min(b + t, 1.0);
    if (mode == "multiply") m = b * t;
    if (mode == "screen") m = 1 - (1 - b) * (1 - t);
    return b + a * (m - b);
}

TEST_F(Isp, BlendModesAndOpacity) {
    ClContext& cl = *test_cl();
    std::mt19937 rng(109);
    for (WorkFormat wf : {WorkFormat::rgba8, WorkFormat::rgba16})
        for (auto [w, h] : {std::pair{1, 1}, {2, 3}, {17, 13}, {640, 480}})
            for (bool mono_base : {false, true}) {
                const Image top = random_image(w, h, wf, rng);
                const Image base_c = random_image(w, h, wf, rng);
                const Mono base_m = random_mono(w, h, wf == WorkFormat::rgba16, rng);
                const Frame base = mono_base ? of(base_m) : of(base_c);
                const double max = top.max_value();
                for (const char* mode : {"normal", "add", "multiply", "screen"})
                    for (double a : {0.0, 0.35, 1.0}) {
                        if (w == 640 && a != 0.35) continue;
                        const std::string chain = fmt::format("blend=mode={}:opacity={}", mode, a);
                        Image ref = top;
                        for (int y = 0; y < h; ++y)
                            for (int x = 0; x < w; ++x)
                                for (int c = 0; c < 3; ++c) {
                                    const double b =
                                        (mono_base ? base_m.at(x, y) : base_c.at(x, y, c)) / max;
                                    ref.at(x, y, c) = ref_quantise(
                                        ref_blend(b, top.at(x, y, c) / max, mode, a) * max, max);
                                }
                        expect_frame(run_filter(cl, chain, of(top), 0, &base).out, of(ref), 1,
                                     what(chain, w, h, wf) + (mono_base ? " mono base" : ""));
                    }
            }
}

void expect_histogram(const Histogram& got, const Histogram& ref, const std::string& label) {
    for (int c = 0; c < 4; ++c)
        for (int i = 0; i < 256; ++i)
            if (got.at(c, i) != ref.at(c, i)) {
                ADD_FAILURE() << label << ": channel " << c << " bin " << i << ": " << got.at(c, i)
                              << " vs " << ref.at(c, i);
                return;
            }
}

TEST_F(Isp, HistogramBitExactFramePassesUnchanged) {
    ClContext& cl = *test_cl();
    int runs = 0;
    for_each_frame(110, [&](const Frame& in) {
        const RunResult r = run_filter(cl, "histogram", in);
        ASSERT_TRUE(r.has_hist);
        expect_histogram(r.hist, ref_histogram(in),
                         what("histogram", in.width(), in.height(), in.format()));
        expect_frame(r.out, in, 0, "histogram changed the frame");
        uint64_t total = 0;
        for (int i = 0; i < 256; ++i)
            total += r.hist.luma(i);
        EXPECT_EQ(total, static_cast<uint64_t>(in.width()) * static_cast<uint64_t>(in.height()));
        ++runs;
    });
    EXPECT_EQ(runs, 16);
    std::mt19937 rng(111);
    const Image big = random_image(1920, 1080, WorkFormat::rgba16, rng);
    const RunResult r = run_filter(cl, "histogram", of(big));
    expect_histogram(r.hist, ref_histogram(of(big)), "histogram 1080p");
}

// Counting in place (as a chain runs it) and with the copy, on sizes that are not multiples of
// a quad, on flat frames (every pixel the same value: the work-items' local adds all meet the
// same bins) and on frames of two levels.
TEST_F(Isp, HistogramInPlaceAndCopyOnRandomFlatAndTwoLevelFrames) {
    ClContext& cl = *test_cl();
    std::mt19937 rng(112);
    std::vector<Frame> frames;
    for (auto [w, h] : {std::pair{1, 1}, {5, 3}, {67, 29}, {130, 97}, {2001, 3}})
        for (bool deep : {false, true}) {
            frames.push_back(
                of(random_image(w, h, deep ? WorkFormat::rgba16 : WorkFormat::rgba8, rng)));
            frames.push_back(of(random_mono(w, h, deep, rng)));
        }
    for (bool deep : {false, true}) {
        const uint16_t v = deep ? 40000 : 200;
        Image flat = random_image(261, 300, deep ? WorkFormat::rgba16 : WorkFormat::rgba8, rng);
        Image grey = flat;
        Mono mono = random_mono(261, 300, deep, rng);
        for (int y = 0; y < flat.height; ++y)
            for (int x = 0; x < flat.width; ++x) {
                for (int c = 0; c < 3; ++c) {
                    flat.at(x, y, c) = static_cast<uint16_t>(v / (c + 1));
                    grey.at(x, y, c) = v;  // R = G = B = luma: the same bin in all four counts
                }
                mono.at(x, y) = v;
            }
        frames.push_back(of(flat));
        frames.push_back(of(grey));
        frames.push_back(of(mono));
        // Two levels at random: equal and unequal neighbours in every arrangement.
        Image two = random_image(67, 29, deep ? WorkFormat::rgba16 : WorkFormat::rgba8, rng);
        Mono two_mono = random_mono(67, 29, deep, rng);
        for (int y = 0; y < two.height; ++y)
            for (int x = 0; x < two.width; ++x) {
                for (int c = 0; c < 4; ++c)
                    two.at(x, y, c) = two.at(x, y, c) & 1 ? v : 0;
                two_mono.at(x, y) = two_mono.at(x, y) & 1 ? v : 0;
            }
        frames.push_back(of(two));
        frames.push_back(of(two_mono));
    }
    for (const Frame& in : frames)
        for (bool in_place : {true, false}) {
            const std::string label = what("histogram", in.width(), in.height(), in.format()) +
                                      (in_place ? " in place" : " copy");
            const RunResult r = run_filter(cl, "histogram", in, 0, nullptr, in_place);
            ASSERT_TRUE(r.has_hist) << label;
            expect_histogram(r.hist, ref_histogram(in), label);
            expect_frame(r.out, in, 0, label + ": the frame changed");
        }
}

// ---- demosaic quality on a real photograph ----

// assets/chelsea_256x192.ppm: a crop of scikit-image's sample photograph "chelsea" (from the
// Debian 12 package python3-skimage 0.19.3-8; provenance in assets/chelsea_256x192.txt).
Image load_ppm(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::string magic;
    int w = 0, h = 0, maxv = 0;
    f >> magic >> w >> h >> maxv;
    f.get();
    if (!f || magic != "P6" || maxv != 255) return {};
    std::vector<unsigned char> rgb(static_cast<size_t>(w) * static_cast<size_t>(h) * 3);
    f.read(reinterpret_cast<char*>(rgb.data()), static_cast<std::streamsize>(rgb.size()));
    if (!f) return {};
    Image img{w, h, WorkFormat::rgba8,
              std::vector<uint16_t>(static_cast<size_t>(w) * static_cast<size_t>(h) * 4)};
    for (size_t i = 0; i < rgb.size() / 3; ++i) {
        for (size_t c = 0; c < 3; ++c)
            img.px[4 * i + c] = rgb[3 * i + c];
        img.px[4 * i + 3] = 255;
    }
    return img;
}

// Colour PSNR over R, G, B, `border` pixels excluded on every side.
double cpsnr(const Image& a, const Image& b, int border) {
    double se = 0;
    size_t n = 0;
    for (int y = border; y < a.height - border; ++y)
        for (int x = border; x < a.width - border; ++x)
            for (int c = 0; c < 3; ++c) {
                const double d =
                    static_cast<double>(a.at(x, y, c)) - static_cast<double>(b.at(x, y, c));
                se += d * d;
                ++n;
            }
    return 10 * std::log10(a.max_value() * a.max_value() / (se / static_cast<double>(n)));
}

TEST_F(Isp, MhcBeatsBilinearOnAPhotograph) {
    ClContext& cl = *test_cl();
    const Image photo = load_ppm(vfx::test::source_dir() + "/assets/chelsea_256x192.ppm");
    ASSERT_EQ(photo.width, 256) << "assets/chelsea_256x192.ppm is missing or not a P6 PPM";
    // Not vacuous: the photograph has detail (colour and luminance variance).
    double mean = 0, var = 0;
    for (size_t i = 0; i < photo.px.size(); i += 4)
        mean += photo.px[i + 1];
    mean /= static_cast<double>(photo.px.size() / 4);
    for (size_t i = 0; i < photo.px.size(); i += 4)
        var += std::pow(photo.px[i + 1] - mean, 2);
    ASSERT_GT(std::sqrt(var / static_cast<double>(photo.px.size() / 4)), 20.0);
    for (const char* pattern : kPatterns) {
        const Mono m = run_filter(cl, std::string("mosaic=pattern=") + pattern, of(photo)).out.mono;
        const Image mhc =
            run_filter(cl, std::string("demosaic=method=mhc:pattern=") + pattern, of(m)).out.colour;
        const Image bil =
            run_filter(cl, std::string("demosaic=method=bilinear:pattern=") + pattern, of(m))
                .out.colour;
        const double p_mhc = cpsnr(photo, mhc, 4), p_bil = cpsnr(photo, bil, 4);
        std::cout << "[ CPSNR    ] " << pattern << ": MHC " << p_mhc << " dB, bilinear " << p_bil
                  << " dB (+" << p_mhc - p_bil << ")\n";
        EXPECT_GE(p_mhc - p_bil, 3.0) << pattern;
        EXPECT_GT(p_bil, 20.0) << pattern << ": the bilinear result is not even close";
        EXPECT_LT(p_mhc, 60.0) << pattern << ": suspiciously perfect";
    }
}

// ---- the processor's mosaic path ----

SourceCase gray8_case() {
    return {"gray", AV_PIX_FMT_GRAY8, make_sf(PlaneLayout::gray, 8, 1, 0, 0, 0)};
}
SourceCase bayer16_case() {
    return {"bayer_rggb16le", AV_PIX_FMT_BAYER_RGGB16LE,
            make_sf(PlaneLayout::gray, 16, 2, 0, 0, 0)};
}
SourceCase gray10_case() {
    return {"gray10le", AV_PIX_FMT_GRAY10LE, make_sf(PlaneLayout::gray, 10, 2, 0, 0, 0)};
}

// The mosaic the processor makes of a gray frame: full range (core/format.hpp).
Mono mono_of_frame(const HostFrame& f) {
    const bool deep = f.format.bits > 8;
    Mono m{f.width, f.height, deep,
           std::vector<uint16_t>(static_cast<size_t>(f.width) * static_cast<size_t>(f.height))};
    const double full = std::ldexp(1.0, f.format.bits) - 1;
    for (int y = 0; y < f.height; ++y)
        for (int x = 0; x < f.width; ++x) {
            const uint8_t* row = f.av->data[0] + static_cast<ptrdiff_t>(y) * f.av->linesize[0];
            uint32_t v = 0;
            if (f.format.bytes == 1) {
                v = row[x];
            } else {
                uint16_t s = 0;
                std::memcpy(&s, row + 2 * x, 2);
                v = s;
            }
            m.at(x, y) = ref_quantise(v / full * m.max_value(), m.max_value());
        }
    return m;
}

Image grey_of(const Mono& m) {
    Image img{m.width, m.height, m.deep ? WorkFormat::rgba16 : WorkFormat::rgba8,
              std::vector<uint16_t>(m.px.size() * 4)};
    for (size_t i = 0; i < m.px.size(); ++i) {
        img.px[4 * i] = img.px[4 * i + 1] = img.px[4 * i + 2] = m.px[i];
        img.px[4 * i + 3] = static_cast<uint16_t>(m.max_value());
    }
    return img;
}

TEST_F(Isp, ProcessorGrayAndBayerThroughDemosaic) {
    ClContext& cl = *test_cl();
    std::mt19937 rng(120);
    for (const SourceCase& c : {gray8_case(), bayer16_case(), gray10_case()})
        for (auto [w, h] : {std::pair{1, 1}, {2, 3}, {17, 13}, {640, 480}})
            for (const char* pattern : {"rggb", "gbrg"}) {
                const HostFrame frame = random_frame(c, w, h, ColorInfo{}, rng);
                FrameProcessor proc(cl, parse_chain(std::string("demosaic=pattern=") + pattern));
                PendingFrame pend;
                const Image got = process(proc, cl, frame, &pend);
                const Image ref = ref_demosaic(mono_of_frame(frame), pattern, true);
                std::string where;
                EXPECT_LE(max_diff(got, ref, 0, 3, &where), 1)
                    << c.name << " " << w << "x" << h << " " << pattern << " worst at " << where;
                const auto t = pend.timings();
                ASSERT_EQ(t.size(), 3u);
                EXPECT_EQ(t[2].name, "demosaic");
                EXPECT_FALSE(pend.histogram().has_value());
            }
}

TEST_F(Isp, ProcessorMosaicAtTheEndIsShownGrey) {
    ClContext& cl = *test_cl();
    std::mt19937 rng(121);
    for (const SourceCase& c : {gray8_case(), gray10_case()}) {
        const HostFrame frame = random_frame(c, 37, 21, ColorInfo{}, rng);
        const Mono m = mono_of_frame(frame);
        // An empty chain keeps the old grey conversion; a mosaic-only chain ends in "display".
        FrameProcessor p0(cl, Chain{});
        std::string where;
        EXPECT_EQ(max_diff(process(p0, cl, frame), grey_of(m), 0, 3, &where), 0) << where;
        FrameProcessor p1(cl, parse_chain("wb=r=2:g=1:b=0.5:pattern=bggr"));
        PendingFrame pend;
        const Image got = process(p1, cl, frame, &pend);
        const Frame ref = ref_pointwise(of(m), "bggr", [](double v, int s) {
            return v * (s == 0 ? 2 : s == 1 ? 1 : 0.5);
        });
        EXPECT_LE(max_diff(got, grey_of(ref.mono), 0, 3, &where), 1) << c.name << " " << where;
        const auto t = pend.timings();
        ASSERT_EQ(t.size(), 4u);
        EXPECT_EQ(t[3].name, "display");
    }
}

TEST_F(Isp, ProcessorFullIspChainWithBlendAndHistogram) {
    ClContext& cl = *test_cl();
    std::mt19937 rng(122);
    const HostFrame frame = random_frame(bayer16_case(), 45, 29, ColorInfo{}, rng);
    const Mono m = mono_of_frame(frame);
    FrameProcessor proc(cl,
                        parse_chain("blacklevel=black=4096:white=60000,wb=r=1.8:b=1.4,"
                                    "demosaic,ccm=matrix=1.5|-0.3|-0.2|-0.2|1.4|-0.2|0|-0.4|1.4,"
                                    "gamma=curve=srgb,histogram,blend=mode=screen:opacity=0.4"));
    PendingFrame pend;
    const Image got = process(proc, cl, frame, &pend);
    // Reference, stage by stage (each stage quantised as the engine's are).
    Frame f = ref_pointwise(of(m), "rggb", [](double v, int) {
        return std::clamp((v / 65535 - 4096.0 / 65535) / ((60000.0 - 4096) / 65535), 0.0, 1.0) *
               65535;
    });
    f = ref_pointwise(f, "rggb", [](double v, int s) {
        return v * (s == 0 ? 1.8 : s == 1 ? 1 : 1.4);
    });
    Image c = ref_demosaic(f.mono, "rggb", true);
    const double k[9] = {1.5, -0.3, -0.2, -0.2, 1.4, -0.2, 0, -0.4, 1.4};
    Image c2 = c;
    for (int y = 0; y < c.height; ++y)
        for (int x = 0; x < c.width; ++x)
            for (int r = 0; r < 3; ++r)
                c2.at(x, y, r) =
                    ref_quantise(k[3 * r] * c.at(x, y, 0) + k[3 * r + 1] * c.at(x, y, 1) +
                                     k[3 * r + 2] * c.at(x, y, 2),
                                 65535);
    const Frame g = ref_pointwise(of(c2), "rggb", [](double v, int) {
        const double x = v / 65535;
        return (x <= 0.0031308 ? 12.92 * x : 1.055 * std::pow(x, 1 / 2.4) - 0.055) * 65535;
    });
    Image ref = g.colour;
    for (int y = 0; y < ref.height; ++y)
        for (int x = 0; x < ref.width; ++x)
            for (int ch = 0; ch < 3; ++ch)
                ref.at(x, y, ch) =
                    ref_quantise(ref_blend(m.at(x, y) / 65535.0, g.colour.at(x, y, ch) / 65535.0,
                                           "screen", 0.4) *
                                     65535,
                                 65535);
    // Stages are quantised in both; 1-LSB differences can propagate through the steep sRGB
    // curve near black and the gains: allow a few LSB of 16 bits.
    std::string where;
    EXPECT_LE(max_diff(got, ref, 0, 3, &where), 64) << where;
    ASSERT_TRUE(pend.histogram().has_value());
    const Histogram h = *pend.histogram();
    uint64_t total = 0;
    for (int i = 0; i < 256; ++i)
        total += h.luma(i);
    EXPECT_EQ(total, 45u * 29u);
    // The histogram of the engine's own gamma output is exact; that output is close to g.
    const Histogram hr = ref_histogram(g);
    int off = 0;
    for (int i = 0; i < 1024; ++i)
        off += std::abs(static_cast<int>(h.counts[static_cast<size_t>(i)]) -
                        static_cast<int>(hr.counts[static_cast<size_t>(i)]));
    EXPECT_LE(off, 4 * 45 * 29 / 10) << "histogram far from the reference of the gamma stage";
}

TEST_F(Isp, ProcessorHistogramExactOnColour) {
    ClContext& cl = *test_cl();
    std::mt19937 rng(123);
    const SourceCase c{"rgba64", AV_PIX_FMT_RGBA64LE, make_sf(PlaneLayout::rgba, 16, 2, 0, 0, 0)};
    const HostFrame frame = random_frame(c, 61, 33, ColorInfo{}, rng);
    FrameProcessor proc(cl, parse_chain("histogram"));
    PendingFrame pend;
    const Image got = process(proc, cl, frame, &pend);
    ASSERT_TRUE(pend.histogram().has_value());
    expect_histogram(*pend.histogram(), ref_histogram(of(got)), "processor histogram");
}

TEST_F(Isp, KindErrorsAreOneLineBeforeGpuWork) {
    ClContext& cl = *test_cl();
    std::mt19937 rng(124);
    const SourceCase rgba{"rgba", AV_PIX_FMT_RGBA, make_sf(PlaneLayout::rgba, 8, 1, 0, 0, 0)};
    const HostFrame colour = random_frame(rgba, 8, 6, ColorInfo{}, rng);
    const HostFrame mosaic = random_frame(gray8_case(), 8, 6, ColorInfo{}, rng);
    struct Case {
        const HostFrame* frame;
        const char* chain;
        const char* names;
        const char* needs;
    };
    for (const Case& k :
         {Case{&colour, "demosaic", "'demosaic' (filter 1)", "needs a mosaic"},
          Case{&mosaic, "demosaic,mosaic,gaussian", "'gaussian' (filter 3)",
               "needs a colour frame"},
          // A grey source before a filter reading colour (ccm) is a grey picture: colour.
          Case{&mosaic, "wb,ccm,demosaic", "'demosaic' (filter 3)", "needs a mosaic"},
          Case{&colour, "mosaic,demosaic,demosaic", "'demosaic' (filter 3)", "needs a mosaic"}}) {
        FrameProcessor proc(cl, parse_chain(k.chain));
        const FrameGeometry g = make_geometry(8, 6, k.frame->format.work_format());
        ClMem target = cl.buffer(CL_MEM_READ_WRITE, g.size_bytes());
        try {
            (void)proc.enqueue(*k.frame, target.get(), g);
            ADD_FAILURE() << k.chain << ": no error";
        } catch (const Error& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find(k.names), std::string::npos) << msg;
            EXPECT_NE(msg.find(k.needs), std::string::npos) << msg;
            EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
        }
        // Nothing of the failed frame was enqueued: the processor still works afterwards.
        FrameProcessor ok(cl, Chain{});
        (void)process(ok, cl, *k.frame);
    }
    // A good chain on the same processor after a failed frame.
    FrameProcessor proc(cl, parse_chain("mosaic,demosaic"));
    EXPECT_NO_THROW((void)process(proc, cl, colour));
    // A grey source runs a colour filter as a grey picture (a monochrome video).
    FrameProcessor grey(cl, parse_chain("gaussian"));
    EXPECT_NO_THROW((void)process(grey, cl, mosaic));
}

}  // namespace
}  // namespace vfx::test
