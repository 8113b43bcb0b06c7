// The overlay's logic without a window: the chain editor and its presets, the timing window's
// statistics, the split divider's mapping, the kernel directory watcher, hot reload of good and
// broken kernel files, chains swapped in from background builds (the old chain running until
// they are ready, no build on the calling thread), and the view's split compose and
// before/after histograms against plain C++ references.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "compute/chain.hpp"
#include "compute/kernel_watch.hpp"
#include "compute/preset.hpp"
#include "compute/processor.hpp"
#include "compute_test_util.hpp"
#include "core/error.hpp"
#include "session/chain_editor.hpp"
#include "session/overlay_view.hpp"
#include "support/media.hpp"
#include "timing/timing.hpp"

namespace vfx::test {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> names_of(const ChainEditor& e) {
    std::vector<std::string> out;
    for (const PresetStage& s : e.stages())
        out.push_back(s.filter.name() + (s.enabled ? "" : "(off)"));
    return out;
}

void write_file(const fs::path& p, const std::string& text) {
    std::ofstream(p, std::ios::binary) << text;
}

// ---- the chain editor ----

TEST(ChainEditor, OperationsAndTheChainTheyProduce) {
    ChainEditor e(parse_chain("gaussian=sigma=1.5,unsharp=sigma=1:amount=0.5"));
    EXPECT_EQ(e.chain_text(), format_chain(parse_chain("gaussian=sigma=1.5,unsharp")));
    uint64_t rev = e.revision();

    e.add("sepia");
    e.insert(0, "grayscale");
    EXPECT_EQ(names_of(e), (std::vector<std::string>{"grayscale", "gaussian", "unsharp", "sepia"}));
    e.move(3, 0);  // sepia first
    e.move(1, 3);  // grayscale last
    EXPECT_EQ(names_of(e), (std::vector<std::string>{"sepia", "gaussian", "unsharp", "grayscale"}));
    e.set_enabled(1, false);
    EXPECT_EQ(names_of(e),
              (std::vector<std::string>{"sepia", "gaussian(off)", "unsharp", "grayscale"}));
    // A disabled stage is kept in the editor but not handed to the processor.
    EXPECT_EQ(e.chain(), parse_chain("sepia,unsharp=sigma=1:amount=0.5,grayscale"));
    e.set_param(2, "amount", 1.25);
    e.set_param_text(2, "sigma", "2");
    e.set_param(1, "sigma", 3.0);  // a disabled stage's value is kept for when it is enabled
    EXPECT_EQ(e.chain(), parse_chain("sepia,unsharp=sigma=2:amount=1.25,grayscale"));
    e.set_enabled(1, true);
    EXPECT_EQ(e.chain_text(),
              format_chain(parse_chain("sepia,gaussian=sigma=3,unsharp=sigma=2:amount=1.25,"
                                       "grayscale")));
    e.remove(0);
    EXPECT_EQ(e.chain(), parse_chain("gaussian=sigma=3,unsharp=sigma=2:amount=1.25,grayscale"));
    EXPECT_GT(e.revision(), rev);

    // A value straight from a float slider runs exactly as the editor holds it.
    const float slider = 0.3f;
    e.set_param(1, "amount", static_cast<double>(slider));
    EXPECT_EQ(e.chain().filters[1].get_float("amount"), static_cast<double>(slider));
    // An enum and an int parameter.
    e.add("median");
    e.set_param(3, "radius", int64_t{2});
    e.add("gamma");
    e.set_param(4, "curve", std::string("srgb"));
    EXPECT_EQ(e.chain().filters[3].get_int("radius"), 2);
    EXPECT_EQ(e.chain().filters[4].get_enum("curve"), "srgb");

    // Setting the value it already has is no change.
    rev = e.revision();
    e.set_param(3, "radius", int64_t{2});
    EXPECT_EQ(e.revision(), rev);
}

TEST(ChainEditor, ABadOperationThrowsAndChangesNothing) {
    ChainEditor e(parse_chain("gaussian,unsharp"));
    const auto before = e.stages();
    const uint64_t rev = e.revision();
    auto expect_error = [&](auto op, const std::string& needle) {
        try {
            op();
            ADD_FAILURE() << "no error for " << needle;
        } catch (const Error& err) {
            EXPECT_NE(std::string(err.what()).find(needle), std::string::npos) << err.what();
        }
        EXPECT_EQ(e.stages(), before);
        EXPECT_EQ(e.revision(), rev);
    };
    expect_error([&] { e.add("gausian"); }, "unknown filter 'gausian'");
    expect_error([&] { e.insert(3, "sepia"); }, "past the end");
    expect_error([&] { e.remove(2); }, "no stage 3");
    expect_error([&] { e.move(0, 2); }, "no stage 3");
    expect_error([&] { e.set_enabled(5, false); }, "no stage 6");
    expect_error([&] { e.set_param(0, "sigma", 99.0); }, "gaussian: sigma=99 is out of range");
    expect_error([&] { e.set_param(1, "amont", 1.0); }, "unknown parameter 'amont'");
    expect_error([&] { e.set_param_text(1, "amount", "lots"); }, "is not a number");
}

TEST(ChainEditor, PresetSaveAndLoadKeepDisabledStagesAndValues) {
    const std::string dir = scratch_dir();
    ChainEditor e(parse_chain("median=radius=2,gaussian=sigma=0.7,color=saturation=1.5"));
    e.set_enabled(1, false);
    const std::string path = dir + "/mine.json";
    e.save_preset(path);
    const Preset saved = read_preset(path);
    EXPECT_EQ(saved.name, "mine");  // the file's stem when the editor has no name
    EXPECT_EQ(saved.stages, e.stages());

    ChainEditor other(parse_chain("sepia"));
    other.load_preset(path);
    EXPECT_EQ(other.stages(), e.stages());
    EXPECT_EQ(other.chain(), parse_chain("median=radius=2,color=saturation=1.5"));
    EXPECT_EQ(other.name(), "mine");

    // A shipped preset loads as it is.
    other.load_preset(source_dir() + "/assets/presets/denoise.json");
    EXPECT_EQ(other.chain(), read_preset(source_dir() + "/assets/presets/denoise.json").chain());
}

TEST(ChainEditor, ABrokenPresetLeavesTheChainUntouched) {
    const std::string dir = scratch_dir();
    ChainEditor e(parse_chain("gaussian=sigma=2,sepia"));
    e.set_enabled(1, false);
    const auto before = e.stages();
    const uint64_t rev = e.revision();
    const std::vector<std::pair<std::string, std::string>> broken = {
        {"syntax.json", "{\"vfx_preset\": 1, \"chain\": [ {\"filter\": \"sepia\" }"},
        {"range.json",
         R"({"vfx_preset": 1, "chain": [{"filter": "gaussian"}, {"filter": "unsharp", )"
         R"("params": {"amount": 9}}]})"},
        {"unknown.json", R"({"vfx_preset": 1, "chain": [{"filter": "nope"}]})"},
        {"version.json", R"({"vfx_preset": 2, "chain": []})"},
    };
    for (const auto& [name, text] : broken) {
        SCOPED_TRACE(name);
        write_file(dir + "/" + name, text);
        try {
            e.load_preset(dir + "/" + name);
            ADD_FAILURE() << "loaded";
        } catch (const Error& err) {
            // One line naming the file.
            const std::string msg = err.what();
            EXPECT_NE(msg.find(name), std::string::npos) << msg;
            EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
        }
        EXPECT_EQ(e.stages(), before);
        EXPECT_EQ(e.revision(), rev);
    }
    EXPECT_THROW(e.load_preset(dir + "/missing.json"), Error);
    EXPECT_EQ(e.stages(), before);
    // Saving where nothing can be written is one error too, and leaves no file.
    EXPECT_THROW(e.save_preset(dir + "/no/such/dir/p.json"), Error);
}

// ---- timing statistics ----

FrameRecord record(int64_t i, double decode, double kernel, double frame_ms, bool with_kernel) {
    FrameRecord r;
    r.index = i;
    r.frame_ms = frame_ms;
    r.stages.emplace_back("decode", decode);
    if (with_kernel) r.stages.emplace_back("median", kernel);
    r.stages.emplace_back("present", 1.0);
    return r;
}

TEST(TimingWindow, LastFramesPerStageAndTheirStatistics) {
    TimingLog log(512, true);
    auto has_kernel = [](int i) { return i % 4 != 3; };  // every 4th frame skips the kernel
    for (int i = 0; i < 20; ++i)
        log.add(record(i, i, 100.0 + i, 10.0 + i, has_kernel(i)));
    TimingWindow w(8);
    w.update(log);
    ASSERT_EQ(w.frames(), 8u);
    EXPECT_EQ(w.stages(), (std::vector<std::string>{"decode", "median", "present"}));
    std::vector<double> decode, median, frame;
    double max_stacked = 0;
    for (size_t f = 0; f < 8; ++f) {
        const int i = 12 + static_cast<int>(f);
        const double kernel = has_kernel(i) ? 100.0 + i : 0.0;
        EXPECT_EQ(w.ms(f, 0), i);
        EXPECT_EQ(w.ms(f, 1), kernel) << f;
        EXPECT_EQ(w.ms(f, 2), 1.0);
        EXPECT_EQ(w.stacked_ms(f), i + kernel + 1.0);
        EXPECT_EQ(w.frame_ms(f), 10.0 + i);
        max_stacked = std::max(max_stacked, i + kernel + 1.0);
        decode.push_back(i);
        if (has_kernel(i)) median.push_back(100.0 + i);
        frame.push_back(10.0 + i);
    }
    EXPECT_EQ(w.max_stacked_ms(), max_stacked);
    auto same = [](const Summary& a, const Summary& b) {
        EXPECT_EQ(a.count, b.count);
        EXPECT_DOUBLE_EQ(a.mean, b.mean);
        EXPECT_EQ(a.p50, b.p50);
        EXPECT_EQ(a.p95, b.p95);
        EXPECT_EQ(a.p99, b.p99);
    };
    same(w.summaries()[0], summarize(decode));
    same(w.summaries()[1], summarize(median));  // frames without the stage do not count
    same(w.frame_summary(), summarize(frame));
    EXPECT_EQ(w.summaries()[1].count, 6u);
    // Nearest rank over 8 values: p50 is the 4th, p95 and p99 the 8th.
    EXPECT_EQ(w.summaries()[0].p50, 15.0);
    EXPECT_EQ(w.summaries()[0].p95, 19.0);

    // Frozen, it keeps what it shows while the log goes on.
    w.set_frozen(true);
    log.add(record(20, 500, 500, 500, true));
    w.update(log);
    EXPECT_EQ(w.frame_ms(7), 29.0);
    w.set_frozen(false);
    w.update(log);
    EXPECT_EQ(w.frame_ms(7), 500.0);
    EXPECT_EQ(w.frames(), 8u);

    TimingWindow empty;
    empty.update(TimingLog{});
    EXPECT_EQ(empty.frames(), 0u);
}

// ---- the split divider ----

TEST(SplitView, PointerToDividerPosition) {
    // A 1920x1080 video in a 1280x1024 window: letterboxed to 1280x720 at y = 152.
    const Rect r = letterbox_rect(1280, 1024, 1920, 1080);
    EXPECT_EQ(r, (Rect{0, 152, 1280, 720}));
    EXPECT_DOUBLE_EQ(split_position_at(640, r), 0.5);
    EXPECT_DOUBLE_EQ(split_position_at(320, r), 0.25);
    // Pillar-boxed: the bars left and right of the video clamp to its edges.
    const Rect p = letterbox_rect(1600, 600, 800, 600);
    EXPECT_EQ(p, (Rect{400, 0, 800, 600}));
    EXPECT_DOUBLE_EQ(split_position_at(100, p), 0.0);
    EXPECT_DOUBLE_EQ(split_position_at(600, p), 0.25);
    EXPECT_DOUBLE_EQ(split_position_at(1500, p), 1.0);
    EXPECT_DOUBLE_EQ(split_position_at(10, Rect{}), 0.5);
}

// ---- the kernel directory watcher ----

TEST(KernelWatcher, ReportsNewChangedAndDeletedKernelFiles) {
    const fs::path dir = scratch_dir();
    write_file(dir / "old.cl", "// one");
    KernelWatcher w(dir.string());
    EXPECT_TRUE(w.poll().empty());  // the baseline is what was there
    write_file(dir / "new.cl", "// new");
    write_file(dir / "notes.txt", "not a kernel");
    EXPECT_EQ(w.poll(), (std::vector<std::string>{"new.cl"}));
    EXPECT_TRUE(w.poll().empty());
    write_file(dir / "old.cl", "// one, longer");
    write_file(dir / "common.h", "// shared");
    EXPECT_EQ(w.poll(), (std::vector<std::string>{"common.h", "old.cl"}));
    fs::remove(dir / "new.cl");
    EXPECT_EQ(w.poll(), (std::vector<std::string>{"new.cl"}));
    EXPECT_THROW((void)KernelWatcher((dir / "notes.txt").string()), Error);
    EXPECT_THROW((void)KernelWatcher((dir / "absent").string()), Error);
}

// ---- GPU side: programs, background builds, hot reload, the view ----

class OverlayCompute : public ::testing::Test {
protected:
    void SetUp() override {
        VFX_REQUIRE_CL();
        // A context of its own: an empty program cache, so what builds where is known.
        cl_ = std::make_unique<ClContext>(test_cl()->info());
    }
    ClContext& cl() { return *cl_; }
    std::unique_ptr<ClContext> cl_;
};

SourceCase rgba8_case() {
    return {"rgba", AV_PIX_FMT_RGBA, make_sf(PlaneLayout::rgba, 8, 1, 0, 0, 0)};
}
SourceCase rgba16_case() {
    return {"rgba64", AV_PIX_FMT_RGBA64LE, make_sf(PlaneLayout::rgba, 16, 2, 0, 0, 0)};
}

// An rgba frame of `img` (alpha max): its conversion is the identity, so `img` is exactly the
// chain's input.
HostFrame frame_of(Image& img) {
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x)
            img.at(x, y, 3) = static_cast<uint16_t>(img.max_value());
    std::mt19937 rng(0);
    HostFrame f = random_frame(img.format == WorkFormat::rgba16 ? rgba16_case() : rgba8_case(),
                               img.width, img.height, ColorInfo{}, rng);
    for (int y = 0; y < img.height; ++y) {
        uint8_t* row = f.av->data[0] + static_cast<ptrdiff_t>(y) * f.av->linesize[0];
        for (int x = 0; x < img.width; ++x)
            for (int c = 0; c < 4; ++c) {
                if (img.format == WorkFormat::rgba8) {
                    row[4 * x + c] = static_cast<uint8_t>(img.at(x, y, c));
                } else {
                    const uint16_t v = img.at(x, y, c);
                    std::memcpy(row + 8 * x + 2 * c, &v, 2);
                }
            }
    }
    return f;
}

