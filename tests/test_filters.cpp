// gaussian and unsharp against plain double-precision references (odd sizes, both working
// formats, parameter extremes, clamp-to-edge borders, alpha untouched), the processor's chain
// plumbing, staging reuse, and the kernel build path's errors.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "compute/chain.hpp"
#include "compute/filter.hpp"
#include "compute/processor.hpp"
#include "compute/stencil_variants.hpp"
#include "compute_test_util.hpp"
#include "core/error.hpp"

namespace vfx::test {
namespace {

struct FilterCase {
    int w, h;
    WorkFormat format;
    std::string chain;  // one filter
};

void check_filter(const FilterCase& c, uint32_t seed) {
    ClContext& cl = *test_cl();
    std::mt19937 rng(seed);
    const Image in = random_image(c.w, c.h, c.format, rng);
    const Image got = run_filter(cl, c.chain, in);
    const FilterInstance f = parse_chain(c.chain).filters.front();
    const Image ref = f.name() == "gaussian"
                          ? ref_gaussian(in, f.get_float("sigma"))
                          : ref_unsharp(in, f.get_float("sigma"), f.get_float("amount"));
    std::string where;
    const std::string what = c.chain + " " + std::to_string(c.w) + "x" + std::to_string(c.h) + " " +
                             std::string(to_string(c.format));
    EXPECT_LE(max_diff(got, ref, 0, 2, &where), 1) << what << " worst at " << where;
    EXPECT_EQ(max_diff(got, in, 3, 3, &where), 0) << what << ": alpha changed at " << where;
    // RGBA8 up to radius 8: exactly the fixed-point definition (gaussian.cl's GS_FX).
    if (c.format == WorkFormat::rgba8 && gaussian_taps(f.get_float("sigma")).size() <= 17) {
        const Image fx = ref_blur_fx_image(
            in, f.get_float("sigma"),
            f.name() == "gaussian" ? std::nullopt : std::optional(f.get_float("amount")));
        EXPECT_EQ(max_diff(got, fx, 0, 2, &where), 0) << what << " (fixed point) at " << where;
    }
}

class Filters : public ::testing::Test {
protected:
    void SetUp() override { VFX_REQUIRE_CL(); }
};

TEST_F(Filters, GaussianOddSizesBothFormats) {
    for (WorkFormat wf : {WorkFormat::rgba8, WorkFormat::rgba16})
        for (auto [w, h] : {std::pair{1, 1}, {3, 5}, {17, 13}, {67, 35}, {130, 9}})
            check_filter({w, h, wf, "gaussian"}, 7);
}

TEST_F(Filters, GaussianSigmaExtremes) {
    for (WorkFormat wf : {WorkFormat::rgba8, WorkFormat::rgba16}) {
        check_filter({17, 13, wf, "gaussian=sigma=0.1"}, 11);  // radius 1, nearly identity
        check_filter({37, 23, wf, "gaussian=sigma=32"}, 12);   // radius 96 > image: all edges
        check_filter({200, 150, wf, "gaussian=sigma=32"}, 13);
        check_filter({45, 71, wf, "gaussian=sigma=4.3"}, 14);
    }
}

TEST_F(Filters, GaussianOfConstantIsConstant) {
    // Clamp to edge: a flat image stays flat everywhere, borders included.
    ClContext& cl = *test_cl();
    Image in{29, 17, WorkFormat::rgba16, {}};
    in.px.assign(29 * 17 * 4, 40000);
    const Image got = run_filter(cl, "gaussian=sigma=7", in);
    std::string where;
    EXPECT_EQ(max_diff(got, in, 0, 3, &where), 0) << where;
}

TEST_F(Filters, UnsharpOddSizesAndExtremes) {
    for (WorkFormat wf : {WorkFormat::rgba8, WorkFormat::rgba16}) {
        check_filter({1, 1, wf, "unsharp"}, 21);
        check_filter({17, 13, wf, "unsharp"}, 22);
        check_filter({67, 35, wf, "unsharp=sigma=0.1:amount=5"}, 23);
        check_filter({37, 23, wf, "unsharp=sigma=32:amount=5"}, 24);  // heavy saturation
        check_filter({33, 9, wf, "unsharp=sigma=2:amount=0"}, 25);    // identity
        check_filter({70, 41, wf, "unsharp=sigma=1.3:amount=1.7"}, 26);
    }
}

TEST_F(Filters, Gaussian1080p) {
    check_filter({1920, 1080, WorkFormat::rgba8, "gaussian=sigma=2"}, 31);
}

// Every tuned candidate of the one-launch blur (forced in turn): within 1 LSB of the reference
// and bit-identical to the first candidate, on sizes that are not multiples of a block and on
// frames smaller than the window; radii 6 and 3 on RGBA8, 8 and 1 on RGBA16 (each radius is
// a program of its own).
TEST_F(Filters, GaussianAndUnsharpEveryTunedVariant) {
    ClContext& cl = *test_cl();
    // 601 wide: several groups of every candidate side by side.
    const std::pair<int, int> sizes[] = {{67, 29}, {1, 1}, {3, 200}, {130, 7}, {5, 2}, {601, 37}};
    const std::pair<WorkFormat, const char*> chains[] = {
        {WorkFormat::rgba8, "gaussian=sigma=2"},
        {WorkFormat::rgba8, "unsharp=sigma=1:amount=0.5"},  // radius 3
        {WorkFormat::rgba8, "gaussian=sigma=0.3"},          // radius 1
        {WorkFormat::rgba8, "unsharp=sigma=0.6:amount=5"},  // radius 2, saturating
        {WorkFormat::rgba16, "gaussian=sigma=2.6"},
        {WorkFormat::rgba16, "unsharp=sigma=0.1:amount=5"}};
    std::map<std::string, Image> first;
    for (const KernelVariant& v : stencil::gaussian_variants()) {
        cl.tuner().force(v.label());
        uint32_t seed = 40;
        for (const auto& [wf, chain] : chains)
            for (const auto& [w, h] : sizes) {
                check_filter({w, h, wf, chain}, ++seed);
                std::mt19937 rng(seed);
                const Image got = run_filter(cl, chain, random_image(w, h, wf, rng));
                const std::string key = fmt::format("{} {}x{} {}", chain, w, h, to_string(wf));
                if (!first.count(key))
                    first.emplace(key, got);
                else
                    EXPECT_EQ(got.px, first.at(key).px) << key << " " << v.label();
            }
    }
    cl.tuner().force("");
}

// ---- the processor: chains, ping-pong buffers, staging reuse ----

SourceCase rgba16_case() {
    return {"rgba64", AV_PIX_FMT_RGBA64LE, make_sf(PlaneLayout::rgba, 16, 2, 0, 0, 0)};
}

// An rgba frame whose conversion is the identity (alpha becomes max): the chain's input is
// known exactly, so each stage can be checked against its reference on the previous stage's
// actual output.
HostFrame frame_from_image(const Image& img) {
    std::mt19937 rng(0);
    SourceCase c =
        img.format == WorkFormat::rgba16
            ? rgba16_case()
            : SourceCase{"rgba", AV_PIX_FMT_RGBA, make_sf(PlaneLayout::rgba, 8, 1, 0, 0, 0)};
    HostFrame f = random_frame(c, img.width, img.height, ColorInfo{}, rng);
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x)
            for (int ch = 0; ch < 4; ++ch) {
                uint8_t* row = f.av->data[0] + static_cast<ptrdiff_t>(y) * f.av->linesize[0];
                if (img.format == WorkFormat::rgba8) {
                    row[4 * x + ch] = static_cast<uint8_t>(img.at(x, y, ch));
                } else {
                    const uint16_t v = img.at(x, y, ch);
                    std::memcpy(row + 8 * x + 2 * ch, &v, 2);
                }
            }
    return f;
}

TEST_F(Filters, ProcessorChainsStageByStage) {
    ClContext& cl = *test_cl();
    for (WorkFormat wf : {WorkFormat::rgba8, WorkFormat::rgba16}) {
        std::mt19937 rng(41);
        Image in = random_image(23, 19, wf, rng);
        for (int y = 0; y < in.height; ++y)
            for (int x = 0; x < in.width; ++x)
                in.at(x, y, 3) = static_cast<uint16_t>(in.max_value());
        const HostFrame frame = frame_from_image(in);

        FrameProcessor p0(cl, Chain{});
        const Image conv = process(p0, cl, frame);
        std::string where;
        ASSERT_EQ(max_diff(conv, in, 0, 3, &where), 0) << "rgba conversion is not the identity";

        FrameProcessor p1(cl, parse_chain("gaussian=sigma=1.2"));
        FrameProcessor p2(cl, parse_chain("gaussian=sigma=1.2,gaussian=sigma=3"));
        FrameProcessor p3(cl, parse_chain("gaussian=sigma=1.2,gaussian=sigma=3,unsharp=amount=2"));
        PendingFrame pend;
        const Image o1 = process(p1, cl, frame);
        const Image o2 = process(p2, cl, frame);
        const Image o3 = process(p3, cl, frame, &pend);
        EXPECT_LE(max_diff(o1, ref_gaussian(in, 1.2), 0, 3, &where), 1) << where;
        EXPECT_LE(max_diff(o2, ref_gaussian(o1, 3), 0, 3, &where), 1) << where;
        EXPECT_LE(max_diff(o3, ref_unsharp(o2, 1, 2), 0, 3, &where), 1) << where;

        const auto t = pend.timings();
        ASSERT_EQ(t.size(), 5u);
        const char* names[] = {"upload", "convert", "gaussian", "gaussian#2", "unsharp"};
        for (size_t i = 0; i < t.size(); ++i) {
            EXPECT_EQ(t[i].name, names[i]);
            EXPECT_GE(t[i].ms, 0.0);
        }
    }
}

class InFlight : public ::testing::TestWithParam<bool> {
protected:
    void SetUp() override { VFX_REQUIRE_CL(); }
};

TEST_P(InFlight, ManyFramesAndGeometryChanges) {
    // Frames are enqueued back to back (staging buffers reused round-robin, host frames
    // released right after enqueue), with sizes changing, and the chain changed midway.
    ClContext& cl = *test_cl();
    FrameProcessor proc(cl, parse_chain("unsharp=sigma=1.5:amount=0.8"), GetParam());
    std::mt19937 rng(51);
    struct Job {
        Image in;
        FrameGeometry g;
        ClMem target;
        PendingFrame pending;
        bool sharpened;
    };
    std::vector<Job> jobs;
    const std::pair<int, int> sizes[] = {{17, 13}, {17, 13}, {33, 9}, {64, 64}, {17, 13},
                                         {5, 3},   {33, 9},  {33, 9}, {100, 7}, {17, 13}};
    for (size_t i = 0; i < std::size(sizes); ++i) {
        if (i == 6) proc.set_chain(Chain{});
        Image in = random_image(sizes[i].first, sizes[i].second, WorkFormat::rgba16, rng);
        for (int y = 0; y < in.height; ++y)
            for (int x = 0; x < in.width; ++x)
                in.at(x, y, 3) = 65535;
        Job j{in,
              make_geometry(static_cast<uint32_t>(in.width), static_cast<uint32_t>(in.height),
                            WorkFormat::rgba16),
              {},
              {},
              i < 6};
        j.target = cl.buffer(CL_MEM_READ_WRITE, j.g.size_bytes());
        {
            HostFrame f = frame_from_image(in);
            j.pending = proc.enqueue(f, j.target.get(), j.g);
        }  // the host planes are gone before the device ran
        jobs.push_back(std::move(j));
    }
    for (size_t i = 0; i < jobs.size(); ++i) {
        Job& j = jobs[i];
        j.pending.wait();
        EXPECT_TRUE(j.pending.complete());
        const Image got = download_image(cl, j.target.get(), j.g);
        const Image ref = j.sharpened ? ref_unsharp(j.in, 1.5, 0.8) : j.in;
        std::string where;
        EXPECT_LE(max_diff(got, ref, 0, 3, &where), 1) << "frame " << i << " " << where;
    }
    EXPECT_TRUE(proc.chain().empty());
}

INSTANTIATE_TEST_SUITE_P(Upload, InFlight, ::testing::Values(false, true),
                         [](const auto& p) { return p.param ? "Copy" : "Auto"; });

TEST_F(Filters, ProcessorTimings1080p) {
    // Not a benchmark gate: prints per-stage device times of the default chain on nv12 1080p.
    ClContext& cl = *test_cl();
    FrameProcessor proc(cl, parse_chain("unsharp=sigma=1.2:amount=0.6"));
    const SourceCase nv12{"nv12", AV_PIX_FMT_NV12,
                          make_sf(PlaneLayout::yuv_semiplanar, 8, 1, 0, 1, 1)};
    std::mt19937 rng(61);
    HostFrame frame = random_frame(nv12, 1920, 1080, ColorInfo{}, rng);
    const FrameGeometry g = make_geometry(1920, 1080, WorkFormat::rgba8);
    ClMem target = cl.buffer(CL_MEM_READ_WRITE, g.size_bytes());
    const int frames = (cl.info().type & CL_DEVICE_TYPE_GPU) ? 20 : 3;
    std::vector<PendingFrame> pending;
    for (int i = 0; i < frames; ++i)
        pending.push_back(proc.enqueue(frame, target.get(), g));
    for (auto& p : pending)
        p.wait();
    std::string line;
    for (const StageTime& t : pending.back().timings())
        line += " " + t.name + "=" + std::to_string(t.ms) + "ms";
    std::cout << "[ timings  ] " << cl.info().name << ", nv12 1920x1080, last of " << frames
              << " frames:" << line << "\n";
}

TEST_F(Filters, ProcessorRejectsMismatchedGeometry) {
    ClContext& cl = *test_cl();
    FrameProcessor proc(cl, Chain{});
    std::mt19937 rng(3);
    HostFrame f = random_frame(rgba16_case(), 8, 8, ColorInfo{}, rng);
    ClMem target = cl.buffer(CL_MEM_READ_WRITE, 1 << 16);
    EXPECT_THROW(proc.enqueue(f, target.get(), make_geometry(8, 8, WorkFormat::rgba8)), Error);
    EXPECT_THROW(proc.enqueue(f, target.get(), make_geometry(9, 8, WorkFormat::rgba16)), Error);
}

// ---- the program-build path ----

TEST_F(Filters, KernelSyntaxErrorGivesGpuErrorWithLogAndFile) {
    namespace fs = std::filesystem;
    const fs::path dir =
        fs::temp_directory_path() / ("vfx_broken_kernel_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    {
        std::ofstream(dir / "gaussian.cl") << "__kernel void gaussian_h(__global int* p) {\n"
                                              "    p[0] = undeclared_identifier_xyz;\n}\n";
    }
    ClContext cl(test_cl()->info());  // a fresh program cache
    cl.set_kernel_dir(dir.string());
    try {
        cl.program("gaussian.cl", "-DWORK16=0");
        ADD_FAILURE() << "the broken kernel built";
    } catch (const GpuError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("gaussian.cl"), std::string::npos) << msg;
        EXPECT_NE(msg.find("undeclared_identifier_xyz"), std::string::npos) << msg;
        EXPECT_EQ(e.code(), CL_BUILD_PROGRAM_FAILURE);
    }
    // The processor surfaces the same error when the chain needs that kernel.
    FrameProcessor proc(cl, parse_chain("gaussian"));
    std::mt19937 rng(5);
    HostFrame f = random_frame(rgba16_case(), 4, 4, ColorInfo{}, rng);
    const FrameGeometry g = make_geometry(4, 4, WorkFormat::rgba16);
    ClMem target = cl.buffer(CL_MEM_READ_WRITE, g.size_bytes());
    EXPECT_THROW(proc.enqueue(f, target.get(), g), GpuError);
    fs::remove_all(dir);
}

