// The auto-tuner: choices by measurement, the disk cache (reuse, retune, a changed candidate
// list, a foreign or broken file), forcing, and TunedKernel's variants computing one result.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "compute/cl_args.hpp"
#include "compute/tuner.hpp"
#include "compute_test_util.hpp"
#include "support/media.hpp"

namespace vfx {
namespace {

namespace fs = std::filesystem;

// A real, profiled command for the tuner to time: a mono -> RGBA pass over a small frame.
struct Timed {
    ClContext& cl;
    ClMem src, dst;
    ClKernel k;
    int runs = 0;
    std::vector<size_t> order;  // the candidate of every run
    explicit Timed(ClContext& c) : cl(c) {
        src = cl.buffer(CL_MEM_READ_WRITE, 64 * 4 * 32);
        dst = cl.buffer(CL_MEM_READ_WRITE, 64 * 4 * 32);
        k = cl.kernel("mono.cl", "mono_to_rgba", "-DWORK16=0 -DSRC16=0");
        set_args(k.get(), src.get(), cl_int{256}, dst.get(), cl_int{256}, cl_int{64}, cl_int{32});
    }
    ClEvent operator()(size_t i) {
        ++runs;
        order.push_back(i);
        return enqueue_2d(cl.queue(), k.get(), 64, 32, {8, 8});
    }
};

// Candidate 0 converts a 2048x2048 frame, candidate 1 a 64x32 one: one is far behind the other
// whatever the device.
struct SlowAndFast {
    ClContext& cl;
    Timed& fast;
    ClMem src, dst;
    ClKernel k;
    std::vector<size_t> order;
    int fast_fails_after = -1;  // >= 0: candidate 1's runs after that many refuse the device
    SlowAndFast(ClContext& c, Timed& f) : cl(c), fast(f) {
        src = cl.buffer(CL_MEM_READ_WRITE, size_t{2048} * 2048);
        dst = cl.buffer(CL_MEM_READ_WRITE, size_t{2048} * 2048 * 4);
        k = cl.kernel("mono.cl", "mono_to_rgba", "-DWORK16=0 -DSRC16=0");
        set_args(k.get(), src.get(), cl_int{2048}, dst.get(), cl_int{2048 * 4}, cl_int{2048},
                 cl_int{2048});
    }
    ClEvent operator()(size_t i) {
        order.push_back(i);
        if (i == 1 && fast_fails_after >= 0 &&
            std::count(order.begin(), order.end(), 1u) > fast_fails_after)
            throw GpuError("out of resources (test)", CL_OUT_OF_RESOURCES);
        return i == 0 ? enqueue_2d(cl.queue(), k.get(), 2048, 2048, {8, 8}) : fast(1);
    }
};

TEST(Tuner, MeasuresOnceThenReusesTheDiskCache) {
    VFX_REQUIRE_CL();
    ClContext& cl = *test::test_cl();
    const fs::path dir = fs::path(test::scratch_dir()) / "cache";
    const std::vector<std::string> labels{"a", "b", "c"};
    Timed t(cl);
    size_t first = 0;
    {
        Tuner tuner(cl.info(), dir);
        tuner.set_prune_ratio(std::nullopt);  // every candidate every round: runs to count
        first = tuner.choose("k 64x32", labels, std::ref(t));
        // A warm-up burst and 11 timed ones per candidate, each burst 2 runs back to back.
        EXPECT_EQ(t.runs, 3 * 12 * 2) << "a warm-up burst and 11 timed ones per candidate";
        // The timed bursts go in rounds, one of every candidate each, after every warm-up.
        ASSERT_EQ(t.order.size(), 72u);
        for (size_t r = 0; r < 6; ++r)
            EXPECT_EQ(t.order[r], r / 2) << "warm-up run " << r;
        for (size_t r = 6; r < t.order.size(); ++r)
            EXPECT_EQ(t.order[r], (r - 6) / 2 % 3) << "run " << r;
        EXPECT_EQ(tuner.choose("k 64x32", labels, std::ref(t)), first);
        EXPECT_EQ(t.runs, 72) << "a second use of the key measures nothing";
        ASSERT_TRUE(fs::exists(tuner.cache_file()));
        std::ifstream in(tuner.cache_file());
        const auto j = nlohmann::json::parse(in);
        EXPECT_EQ(j["entries"]["k 64x32"], labels[first]);
        EXPECT_NE(j["device"].get<std::string>().find(cl.info().name), std::string::npos);
    }
    {
        Tuner tuner(cl.info(), dir);  // the next start
        tuner.set_prune_ratio(std::nullopt);
        EXPECT_EQ(tuner.choose("k 64x32", labels, std::ref(t)), first);
        EXPECT_EQ(t.runs, 72) << "the cached choice is reused without measuring";
        // A changed candidate list no longer holds the cached label: measured again.
        const std::vector<std::string> other{"x", "y"};
        tuner.choose("k 64x32", other, std::ref(t));
        EXPECT_EQ(t.runs, 72 + 48);
    }
    {
        Tuner tuner(cl.info(), dir);
        tuner.set_prune_ratio(std::nullopt);
        tuner.set_mode(TuneMode::retune);
        tuner.choose("k 64x32", labels, std::ref(t));
        EXPECT_EQ(t.runs, 120 + 72) << "--retune measures again";
        tuner.force("b");
        EXPECT_EQ(tuner.choose("k 64x32", labels, std::ref(t)), 1u);
        tuner.force("");
        tuner.set_mode(TuneMode::fixed);
        EXPECT_EQ(tuner.choose("new key", labels, std::ref(t)), 0u);
        EXPECT_EQ(t.runs, 192) << "fixed mode never measures";
    }
}

TEST(Tuner, CandidatesFarBehindLeaveTheRoundsEarly) {
    VFX_REQUIRE_CL();
    ClContext& cl = *test::test_cl();
    const std::vector<std::string> labels{"slow", "fast"};
    Timed t(cl);
    SlowAndFast sf(cl, t);
    Tuner tuner(cl.info(), {});
    EXPECT_EQ(tuner.choose("k", labels, std::ref(sf)), 1u);
    // Bursts of 2 runs: the warm-up and 3 rounds, then it is left out; the other one all 11.
    EXPECT_EQ(std::count(sf.order.begin(), sf.order.end(), 0u), 2 * (1 + 3));
    EXPECT_EQ(std::count(sf.order.begin(), sf.order.end(), 1u), 2 * (1 + 11));

    // The one measured on is refused in round 5: the one left early is all there is, and runs.
    SlowAndFast refused(cl, t);
    refused.fast_fails_after = 2 * (1 + 4);
    EXPECT_EQ(tuner.choose("k2", labels, std::ref(refused)), 0u);
    EXPECT_THROW(tuner.set_prune_ratio(0.5), std::invalid_argument);
}

// How much the tuner's cache eviction goes through: enough to pass a GPU's last-level cache
// whatever the driver reports, never more than the device can spare, nothing on a CPU.
TEST(Tuner, EvictionBytes) {
    ClDeviceInfo h100;
    h100.type = CL_DEVICE_TYPE_GPU;
    h100.global_cache_bytes = 4325376;  // what NVIDIA's driver reports on an H100 (the L1s)
    h100.global_mem_bytes = uint64_t{80} << 30;
    h100.max_alloc_bytes = uint64_t{20} << 30;
    EXPECT_EQ(eviction_bytes(h100), size_t{128} << 20);
    ClDeviceInfo big_cache = h100;  // a driver that reports a 100 MiB last level
    big_cache.global_cache_bytes = uint64_t{100} << 20;
    EXPECT_EQ(eviction_bytes(big_cache), size_t{200} << 20);
    ClDeviceInfo small = h100;  // 512 MiB of memory: an eighth of it
    small.global_mem_bytes = uint64_t{512} << 20;
    EXPECT_EQ(eviction_bytes(small), size_t{64} << 20);
    ClDeviceInfo capped = h100;  // the largest allocation caps it, in whole 64-byte units
    capped.max_alloc_bytes = (uint64_t{32} << 20) + 5;
    EXPECT_EQ(eviction_bytes(capped), size_t{32} << 20);
    ClDeviceInfo tiny = h100;  // under 1 MiB to spare: no eviction rather than a useless one
    tiny.global_mem_bytes = uint64_t{4} << 20;
    EXPECT_EQ(eviction_bytes(tiny), 0u);
    ClDeviceInfo cpu = h100;
    cpu.type = CL_DEVICE_TYPE_CPU;
    EXPECT_EQ(eviction_bytes(cpu), 0u);
    ClDeviceInfo accelerator = h100;
    accelerator.type = CL_DEVICE_TYPE_ACCELERATOR;
    EXPECT_EQ(eviction_bytes(accelerator), size_t{128} << 20);
}

TEST(Tuner, BrokenOrForeignCacheIsIgnored) {
    VFX_REQUIRE_CL();
    ClContext& cl = *test::test_cl();
    const fs::path dir = fs::path(test::scratch_dir()) / "cache";
    Timed t(cl);
    const std::vector<std::string> labels{"a", "b"};
    fs::path file;
    {
        Tuner tuner(cl.info(), dir);
        tuner.choose("k", labels, std::ref(t));
        file = tuner.cache_file();
    }
    {
        std::ofstream(file) << "{ not json";
        Tuner tuner(cl.info(), dir);
        const int before = t.runs;
        tuner.choose("k", labels, std::ref(t));
        EXPECT_GT(t.runs, before);
    }
    {
        std::ofstream(file) << R"({"device": "some other GPU", "entries": {"k": "a"}})";
        Tuner tuner(cl.info(), dir);
        const int before = t.runs;
        tuner.choose("k", labels, std::ref(t));
        EXPECT_GT(t.runs, before) << "another device's entries are not used";
    }
}

// Every variant of a TunedKernel computes the same frame; forcing selects each one in turn.
TEST(TunedKernel, EveryVariantGivesTheSameResult) {
    VFX_REQUIRE_CL();
    ClContext& cl = *test::test_cl();
    const uint32_t w = 67, h = 29;
    const FrameGeometry g = make_geometry(w, h, WorkFormat::rgba8);
    const FrameGeometry gm = make_geometry(w, h, WorkFormat::mono8);
    std::vector<uint8_t> in(gm.size_bytes());
    std::mt19937 rng(7);
    for (auto& b : in)
        b = static_cast<uint8_t>(rng());
    ClMem src = cl.buffer(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in.size(), in.data());
    ClMem dst = cl.buffer(CL_MEM_READ_WRITE, g.size_bytes());
    TunedKernel tk("mono.cl", "mono_to_rgba",
                   {{"", {8, 8}, {1, 1}}, {"", {32, 4}, {1, 1}}, {"", {16, 1}, {1, 1}}});
    std::vector<uint8_t> first;
    for (const std::string label : {"8x8", "32x4", "16x1"}) {
        cl.tuner().force(label);
        std::vector<uint8_t> zero(g.size_bytes(), 0);
        VFX_CL(clEnqueueWriteBuffer(cl.queue(), dst.get(), CL_TRUE, 0, zero.size(), zero.data(), 0,
                                    nullptr, nullptr));
        tk.enqueue(cl, cl.queue(), "-DWORK16=0 -DSRC16=0", w, h,
                   [&](cl_kernel k, std::array<size_t, 2>) {
                       set_args(k, src.get(), static_cast<cl_int>(gm.pitch), dst.get(),
                                static_cast<cl_int>(g.pitch), static_cast<cl_int>(w),
                                static_cast<cl_int>(h));
                   });
        ASSERT_NE(tk.last_choice(), nullptr);
        EXPECT_EQ(tk.last_choice()->label(), label);
        std::vector<uint8_t> out(g.size_bytes());
        VFX_CL(clEnqueueReadBuffer(cl.queue(), dst.get(), CL_TRUE, 0, out.size(), out.data(), 0,
                                   nullptr, nullptr));
        if (first.empty())
            first = out;
        else
            EXPECT_EQ(out, first) << label;
    }
    cl.tuner().force("");
}

}  // namespace
}  // namespace vfx