void expect_same(const Image& got, const Image& want, const char* what) {
    std::string where;
    EXPECT_EQ(max_diff(got, want, 0, 3, &where), 0) << what << " at " << where;
}

TEST_F(OverlayCompute, CacheOnlyScopeNeverBuilds) {
    const uint64_t builds = ClContext::builds_on_this_thread();
    {
        ClContext::CacheOnlyScope only;
        EXPECT_THROW(cl().program("mono.cl", "-DWORK16=0 -DSRC16=0"), ProgramNotCached);
        EXPECT_THROW(cl().kernel("mono.cl", "mono_to_rgba", "-DWORK16=0 -DSRC16=0"),
                     ProgramNotCached);
    }
    EXPECT_EQ(ClContext::builds_on_this_thread(), builds);
    cl_program p = cl().program("mono.cl", "-DWORK16=0 -DSRC16=0");
    EXPECT_EQ(ClContext::builds_on_this_thread(), builds + 1);
    ClContext::CacheOnlyScope only;
    EXPECT_EQ(cl().program("mono.cl", "-DWORK16=0 -DSRC16=0"), p);
    EXPECT_TRUE(cl().kernel("mono.cl", "mono_to_rgba", "-DWORK16=0 -DSRC16=0"));
    EXPECT_EQ(ClContext::builds_on_this_thread(), builds + 1);
}