TEST_F(Filters, MissingKernelSourceIsAnError) {
    ClContext cl(test_cl()->info());
    EXPECT_THROW(cl.program("no_such_kernel.cl"), Error);
    EXPECT_THROW(cl.kernel_source("no_such_kernel.cl"), Error);
    EXPECT_FALSE(cl.kernel_source("common.h").empty());
}

TEST_F(Filters, ProgramsAreCached) {
    ClContext& cl = *test_cl();
    EXPECT_EQ(cl.program("gaussian.cl", "-DWORK16=0"), cl.program("gaussian.cl", "-DWORK16=0"));
}

TEST(ClCheck, ErrorNamesAndFailure) {
    EXPECT_STREQ(cl_error_name(CL_SUCCESS), "CL_SUCCESS");
    EXPECT_STREQ(cl_error_name(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
    EXPECT_STREQ(cl_error_name(CL_INVALID_KERNEL_ARGS), "CL_INVALID_KERNEL_ARGS");
    EXPECT_STREQ(cl_error_name(-72), "CL_MAX_SIZE_RESTRICTION_EXCEEDED");
    EXPECT_STREQ(cl_error_name(-1001), "CL_PLATFORM_NOT_FOUND_KHR");
    EXPECT_STREQ(cl_error_name(-1142), "CL_INVALID_SEMAPHORE_KHR");
    EXPECT_STREQ(cl_error_name(-12345), "CL_UNKNOWN_ERROR");
    for (int code = -1; code >= -72; --code)
        if (code > -20 || code <= -30) {
            EXPECT_STRNE(cl_error_name(code), "CL_UNKNOWN_ERROR") << code;
        }
    try {
        VFX_CL(CL_INVALID_VALUE);
        ADD_FAILURE() << "no throw";
    } catch (const GpuError& e) {
        EXPECT_EQ(e.code(), CL_INVALID_VALUE);
        const std::string msg = e.what();
        EXPECT_EQ(msg.rfind("CL_INVALID_VALUE failed: CL_INVALID_VALUE (-30) at ", 0), 0u) << msg;
        EXPECT_NE(msg.find("test_filters.cpp:"), std::string::npos) << msg;
    }
}

TEST(ClDevices, ListedDevicesAreDescribed) {
    const auto devices = list_cl_devices();
    if (devices.empty()) GTEST_SKIP() << "no OpenCL device";
    for (size_t i = 0; i < devices.size(); ++i) {
        const ClDeviceInfo& d = devices[i];
        EXPECT_EQ(d.index, static_cast<int>(i));
        EXPECT_FALSE(d.name.empty());
        EXPECT_EQ(d.version.rfind("OpenCL ", 0), 0u) << d.version;
        EXPECT_GT(d.max_work_group, 0u);
        EXPECT_GT(d.local_mem_bytes, 0u);
        EXPECT_EQ(d.uuid.has_value(), d.has_extension("cl_khr_device_uuid"));
        EXPECT_FALSE(d.has_extension("cl_khr"));  // whole names only
    }
}

// Every program of an NVIDIA GPU is built knowing its compute capability (common.h uses inline
// PTX only where the GPU has the instruction); nothing is added elsewhere.
TEST(ClDevices, ProgramsOfAnNvidiaGpuKnowItsComputeCapability) {
    ClDeviceInfo d;
    EXPECT_EQ(d.arch_options(), "");
    d.nv_compute_capability = 90;
    EXPECT_EQ(d.arch_options(), "-DVFX_NV_SM=90");
    d.nv_compute_capability = 61;
    EXPECT_EQ(d.arch_options(), "-DVFX_NV_SM=61");
}

}  // namespace
}  // namespace vfx::test