namespace vfx {
namespace {

// mono_to_rgba through a TunedKernel over frames up to w x h (the buffers of that size).
struct MonoToRgba {
    ClContext& cl;
    uint32_t h;
    FrameGeometry g, gm;
    ClMem src, dst;
    MonoToRgba(ClContext& c, uint32_t w, uint32_t height)
        : cl(c),
          h(height),
          g(make_geometry(w, height, WorkFormat::rgba8)),
          gm(make_geometry(w, height, WorkFormat::mono8)),
          src(cl.buffer(CL_MEM_READ_WRITE, gm.size_bytes())),
          dst(cl.buffer(CL_MEM_READ_WRITE, g.size_bytes())) {}
    ClEvent run(TunedKernel& tk, const std::string& options, uint32_t width) {
        return tk.enqueue(cl, cl.queue(), options, width, h,
                          [&](cl_kernel k, std::array<size_t, 2>) {
                              set_args(k, src.get(), static_cast<cl_int>(gm.pitch), dst.get(),
                                       static_cast<cl_int>(g.pitch), static_cast<cl_int>(width),
                                       static_cast<cl_int>(h));
                          });
    }
};

// Every measuring run waits on a copy that empties the caches (forced here on any device, with
// a small scratch); a run of a known choice does not. A scratch the device refuses turns the
// eviction off with a warning, and measuring goes on without it.
TEST(TunedKernel, MeasuringRunsEvictTheCachesOrGoOnWithout) {
    VFX_REQUIRE_CL();
    ClContext& cl = *test::test_cl();
    struct Restore {
        ClContext& cl;
        ~Restore() {
            cl.set_eviction_bytes(0);
            cl.tuner().set_mode(TuneMode::fixed);
        }
    } restore{cl};
    const uint32_t w = 40, h = 20;
    MonoToRgba pass(cl, w, h);
    const std::string opts = "-DWORK16=0 -DSRC16=0 -DVFX_EVICT_TEST=1";
    TunedKernel tk("mono.cl", "mono_to_rgba", {{"", {8, 8}, {1, 1}}, {"", {16, 4}, {1, 1}}});
    cl.set_eviction_bytes(size_t{1} << 20);
    cl.tuner().set_mode(TuneMode::retune);
    const uint64_t before = cl.evictions();
    pass.run(tk, opts, w);  // measures: bursts of 2, a warm-up and 3 rounds at least, 2 candidates
    VFX_CL(clFinish(cl.queue()));
    EXPECT_GE(cl.evictions() - before, 2u * 2u * (1u + 3u));
    const uint64_t measured = cl.evictions();
    pass.run(tk, opts, w);  // the choice is known: no measuring, no eviction
    VFX_CL(clFinish(cl.queue()));
    EXPECT_EQ(cl.evictions(), measured);

    // A size no device allocates: measuring (a new size) still chooses, and nothing evicts.
    cl.set_eviction_bytes(std::max<size_t>(cl.info().max_alloc_bytes, cl.info().global_mem_bytes) *
                          4);
    EXPECT_NO_THROW(pass.run(tk, opts, w - 3));
    VFX_CL(clFinish(cl.queue()));
    EXPECT_EQ(cl.evictions(), measured);
    ASSERT_NE(tk.last_choice(), nullptr);
}

// A thread that must not wait (the render thread trying a chain change, in a CacheOnlyScope)
// never measures: a variant not chosen yet sends the change to the background instead.
TEST(TunedKernel, NeverMeasuresInACacheOnlyScope) {
    VFX_REQUIRE_CL();
    ClContext& cl = *test::test_cl();
    const uint32_t w = 40, h = 20;
    MonoToRgba pass(cl, w, h);
    TunedKernel tk("mono.cl", "mono_to_rgba", {{"", {8, 8}, {1, 1}}, {"", {16, 4}, {1, 1}}});
    auto run = [&] { return pass.run(tk, "-DWORK16=0 -DSRC16=0", w); };
    tk.prepare(cl, "-DWORK16=0 -DSRC16=0", w, h);  // built: only the choice is left
    cl.tuner().set_mode(TuneMode::retune);         // nothing chosen this run
    {
        ClContext::CacheOnlyScope only;
        EXPECT_THROW(run(), ProgramNotCached);
    }
    run();  // measures (allowed here)
    {
        ClContext::CacheOnlyScope only;
        EXPECT_NO_THROW(run()) << "the choice is known now";
    }
    VFX_CL(clFinish(cl.queue()));
    cl.tuner().set_mode(TuneMode::fixed);
}

// Only what is needed is compiled: the one candidate a fixed (or cached) choice names, every
// candidate once the tuner is going to measure them (side by side, off this thread).
TEST(TunedKernel, CompilesOnlyTheCandidatesItNeeds) {
    VFX_REQUIRE_CL();
    ClContext& cl = *test::test_cl();
    const uint32_t w = 24, h = 12;
    MonoToRgba pass(cl, w, h);
    // Distinct options: three programs (mono.cl ignores the extra macro).
    TunedKernel tk("mono.cl", "mono_to_rgba",
                   {{"-DVFX_LAZY=1", {8, 8}, {1, 1}},
                    {"-DVFX_LAZY=2", {8, 8}, {1, 1}},
                    {"-DVFX_LAZY=3", {8, 8}, {1, 1}}});
    auto run = [&](uint32_t width) {
        return pass.run(tk, "-DWORK16=0 -DSRC16=0 -DVFX_LAZY_TEST=1", width);
    };
    cl.tuner().set_mode(TuneMode::fixed);
    const uint64_t before = ClContext::builds_on_this_thread();
    run(w);
    EXPECT_EQ(ClContext::builds_on_this_thread(), before + 1) << "fixed: the first candidate only";
    EXPECT_EQ(tk.last_choice()->label(), "-DVFX_LAZY=1 8x8");
    {
        ClContext::CacheOnlyScope only;
        cl.tuner().force("-DVFX_LAZY=3 8x8");
        EXPECT_THROW(run(w), ProgramNotCached) << "candidate 3 was never compiled";
        cl.tuner().force("");
    }
    cl.tuner().set_mode(TuneMode::retune);
    run(w - 1);  // measures: compiles the other two
    {
        ClContext::CacheOnlyScope only;
        cl.tuner().force("-DVFX_LAZY=3 8x8");
        EXPECT_NO_THROW(run(w)) << "measuring compiled every candidate";
        EXPECT_EQ(tk.last_choice()->label(), "-DVFX_LAZY=3 8x8");
        cl.tuner().force("");
    }
    VFX_CL(clFinish(cl.queue()));
    cl.tuner().set_mode(TuneMode::fixed);
}

// A choice stands only among the candidates it was measured among: the tuner's key names the
// candidate list, so the same list shares one choice and a build that offers another candidate
// (for the same kernel, options and size) gets a choice of its own, measured, not the old one.
TEST(TunedKernel, AChoiceStandsOnlyAmongTheCandidatesItWasMadeAmong) {
    VFX_REQUIRE_CL();
    ClContext& cl = *test::test_cl();
    const uint32_t w = 24, h = 12;
    MonoToRgba pass(cl, w, h);
    const std::string opts = "-DWORK16=0 -DSRC16=0 -DVFX_LIST_TEST=1";
    const std::vector<KernelVariant> two{{"-DVFX_LIST=1", {8, 8}, {1, 1}},
                                         {"-DVFX_LIST=2", {8, 8}, {1, 1}}};
    std::vector<KernelVariant> three = two;
    three.push_back({"-DVFX_LIST=3", {8, 8}, {1, 1}});
    TunedKernel first("mono.cl", "mono_to_rgba", two);
    TunedKernel again("mono.cl", "mono_to_rgba", two);
    TunedKernel more("mono.cl", "mono_to_rgba", three);
    auto entries = [&] {
        size_t n = 0;
        for (const auto& [k, v] : cl.tuner().choices())
            n += k.find("mono.cl:mono_to_rgba [" + opts + "] 24x12 ") == 0;
        return n;
    };
    cl.tuner().set_mode(TuneMode::cached);
    pass.run(first, opts, w);
    pass.run(again, opts, w);
    EXPECT_EQ(entries(), 1u) << "the same candidates share one choice";
    pass.run(more, opts, w);
    EXPECT_EQ(entries(), 2u) << "another candidate list has a choice of its own";
    VFX_CL(clFinish(cl.queue()));
    cl.tuner().set_mode(TuneMode::fixed);
}

TEST(TunedKernel, BuildOptionValues) {
    EXPECT_EQ(build_option("-DWORK16=0 -DRADIUS=5", "RADIUS"), 5);
    EXPECT_EQ(build_option("-DWORK16=0 -DRADIUS=5", "WORK16"), 0);
    EXPECT_EQ(build_option("-DXRADIUS=3 -DRADIUS=12", "RADIUS"), 12) << "whole names only";
    EXPECT_EQ(build_option("-DRADIUS=5x", "RADIUS"), std::nullopt);
    EXPECT_EQ(build_option("-DWORK16=0", "RADIUS"), std::nullopt);
}

// A candidate whose `applies` rejects the build's options is never offered there: forcing its
// label takes the first candidate that is, and it is built only where it applies.
TEST(TunedKernel, CandidatesOfferedOnlyWhereTheyApply) {
    VFX_REQUIRE_CL();
    ClContext& cl = *test::test_cl();
    const uint32_t w = 24, h = 12;
    MonoToRgba pass(cl, w, h);
    auto only_lazy2 = [](const std::string& o) { return build_option(o, "VFX_ONLY") == 2; };
    TunedKernel tk("mono.cl", "mono_to_rgba",
                   {{"", {8, 8}, {1, 1}}, {"-DVFX_PICKY=1", {8, 8}, {1, 1}, only_lazy2}});
    cl.tuner().set_mode(TuneMode::fixed);
    cl.tuner().force("-DVFX_PICKY=1 8x8");
    pass.run(tk, "-DWORK16=0 -DSRC16=0 -DVFX_ONLY=1", w);
    EXPECT_EQ(tk.last_choice()->label(), "8x8");
    pass.run(tk, "-DWORK16=0 -DSRC16=0 -DVFX_ONLY=2", w);
    EXPECT_EQ(tk.last_choice()->label(), "-DVFX_PICKY=1 8x8");
    cl.tuner().force("");
    VFX_CL(clFinish(cl.queue()));
}

// A -DPG=N candidate runs as one wave of G = max(N x compute units, columns of group_px.x)
// groups, a grid of columns x ceil(G / columns), with G as the kernel's last argument (a probe
// kernel records what each group saw).
TEST(TunedKernel, PgCandidatesLaunchColumnsTimesStripsWithTheGroupCount) {
    VFX_REQUIRE_CL();
    ClContext& cl = *test::test_cl();
    cl.add_source("test-pg-probe.cl", R"CL(
// Per group (x, y): 1 + its x index, the grid's groups across and down, the group count passed
// (slots past `slots`: a grid larger than expected, counted in the last slot's first int).
__kernel void pg_probe(__global int* seen, int slots, int height, int groups) {
    if (get_local_id(0) != 0 || get_local_id(1) != 0) return;
    const int i = (int)(get_group_id(1) * get_num_groups(0) + get_group_id(0));
    if (i >= slots) {
        atomic_inc(seen + 4 * slots);
        return;
    }
    __global int* s = seen + 4 * i;
    s[0] = 1 + (int)get_group_id(0);
    s[1] = (int)get_num_groups(0);
    s[2] = (int)get_num_groups(1);
    s[3] = groups;
    (void)height;
}
)CL");
    cl.tuner().set_mode(TuneMode::fixed);
    const uint32_t units = std::max(cl.info().compute_units, 1u);
    struct Case {
        uint32_t width, group_px;
        size_t groups, cols;  // expected
    };
    const Case cases[] = {
        {8 * 3 * units + 5, 8, 2 * units, 3 * units + 1},    // more columns than 2 a unit
        {4 * units - 3, 4, 2 * units, units},                // two strips a column
        {5, 8, 2 * units, 1},                                // one column, all its strips
        {4 * (2 * units - 1), 4, 2 * units, 2 * units - 1},  // G / C not whole: rows rounded up
        {8 * units + 8 * units / 2 + 1, 8, 2 * units, units + units / 2 + 1}};
    for (const Case& c : cases) {
        KernelVariant v{"-DPG=2", {4, 2}, {1, 1}};
        v.group_px = {c.group_px, 0};
        TunedKernel tk("test-pg-probe.cl", "pg_probe", {v});
        const size_t groups = std::max(c.groups, c.cols);
        const size_t rows = (groups + c.cols - 1) / c.cols;
        std::vector<cl_int> seen(4 * c.cols * rows + 4, 0);
        ClMem buf =
            cl.buffer(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, seen.size() * 4, seen.data());
        tk.enqueue(cl, cl.queue(), "", c.width, 7, [&](cl_kernel k, std::array<size_t, 2>) {
            set_args(k, buf.get(), static_cast<cl_int>(c.cols * rows), cl_int{7});
        });
        VFX_CL(clEnqueueReadBuffer(cl.queue(), buf.get(), CL_TRUE, 0, seen.size() * 4, seen.data(),
                                   0, nullptr, nullptr));
        for (size_t gy = 0; gy < rows; ++gy)
            for (size_t gx = 0; gx < c.cols; ++gx) {
                const cl_int* s = &seen[4 * (gy * c.cols + gx)];
                SCOPED_TRACE(fmt::format("width {} group ({}, {})", c.width, gx, gy));
                EXPECT_EQ(s[0], static_cast<cl_int>(gx + 1));
                EXPECT_EQ(s[1], static_cast<cl_int>(c.cols));
                EXPECT_EQ(s[2], static_cast<cl_int>(rows));
                EXPECT_EQ(s[3], static_cast<cl_int>(groups));
            }
        EXPECT_EQ(seen[4 * c.cols * rows], 0) << "groups past the grid";
    }
}

}  // namespace
}  // namespace vfx