// A grayscale.cl that writes R = G = B = 16 (alpha passed through): a visibly different kernel.
const char* kConstantGrayscale = R"CL(
// grayscale is a point-wise operation (engine/compute/pointwise.hpp): R = G = B = 16.
inline float4 grayscale_rgba(float4 v, int x, int y) { return (float4)(16.0f); }
)CL";
const char* kBrokenGrayscale = R"CL(
inline float4 grayscale_rgba(float4 v, int x, int y) { return undeclared_identifier_hot_reload; }
)CL";

Image constant_rgb(Image img, uint16_t v) {
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x)
            for (int c = 0; c < 3; ++c)
                img.at(x, y, c) = v;
    return img;
}

TEST_F(OverlayCompute, ContextReloadOfAGoodThenABrokenKernelFile) {
    const fs::path dir = scratch_dir();
    cl().set_kernel_dir(dir.string());
    std::mt19937 rng(3);
    const Image in = random_image(13, 7, WorkFormat::rgba8, rng);
    const Image embedded = run_filter(cl(), "grayscale", in);

    write_file(dir / "grayscale.cl", kConstantGrayscale);
    // grayscale is a point-wise operation: no cached program is built from its file directly
    // (the generated kernels that include it are remade with the filters), so none is rebuilt,
    // but the file is compiled on its own to refuse a broken one.
    EXPECT_EQ(cl().reload({"grayscale.cl"}), 0u);
    EXPECT_EQ(cl().reload_count(), 1u);
    expect_same(run_filter(cl(), "grayscale", in), constant_rgb(in, 16), "reloaded");

    write_file(dir / "grayscale.cl", kBrokenGrayscale);
    try {
        cl().reload({"grayscale.cl"});
        ADD_FAILURE() << "the broken kernel built";
    } catch (const GpuError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("grayscale.cl"), std::string::npos) << msg;
        EXPECT_NE(msg.find("undeclared_identifier_hot_reload"), std::string::npos) << msg;
    }
    EXPECT_EQ(cl().reload_count(), 1u);
    // The last good kernel keeps running, and a variant first built now is built from the last
    // good source too (the broken file on disk is not read outside reload()).
    expect_same(run_filter(cl(), "grayscale", in), constant_rgb(in, 16), "after a broken reload");
    const Image in16 = random_image(5, 3, WorkFormat::rgba16, rng);
    expect_same(run_filter(cl(), "grayscale", in16), constant_rgb(in16, 16), "new variant");

    // Deleting the override goes back to the embedded kernel.
    fs::remove(dir / "grayscale.cl");
    EXPECT_EQ(cl().reload({"grayscale.cl"}), 0u);
    expect_same(run_filter(cl(), "grayscale", in), embedded, "embedded again");
    // A kernel file no cached program uses is still compiled once: garbage is refused.
    write_file(dir / "sepia.cl", "garbage that does not build");
    EXPECT_THROW(cl().reload({"sepia.cl"}), GpuError);
    fs::remove(dir / "sepia.cl");
    EXPECT_EQ(cl().reload({"sepia.cl"}), 0u);
}

TEST_F(OverlayCompute, ValueChangeOfABuiltVariantAppliesOnTheNextFrame) {
    std::mt19937 rng(7);
    Image in = random_image(37, 23, WorkFormat::rgba8, rng);
    const HostFrame frame = frame_of(in);
    FrameProcessor proc(cl(), parse_chain("color=saturation=1.5,median=radius=1"));
    process(proc, cl(), frame);  // start-up: builds what the chain needs

    const uint64_t builds = ClContext::builds_on_this_thread();
    const Chain next = parse_chain("color=saturation=0.25:hue=40,median=radius=1");
    EXPECT_EQ(proc.request_chain(next), ChainRequest::applied);
    EXPECT_EQ(proc.chain(), next);
    const Image got = process(proc, cl(), frame);
    expect_same(
        got,
        run_filter(cl(), "median=radius=1", run_filter(cl(), "color=saturation=0.25:hue=40", in)),
        "the next frame");
    // Removing and reordering stages of built variants applies at once too.
    EXPECT_EQ(proc.request_chain(parse_chain("median=radius=1")), ChainRequest::applied);
    expect_same(process(proc, cl(), frame), run_filter(cl(), "median=radius=1", in), "removed");
    EXPECT_EQ(ClContext::builds_on_this_thread(), builds);
    EXPECT_FALSE(proc.build_status().building);
}

TEST_F(OverlayCompute, StructuralChangeBuildsInTheBackgroundWhileTheOldChainRuns) {
    std::mt19937 rng(8);
    Image in = random_image(41, 17, WorkFormat::rgba8, rng);
    const HostFrame frame = frame_of(in);
    FrameProcessor proc(cl(), parse_chain("grayscale"));
    process(proc, cl(), frame);
    const Image gray = run_filter(cl(), "grayscale", in);

    const uint64_t builds = ClContext::builds_on_this_thread();
    proc.hold_background(true);  // the build cannot finish before we look
    EXPECT_EQ(proc.request_chain(parse_chain("median=radius=2")), ChainRequest::building);
    EXPECT_TRUE(proc.build_status().building);
    for (int i = 0; i < 3; ++i) {
        expect_same(process(proc, cl(), frame), gray, "the old chain while building");
        EXPECT_EQ(proc.chain(), parse_chain("grayscale"));
    }
    // While building, a newer request queues behind it and wins; a value change of the old
    // chain is no shortcut either.
    EXPECT_EQ(proc.request_chain(parse_chain("box=radius=3")), ChainRequest::building);
    proc.hold_background(false);
    proc.wait_background();
    EXPECT_FALSE(proc.build_status().building);
    EXPECT_TRUE(proc.build_status().chain_error.empty());
    const Image boxed = process(proc, cl(), frame);
    EXPECT_EQ(proc.chain(), parse_chain("box=radius=3"));
    // Every program was built on the worker: none on this (the render) thread.
    EXPECT_EQ(ClContext::builds_on_this_thread(), builds);
    expect_same(boxed, run_filter(cl(), "box=radius=3", in), "the swapped-in chain");
}

TEST_F(OverlayCompute, RejectedChainsKeepTheOldOneRunning) {
    const fs::path dir = scratch_dir();
    cl().set_kernel_dir(dir.string());
    write_file(dir / "sepia.cl", kBrokenGrayscale);  // sepia's kernel does not build
    std::mt19937 rng(9);
    Image in = random_image(19, 11, WorkFormat::rgba8, rng);
    const HostFrame frame = frame_of(in);
    FrameProcessor proc(cl(), parse_chain("grayscale"));
    process(proc, cl(), frame);
    const Image gray = run_filter(cl(), "grayscale", in);

    // A frame-kind mismatch is found at once.
    EXPECT_EQ(proc.request_chain(parse_chain("demosaic")), ChainRequest::failed);
    EXPECT_NE(proc.build_status().chain_error.find("needs a mosaic"), std::string::npos)
        << proc.build_status().chain_error;
    expect_same(process(proc, cl(), frame), gray, "after a rejected chain");

    // A build failure is found in the background, with the compiler's log.
    EXPECT_EQ(proc.request_chain(parse_chain("sepia")), ChainRequest::building);
    proc.wait_background();
    const std::string err = proc.build_status().chain_error;
    EXPECT_NE(err.find("sepia.cl"), std::string::npos) << err;
    EXPECT_NE(err.find("undeclared_identifier_hot_reload"), std::string::npos) << err;
    expect_same(process(proc, cl(), frame), gray, "after a failed build");
    EXPECT_EQ(proc.chain(), parse_chain("grayscale"));

    // A good request clears the error.
    EXPECT_EQ(proc.request_chain(parse_chain("grayscale")), ChainRequest::applied);
    EXPECT_TRUE(proc.build_status().chain_error.empty());
}

TEST_F(OverlayCompute, HotReloadSwapsGoodKernelsInAndKeepsTheLastGoodOnes) {
    const fs::path dir = scratch_dir();
    cl().set_kernel_dir(dir.string());
    std::mt19937 rng(10);
    Image in = random_image(23, 9, WorkFormat::rgba8, rng);
    const HostFrame frame = frame_of(in);
    FrameProcessor proc(cl(), parse_chain("grayscale"));
    expect_same(process(proc, cl(), frame), run_filter(cl(), "grayscale", in), "embedded");
    const uint64_t builds = ClContext::builds_on_this_thread();

    write_file(dir / "grayscale.cl", kConstantGrayscale);
    proc.reload_kernels({"grayscale.cl"});
    proc.wait_background();
    BuildStatus st = proc.build_status();
    EXPECT_EQ(st.reloads, 1u);
    EXPECT_EQ(st.last_reload, "grayscale.cl");
    EXPECT_TRUE(st.kernel_error.empty()) << st.kernel_error;
    expect_same(process(proc, cl(), frame), constant_rgb(in, 16), "reloaded kernel");

    write_file(dir / "grayscale.cl", kBrokenGrayscale);
    proc.reload_kernels({"grayscale.cl"});
    proc.wait_background();
    st = proc.build_status();
    EXPECT_EQ(st.reloads, 1u);
    EXPECT_NE(st.kernel_error.find("grayscale.cl"), std::string::npos) << st.kernel_error;
    EXPECT_NE(st.kernel_error.find("undeclared_identifier_hot_reload"), std::string::npos)
        << st.kernel_error;
    expect_same(process(proc, cl(), frame), constant_rgb(in, 16), "last good kernel");

    // The processor's own conversion kernel reloads too: an inverting convert.cl.
    std::string convert = cl().kernel_source("convert.cl");
    const std::string clamp_line = "rgb = clamp(rgb, 0.0f, 1.0f);";
    ASSERT_NE(convert.find(clamp_line), std::string::npos);
    convert.replace(convert.find(clamp_line), clamp_line.size(),
                    "rgb = 1.0f - clamp(rgb, 0.0f, 1.0f);");
    write_file(dir / "convert.cl", convert);
    fs::remove(dir / "grayscale.cl");
    proc.reload_kernels({"convert.cl", "grayscale.cl"});
    proc.wait_background();
    st = proc.build_status();
    EXPECT_EQ(st.reloads, 2u);
    EXPECT_TRUE(st.kernel_error.empty()) << st.kernel_error;
    Image inverted = in;
    for (int y = 0; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x)
            for (int c = 0; c < 3; ++c)
                inverted.at(x, y, c) = static_cast<uint16_t>(255 - in.at(x, y, c));
    expect_same(process(proc, cl(), frame), run_filter(cl(), "grayscale", inverted),
                "reloaded conversion");
    EXPECT_EQ(ClContext::builds_on_this_thread(), builds) << "a build ran on the render thread";
}

// ---- the view: split compose and before/after histograms ----

Histogram ref_histogram(const Image& img, bool mono) {
    Histogram h;
    const bool deep = img.format == WorkFormat::rgba16;
    auto bin = [&](uint32_t v) { return deep ? (v + 128) / 257 : v; };
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x) {
            const uint32_t r = bin(img.at(x, y, 0));
            const uint32_t g = mono ? r : bin(img.at(x, y, 1));
            const uint32_t b = mono ? r : bin(img.at(x, y, 2));
            const uint32_t l = (13933 * r + 46871 * g + 4732 * b + 32768) >> 16;
            ++h.counts[r];
            ++h.counts[256 + g];
            ++h.counts[512 + b];
            ++h.counts[768 + l];
        }
    return h;
}

// The split view's reference: `before` left of the divider line, the line white, `after` right.
Image ref_split(const Image& before, const Image& after, double pos) {
    Image out = after;
    const int split_x = static_cast<int>(std::lround(pos * after.width));
    const int line = std::max(2, after.width / 640);
    const int start = split_x - line / 2;
    for (int y = 0; y < out.height; ++y)
        for (int x = 0; x < std::min(out.width, start + line); ++x)
            for (int c = 0; c < 4; ++c)
                out.at(x, y, c) =
                    x < start ? before.at(x, y, c) : static_cast<uint16_t>(out.max_value());
    return out;
}

// Runs frames until the view's kernels are built (the first frame goes without them).
Image process_with_view(FrameProcessor& proc, ClContext& cl, const HostFrame& frame,
                        PendingFrame* pending) {
    process(proc, cl, frame);
    proc.wait_background();
    return process(proc, cl, frame, pending);
}

TEST_F(OverlayCompute, SplitViewAndHistogramsAgainstReferences) {
    for (WorkFormat wf : {WorkFormat::rgba8, WorkFormat::rgba16}) {
        for (double pos : {0.0, 0.37, 1.0}) {
            SCOPED_TRACE(std::string(to_string(wf)) + " split at " + std::to_string(pos));
            std::mt19937 rng(11);
            Image in = random_image(61, 17, wf, rng);
            const HostFrame frame = frame_of(in);
            FrameProcessor proc(cl(), parse_chain("sepia"));
            const Image plain = process(proc, cl(), frame);
            expect_same(plain, run_filter(cl(), "sepia", in), "no view by default");

            ViewOptions v;
            v.split = true;
            v.split_position = pos;
            v.histograms = true;
            proc.set_view(v);
            PendingFrame pending;
            const Image got = process_with_view(proc, cl(), frame, &pending);
            expect_same(got, ref_split(in, plain, pos), "split view");
            const auto h = pending.view_histograms();
            ASSERT_TRUE(h.has_value());
            EXPECT_EQ(h->before.counts, ref_histogram(in, false).counts) << "before";
            // After: the chain's output, not the composed split view.
            EXPECT_EQ(h->after.counts, ref_histogram(plain, false).counts) << "after";
            bool has_view_stage = false;
            for (const StageTime& t : pending.timings())
                has_view_stage = has_view_stage || t.name == "view";
            EXPECT_TRUE(has_view_stage);

            proc.set_view(ViewOptions{});
            PendingFrame off;
            expect_same(process(proc, cl(), frame, &off), plain, "view off again");
            EXPECT_FALSE(off.view_histograms().has_value());
        }
    }
}

TEST_F(OverlayCompute, SplitViewOfAMosaicAndOfAnEmptyChain) {
    // A grey source enters a chain as a mosaic: the left side shows it as grey.
    std::mt19937 rng(12);
    const SourceCase gray8{"gray", AV_PIX_FMT_GRAY8, make_sf(PlaneLayout::gray, 8, 1, 0, 0, 0)};
    const HostFrame frame = random_frame(gray8, 33, 21, ColorInfo{}, rng);
    Image mosaic{33, 21, WorkFormat::rgba8, std::vector<uint16_t>(33 * 21 * 4)};
    for (int y = 0; y < 21; ++y)
        for (int x = 0; x < 33; ++x) {
            const uint8_t s = frame.av->data[0][y * frame.av->linesize[0] + x];
            for (int c = 0; c < 3; ++c)
                mosaic.at(x, y, c) = s;
            mosaic.at(x, y, 3) = 255;
        }
    FrameProcessor proc(cl(), parse_chain("demosaic=pattern=rggb"));
    const Image plain = process(proc, cl(), frame);
    ViewOptions v;
    v.split = true;
    v.split_position = 0.5;
    v.histograms = true;
    proc.set_view(v);
    PendingFrame pending;
    expect_same(process_with_view(proc, cl(), frame, &pending), ref_split(mosaic, plain, 0.5),
                "mosaic split");
    const auto h = pending.view_histograms();
    ASSERT_TRUE(h.has_value());
    EXPECT_EQ(h->before.counts, ref_histogram(mosaic, true).counts) << "before (the mosaic)";
    EXPECT_EQ(h->after.counts, ref_histogram(plain, false).counts) << "after";

    // An empty chain: both sides are the conversion's output; only the divider shows.
    std::mt19937 rng2(13);
    Image in = random_image(29, 5, WorkFormat::rgba8, rng2);
    const HostFrame f2 = frame_of(in);
    FrameProcessor empty(cl(), Chain{});
    empty.set_view(v);
    PendingFrame p2;
    expect_same(process_with_view(empty, cl(), f2, &p2), ref_split(in, in, 0.5), "empty chain");
    ASSERT_TRUE(p2.view_histograms().has_value());
    EXPECT_EQ(p2.view_histograms()->before.counts, p2.view_histograms()->after.counts);
}

}  // namespace
}  // namespace vfx::test
