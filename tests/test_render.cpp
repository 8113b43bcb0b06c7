// engine/render: VkContext, vk_check, vk_handle, the renderer on an offscreen target.
// Every GPU test runs with the validation layer (and synchronization validation) on and
// expects no validation error (VkTest fixture).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

#include "core/error.hpp"
#include "core/log.hpp"
#include "render_util.hpp"
#include "support/media.hpp"

namespace vfx::test {
namespace {

// --- no GPU needed ---------------------------------------------------------------------------

TEST(VkCheck, ResultNames) {
    EXPECT_STREQ(vk_result_name(VK_SUCCESS), "VK_SUCCESS");
    EXPECT_STREQ(vk_result_name(VK_ERROR_DEVICE_LOST), "VK_ERROR_DEVICE_LOST");
    EXPECT_STREQ(vk_result_name(VK_ERROR_OUT_OF_DATE_KHR), "VK_ERROR_OUT_OF_DATE_KHR");
    EXPECT_STREQ(vk_result_name(VK_SUBOPTIMAL_KHR), "VK_SUBOPTIMAL_KHR");
    EXPECT_STREQ(vk_result_name(VK_ERROR_VALIDATION_FAILED_EXT), "VK_ERROR_VALIDATION_FAILED_EXT");
    EXPECT_STREQ(vk_result_name(VK_ERROR_INVALID_EXTERNAL_HANDLE),
                 "VK_ERROR_INVALID_EXTERNAL_HANDLE");
    EXPECT_STREQ(vk_result_name(VK_ERROR_FULL_SCREEN_EXCLUSIVE_MODE_LOST_EXT),
                 "VK_ERROR_FULL_SCREEN_EXCLUSIVE_MODE_LOST_EXT");
    EXPECT_STREQ(vk_result_name(VK_ERROR_COMPRESSION_EXHAUSTED_EXT),
                 "VK_ERROR_COMPRESSION_EXHAUSTED_EXT");
    EXPECT_STREQ(vk_result_name(static_cast<VkResult>(-1000299000)),
                 "VK_ERROR_INVALID_VIDEO_STD_PARAMETERS_KHR");
    EXPECT_STREQ(vk_result_name(static_cast<VkResult>(12345)), "VK_UNKNOWN_RESULT");
}

TEST(VkCheck, FailThrowsGpuErrorWithCallAndLocation) {
    try {
        VFX_VK(VK_ERROR_DEVICE_LOST);
        FAIL() << "no throw";
    } catch (const GpuError& e) {
        EXPECT_EQ(e.code(), VK_ERROR_DEVICE_LOST);
        const std::string msg = e.what();
        EXPECT_NE(msg.find("VK_ERROR_DEVICE_LOST failed: VK_ERROR_DEVICE_LOST (-4) at "),
                  std::string::npos)
            << msg;
        EXPECT_NE(msg.find("test_render.cpp:"), std::string::npos) << msg;
    }
    EXPECT_NO_THROW(VFX_VK(VK_SUCCESS));
}

int g_destroyed = 0;
void fake_destroy(VkDevice, VkBuffer, const VkAllocationCallbacks*) {
    ++g_destroyed;
}
using FakeHandle = VkHandle<VkBuffer, fake_destroy>;
VkBuffer fake(uintptr_t v) {
    return reinterpret_cast<VkBuffer>(v);
}

TEST(VkHandle, MoveOnlyOwnership) {
    g_destroyed = 0;
    {
        FakeHandle a(VK_NULL_HANDLE, fake(1));
        EXPECT_TRUE(a);
        FakeHandle b(std::move(a));
        EXPECT_FALSE(a);  // NOLINT(bugprone-use-after-move)
        EXPECT_EQ(b.get(), fake(1));
        FakeHandle c(VK_NULL_HANDLE, fake(2));
        c = std::move(b);  // destroys 2
        EXPECT_EQ(g_destroyed, 1);
        EXPECT_EQ(c.get(), fake(1));
        FakeHandle d(VK_NULL_HANDLE, fake(3));
        EXPECT_EQ(d.release(), fake(3));  // not destroyed
        FakeHandle e;                     // empty: nothing to destroy
    }
    EXPECT_EQ(g_destroyed, 2);
    static_assert(!std::is_copy_constructible_v<FakeHandle>);
}

TEST(DeferredQueue, DestroysOnlyCompletedSerials) {
    g_destroyed = 0;
    DeferredQueue q;
    q.retire(FakeHandle(VK_NULL_HANDLE, fake(1)), 3);
    q.retire(FakeHandle(VK_NULL_HANDLE, fake(2)), 1);
    std::vector<FakeHandle> group;
    group.emplace_back(VK_NULL_HANDLE, fake(3));
    group.emplace_back(VK_NULL_HANDLE, fake(4));
    q.retire(std::move(group), 5);
    EXPECT_EQ(q.size(), 3u);
    EXPECT_EQ(q.collect(0), 0u);
    EXPECT_EQ(q.collect(2), 1u);
    EXPECT_EQ(g_destroyed, 1);
    EXPECT_EQ(q.collect(4), 1u);
    EXPECT_EQ(g_destroyed, 2);
    EXPECT_EQ(q.size(), 1u);
    q.clear();
    EXPECT_EQ(g_destroyed, 4);
    EXPECT_TRUE(q.empty());
}

TEST(Letterbox, SameAspectFillsTarget) {
    EXPECT_EQ(letterbox_rect(17, 13, 17, 13), (Rect{0, 0, 17, 13}));
    EXPECT_EQ(letterbox_rect(1920, 1080, 1280, 720), (Rect{0, 0, 1920, 1080}));
}

TEST(Letterbox, WideVideoGetsBarsAboveAndBelow) {
    EXPECT_EQ(letterbox_rect(64, 64, 64, 32), (Rect{0, 16, 64, 32}));
    EXPECT_EQ(letterbox_rect(1920, 1080, 1920, 800), (Rect{0, 140, 1920, 800}));
}

TEST(Letterbox, TallVideoGetsBarsLeftAndRight) {
    EXPECT_EQ(letterbox_rect(64, 64, 32, 64), (Rect{16, 0, 32, 64}));
    EXPECT_EQ(letterbox_rect(1920, 1080, 1440, 1080), (Rect{240, 0, 1440, 1080}));
}

TEST(Letterbox, SampleAspectRatio) {
    // 32x32 pixels twice as wide as tall: displays 2:1.
    EXPECT_EQ(letterbox_rect(64, 64, 32, 32, 2, 1), (Rect{0, 16, 64, 32}));
    // DVD PAL 16:9: 720x576 with sar 64:45 -> 1024x576.
    EXPECT_EQ(letterbox_rect(1024, 576, 720, 576, 64, 45), (Rect{0, 0, 1024, 576}));
    EXPECT_EQ(letterbox_rect(1920, 1080, 720, 576, 64, 45), (Rect{0, 0, 1920, 1080}));
    // 4:3 PAL (sar 16:15) in a 16:9 window.
    EXPECT_EQ(letterbox_rect(1920, 1080, 720, 576, 16, 15), (Rect{240, 0, 1440, 1080}));
    // A zero SAR counts as square pixels.
    EXPECT_EQ(letterbox_rect(64, 64, 64, 32, 0, 0), (Rect{0, 16, 64, 32}));
}

TEST(Letterbox, RotationOnItsSideInvertsTheAspectRatio) {
    // 64x32 turned a quarter: 32 wide, 64 tall on screen.
    for (uint32_t rot : {90u, 270u})
        EXPECT_EQ(letterbox_rect(64, 64, 64, 32, 1, 1, rot), (Rect{16, 0, 32, 64})) << rot;
    EXPECT_EQ(letterbox_rect(64, 64, 64, 32, 1, 1, 180), (Rect{0, 16, 64, 32}));
    // 1920x1080 phone video shown upright in a 1920x1080 window: pillarboxed 608x1080.
    EXPECT_EQ(letterbox_rect(1920, 1080, 1920, 1080, 1, 1, 90), (Rect{656, 0, 608, 1080}));
    // The sample aspect ratio turns with the picture: 32x32 of 2:1 pixels stands 1:2.
    EXPECT_EQ(letterbox_rect(64, 64, 32, 32, 2, 1, 270), (Rect{16, 0, 32, 64}));
}

TEST(Letterbox, RoundsAndNeverEmptiesOrOverflows) {
    const Rect r = letterbox_rect(33, 33, 100, 50);  // 16.5 rows -> 17
    EXPECT_EQ(r, (Rect{0, 8, 33, 17}));
    EXPECT_EQ(letterbox_rect(10, 10, 10000, 1), (Rect{0, 4, 10, 1}));  // at least one row
    EXPECT_EQ(letterbox_rect(0, 10, 10, 10), Rect{});
    EXPECT_EQ(letterbox_rect(10, 10, 0, 10), Rect{});
    const Rect big = letterbox_rect(65535, 65535, 65535, 1, 65535, 1);
    EXPECT_EQ(big.width, 65535u);
    EXPECT_EQ(big.height, 1u);
}

// --- with a Vulkan device --------------------------------------------------------------------

TEST(VkDevices, ListFindsADevice) {
    const std::vector<VkDeviceDesc> devs = list_vk_devices();
    if (devs.empty()) GTEST_SKIP() << "no Vulkan device (no driver/ICD found)";
    for (const VkDeviceDesc& d : devs) {
        EXPECT_FALSE(d.name.empty());
        EXPECT_FALSE(d.driver.empty());
        EXPECT_GE(d.api_version, VK_API_VERSION_1_0);
        std::printf(
            "  [%u] %s (%s, %s) API %u.%u, ext mem fd %d, ext sem fd %d, host mem %d, "
            "swapchain %d\n",
            d.index, d.name.c_str(), d.type_name().c_str(), d.driver.c_str(),
            VK_API_VERSION_MAJOR(d.api_version), VK_API_VERSION_MINOR(d.api_version),
            d.external_memory_fd, d.external_semaphore_fd, d.external_memory_host, d.swapchain);
    }
}

TEST(VkDevices, FindsLavapipe) {
    const std::vector<VkDeviceDesc> devs = list_vk_devices();
    const bool cpu = std::any_of(devs.begin(), devs.end(), [](const VkDeviceDesc& d) {
        return d.type == VK_PHYSICAL_DEVICE_TYPE_CPU;
    });
    if (!cpu) GTEST_SKIP() << "no CPU Vulkan device here (lavapipe not installed)";
    auto it = std::find_if(devs.begin(), devs.end(), [](const VkDeviceDesc& d) {
        return d.name.find("llvmpipe") != std::string::npos;
    });
    ASSERT_NE(it, devs.end());
    EXPECT_EQ(it->type_name(), "CPU");
    EXPECT_GE(it->api_version, VK_API_VERSION_1_1);
    EXPECT_NE(it->driver.find("llvmpipe"), std::string::npos) << it->driver;
    EXPECT_TRUE(it->external_memory_host);
}

using Context = VkTest;

TEST_F(Context, PicksADeviceAndEnablesItsExtensions) {
    EXPECT_NE(ctx().device(), VK_NULL_HANDLE);
    EXPECT_NE(ctx().queue(), VK_NULL_HANDLE);
    EXPECT_GE(ctx().api_version(), VK_API_VERSION_1_1);
    EXPECT_EQ(ctx().has_device_extension(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME),
              ctx().desc().external_memory_fd);
    EXPECT_EQ(ctx().has_device_extension(VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME),
              ctx().desc().external_memory_host);
    // No window here: no VK_KHR_surface on the instance, so no VK_KHR_swapchain.
    EXPECT_FALSE(ctx().has_device_extension(VK_KHR_SWAPCHAIN_EXTENSION_NAME));
    if (ctx().desc().external_memory_fd) {
        EXPECT_NE(ctx().device_function("vkGetMemoryFdKHR"), nullptr);
    }
    EXPECT_THROW(ctx().device_function("vkNoSuchFunctionVFX"), GpuError);
    // A device list entry with the chosen device's UUID exists.
    const std::vector<VkDeviceDesc> devs = list_vk_devices();
    EXPECT_TRUE(std::any_of(devs.begin(), devs.end(),
                            [&](const VkDeviceDesc& d) { return d.uuid == ctx().desc().uuid; }));
}

TEST(VkContextOptions, BadDeviceIndexIsAUserError) {
    if (!vulkan_available()) GTEST_SKIP() << "no Vulkan device";
    VkContextOptions o;
    o.device_index = 999;
    EXPECT_THROW(VkContext ctx(o), Error);
}

// The zero-error checks mean something only if errors are seen: a storage-buffer descriptor
// for a buffer without STORAGE_BUFFER usage must be reported and counted.
TEST(Validation, ErrorsAreReportedAndCounted) {
    if (!vulkan_available()) GTEST_SKIP() << "no Vulkan device";
    VkContextOptions o;
    o.validation = true;
    VkContext ctx(o);
    if (!ctx.validation_enabled()) GTEST_SKIP() << "no validation layer";
    const auto level = spdlog::get_level();
    spdlog::set_level(spdlog::level::off);  // the expected error need not be printed
    {
        const TestFrame frame = make_test_frame(8, 8, WorkFormat::rgba8);
        HostBuffer buf =
            make_host_buffer(ctx, frame.bytes.size(), VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
        VideoFrame vf = upload(frame, buf);
        Renderer r(ctx, OffscreenTarget{{8, 8}});
        FrameSubmit s;
        s.frame = &vf;
        r.render(s);
        r.wait_all();
    }
    spdlog::set_level(level);
    EXPECT_GT(ctx.validation_errors(), 0u);
}

using Render = VkTest;

// With VFX_TEST_DUMP set, every read-back image is also written to the scratch folder as a PPM
// named after the test (to look at).
void dump(const RgbaImage& img) {
    if (!std::getenv("VFX_TEST_DUMP")) return;
    static int n = 0;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::string path = fmt::format("{}/{}_{}.ppm", scratch_dir(), info->name(), n++);
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return;
    std::fprintf(f, "P6\n%u %u\n255\n", img.width, img.height);
    for (size_t i = 0; i < img.pixels.size(); i += 4)
        std::fwrite(&img.pixels[i], 1, 3, f);
    std::fclose(f);
    std::printf("  wrote %s\n", path.c_str());
}

// Renders `frame` (uploaded at `offset`) into a target of `tw` x `th` and reads it back.
RgbaImage render_once(VkContext& ctx, const TestFrame& frame, uint32_t tw, uint32_t th,
                      uint32_t sar_num = 1, uint32_t sar_den = 1, VkDeviceSize offset = 20,
                      VideoPass pass = VideoPass::automatic, uint32_t rotation = 0) {
    HostBuffer buf = make_host_buffer(ctx, offset + frame.bytes.size() + 64);
    VideoFrame vf = upload(frame, buf, offset);
    vf.sar_num = sar_num;
    vf.sar_den = sar_den;
    vf.rotation = rotation;
    RendererOptions ro;
    ro.video_pass = pass;
    Renderer r(ctx, OffscreenTarget{{tw, th}}, ro);
    if (pass != VideoPass::automatic) {
        EXPECT_EQ(r.video_pass(), pass);
    }
    FrameSubmit s;
    s.frame = &vf;
    const FrameResult res = r.render(s);
    EXPECT_EQ(res.serial, 1u);
    EXPECT_TRUE(res.drawn);
    EXPECT_FALSE(res.presented);
    RgbaImage img = r.read_back();
    EXPECT_EQ(r.completed_serial(), 1u);
    dump(img);
    return img;
}

// Largest channel difference between the rendered target and the frame drawn 1:1.
double max_error_1to1(const RgbaImage& img, const TestFrame& frame) {
    double worst = 0;
    for (uint32_t y = 0; y < frame.height; ++y) {
        for (uint32_t x = 0; x < frame.width; ++x) {
            const std::array<double, 4> want = frame.pixel8(x, y);
            const uint8_t* got = img.at(x, y);
            for (int c = 0; c < 4; ++c)
                worst = std::max(worst, std::abs(got[c] - want[c]));
        }
    }
    return worst;
}

TEST_F(Render, OneToOneReproducesTheFrame) {
    struct Case {
        uint32_t w, h;
        WorkFormat f;
    };
    for (const Case& c : {Case{17, 13, WorkFormat::rgba8}, Case{17, 13, WorkFormat::rgba16},
                          Case{641, 479, WorkFormat::rgba8}, Case{641, 479, WorkFormat::rgba16}}) {
        SCOPED_TRACE(fmt::format("{}x{} {}", c.w, c.h, to_string(c.f)));
        const TestFrame frame = make_test_frame(c.w, c.h, c.f, 1);
        ASSERT_GT(frame.pitch, c.w * bytes_per_pixel(c.f));
        const RgbaImage img = render_once(ctx(), frame, c.w, c.h);
        ASSERT_EQ(img.width, c.w);
        ASSERT_EQ(img.height, c.h);
        // rgba8 is copied exactly; rgba16 -> 8 bits: within 1 LSB of the exact value.
        const double tolerance = c.f == WorkFormat::rgba8 ? 0.0 : 1.0;
        EXPECT_LE(max_error_1to1(img, frame), tolerance);
    }
}

TEST_F(Render, OffsetsNeedNotBeAlignedToTheDescriptorAlignment) {
    const TestFrame frame = make_test_frame(17, 13, WorkFormat::rgba8, 3);
    for (VkDeviceSize offset : {0u, 4u, 20u, 260u}) {
        SCOPED_TRACE(offset);
        const RgbaImage img = render_once(ctx(), frame, 17, 13, 1, 1, offset);
        EXPECT_EQ(max_error_1to1(img, frame), 0.0);
    }
}

TestFrame solid_frame(uint32_t w, uint32_t h, uint8_t r, uint8_t g, uint8_t b) {
    TestFrame t = make_test_frame(w, h, WorkFormat::rgba8);
    for (uint32_t y = 0; y < h; ++y) {
        for (uint32_t x = 0; x < w; ++x) {
            uint8_t* p = t.bytes.data() + size_t{y} * t.pitch + size_t{x} * 4;
            p[0] = r;
            p[1] = g;
            p[2] = b;
            p[3] = 255;
        }
    }
    return t;
}

// Every pixel inside `rect` is (r, g, b), every pixel outside black.
void expect_bars(const RgbaImage& img, Rect rect, uint8_t r, uint8_t g, uint8_t b) {
    int wrong = 0;
    for (uint32_t y = 0; y < img.height; ++y) {
        for (uint32_t x = 0; x < img.width; ++x) {
            const bool inside = x >= static_cast<uint32_t>(rect.x) && x < rect.x + rect.width &&
                                y >= static_cast<uint32_t>(rect.y) && y < rect.y + rect.height;
            const uint8_t* p = img.at(x, y);
            const uint8_t want[4] = {inside ? r : uint8_t{0}, inside ? g : uint8_t{0},
                                     inside ? b : uint8_t{0}, 255};
            if (std::memcmp(p, want, 4) != 0 && ++wrong <= 5) {
                ADD_FAILURE() << "pixel " << x << "," << y << " is " << int(p[0]) << ","
                              << int(p[1]) << "," << int(p[2]) << "," << int(p[3])
                              << (inside ? " inside" : " in the bars");
            }
        }
    }
    EXPECT_EQ(wrong, 0);
}

TEST_F(Render, LetterboxBarsForWideVideo) {
    const RgbaImage img = render_once(ctx(), solid_frame(64, 32, 200, 100, 50), 64, 64);
    expect_bars(img, Rect{0, 16, 64, 32}, 200, 100, 50);
}

TEST_F(Render, LetterboxBarsForSampleAspectRatio) {
    // Square pixels would fill the target; sar 2:1 makes it 2:1 on screen.
    const RgbaImage img = render_once(ctx(), solid_frame(32, 32, 10, 220, 30), 64, 64, 2, 1);
    expect_bars(img, Rect{0, 16, 64, 32}, 10, 220, 30);
}

TEST_F(Render, PillarboxBarsForTallVideo) {
    const RgbaImage img = render_once(ctx(), solid_frame(30, 64, 90, 80, 250), 64, 64);
    expect_bars(img, letterbox_rect(64, 64, 30, 64), 90, 80, 250);
    EXPECT_EQ(letterbox_rect(64, 64, 30, 64), (Rect{17, 0, 30, 64}));
}

// CPU reference of the shader's bilinear filter (texel centres, clamp to edge).
std::array<double, 4> bilinear(const TestFrame& f, Rect r, uint32_t px, uint32_t py) {
    const double sx = (px + 0.5 - r.x) * (static_cast<double>(f.width) / r.width) - 0.5;
    const double sy = (py + 0.5 - r.y) * (static_cast<double>(f.height) / r.height) - 0.5;
    const double fx = std::floor(sx), fy = std::floor(sy);
    const double tx = sx - fx, ty = sy - fy;
    auto cl = [](double v, uint32_t n) {
        return static_cast<uint32_t>(std::clamp(v, 0.0, static_cast<double>(n - 1)));
    };
    const uint32_t x0 = cl(fx, f.width), x1 = cl(fx + 1, f.width);
    const uint32_t y0 = cl(fy, f.height), y1 = cl(fy + 1, f.height);
    std::array<double, 4> out{};
    const auto a = f.pixel8(x0, y0), b = f.pixel8(x1, y0), c = f.pixel8(x0, y1),
               d = f.pixel8(x1, y1);
    for (int i = 0; i < 4; ++i) {
        const double top = a[i] + (b[i] - a[i]) * tx;
        const double bottom = c[i] + (d[i] - c[i]) * tx;
        out[i] = top + (bottom - top) * ty;
    }
    return out;
}

// A rotated frame drawn 1:1 (the target has the turned size): every pixel lands exactly where
// turning the picture clockwise puts it.
TEST_F(Render, RotationTurnsThePictureClockwise) {
    const uint32_t w = 13, h = 7;
    for (WorkFormat f : {WorkFormat::rgba8, WorkFormat::rgba16}) {
        const TestFrame frame = make_test_frame(w, h, f, 3);
        for (uint32_t rot : {0u, 90u, 180u, 270u}) {
            SCOPED_TRACE(fmt::format("{} rotation {}", to_string(f), rot));
            const bool side = rot % 180 == 90;
            const uint32_t tw = side ? h : w, th = side ? w : h;
            HostBuffer buf = make_host_buffer(ctx(), frame.bytes.size() + 64);
            VideoFrame vf = upload(frame, buf, 0);
            vf.rotation = rot;
            Renderer r(ctx(), OffscreenTarget{{tw, th}});
            FrameSubmit s;
            s.frame = &vf;
            r.render(s);
            const RgbaImage img = r.read_back();
            dump(img);
            double worst = 0;
            for (uint32_t y = 0; y < th; ++y)
                for (uint32_t x = 0; x < tw; ++x) {
                    // Where display pixel (x, y) comes from in the stored frame.
                    uint32_t sx = x, sy = y;
                    if (rot == 90) sx = y, sy = h - 1 - x;
                    if (rot == 180) sx = w - 1 - x, sy = h - 1 - y;
                    if (rot == 270) sx = w - 1 - y, sy = x;
                    const auto want = frame.pixel8(sx, sy);
                    for (int c = 0; c < 4; ++c)
                        worst = std::max(worst, std::abs(img.at(x, y)[c] - want[c]));
                }
            EXPECT_LE(worst, f == WorkFormat::rgba8 ? 0.0 : 1.0);
        }
    }
    HostBuffer buf = make_host_buffer(ctx(), 4096);
    TestFrame frame = make_test_frame(4, 4, WorkFormat::rgba8);
    VideoFrame vf = upload(frame, buf, 0);
    vf.rotation = 45;
    Renderer r(ctx(), OffscreenTarget{{4, 4}});
    FrameSubmit s;
    s.frame = &vf;
    EXPECT_THROW(r.render(s), std::invalid_argument);
}

TEST_F(Render, ScalingIsBilinear) {
    struct Case {
        uint32_t w, h, tw, th;
        WorkFormat f;
    };
    for (const Case& c :
         {Case{5, 3, 40, 24, WorkFormat::rgba16}, Case{7, 5, 50, 30, WorkFormat::rgba8},
          Case{64, 48, 20, 15, WorkFormat::rgba8}}) {
        SCOPED_TRACE(fmt::format("{}x{} -> {}x{}", c.w, c.h, c.tw, c.th));
        const TestFrame frame = make_test_frame(c.w, c.h, c.f, 5);
        const RgbaImage img = render_once(ctx(), frame, c.tw, c.th);
        const Rect rect = letterbox_rect(c.tw, c.th, c.w, c.h);
        double worst = 0;
        for (uint32_t y = 0; y < c.th; ++y) {
            for (uint32_t x = 0; x < c.tw; ++x) {
                const bool inside = x >= static_cast<uint32_t>(rect.x) && x < rect.x + rect.width &&
                                    y >= static_cast<uint32_t>(rect.y) && y < rect.y + rect.height;
                const std::array<double, 4> want =
                    inside ? bilinear(frame, rect, x, y) : std::array<double, 4>{0, 0, 0, 255};
                for (int i = 0; i < 4; ++i)
                    worst = std::max(worst, std::abs(img.at(x, y)[i] - want[i]));
            }
        }
        EXPECT_LE(worst, 1.0);  // rounding of the 8-bit target + float arithmetic
    }
}

// The compute pass and the fragment pass draw the same pixels: scaled up and down, letterboxed
// and pillarboxed, turned, from 8 and 16 bits.
TEST_F(Render, ComputeAndFragmentPassesDrawTheSamePixels) {
    if (!ctx().storage_write_without_format()) {
        Renderer r(ctx(), OffscreenTarget{{8, 8}});
        EXPECT_EQ(r.video_pass(), VideoPass::fragment);
        GTEST_SKIP() << "no shaderStorageImageWriteWithoutFormat: fragment pass only";
    }
    struct Case {
        uint32_t w, h, tw, th;
        WorkFormat f;
        uint32_t rotation, sar_num, sar_den;
    };
    for (const Case& c : {Case{64, 48, 20, 15, WorkFormat::rgba8, 0, 1, 1},
                          Case{7, 5, 50, 30, WorkFormat::rgba16, 0, 1, 1},
                          Case{13, 7, 40, 40, WorkFormat::rgba8, 90, 1, 1},
                          Case{32, 32, 64, 48, WorkFormat::rgba8, 0, 2, 1},
                          Case{641, 479, 300, 200, WorkFormat::rgba16, 270, 1, 1},
                          Case{17, 13, 17, 13, WorkFormat::rgba8, 180, 1, 1}}) {
        SCOPED_TRACE(fmt::format("{}x{} {} -> {}x{}, rotation {}, sar {}:{}", c.w, c.h,
                                 to_string(c.f), c.tw, c.th, c.rotation, c.sar_num, c.sar_den));
        const TestFrame frame = make_test_frame(c.w, c.h, c.f, 7);
        const RgbaImage comp = render_once(ctx(), frame, c.tw, c.th, c.sar_num, c.sar_den, 20,
                                           VideoPass::compute, c.rotation);
        const RgbaImage frag = render_once(ctx(), frame, c.tw, c.th, c.sar_num, c.sar_den, 20,
                                           VideoPass::fragment, c.rotation);
        ASSERT_EQ(comp.pixels.size(), frag.pixels.size());
        int worst = 0;
        size_t differ = 0;
        for (size_t i = 0; i < comp.pixels.size(); ++i) {
            const int d = std::abs(int{comp.pixels[i]} - int{frag.pixels[i]});
            worst = std::max(worst, d);
            differ += d != 0;
        }
        // The same shader code on the same positions; only the conversion of the result to
        // 8 bits (the attachment's or the storage image's) may round a half differently.
        EXPECT_LE(worst, 1) << differ << " channels differ";
    }
}

// `automatic` measures both passes for each target size and keeps the faster; a new size is
// measured again.
TEST_F(Render, AutomaticKeepsTheFasterPassForEachSize) {
    if (!ctx().storage_write_without_format()) GTEST_SKIP() << "fragment pass only here";
    Renderer r(ctx(), OffscreenTarget{{64, 36}});
    if (!r.timestamps_supported()) GTEST_SKIP() << "queue has no timestamps";
    const TestFrame frame = make_test_frame(160, 90, WorkFormat::rgba8, 2);
    HostBuffer buf = make_host_buffer(ctx(), frame.bytes.size());
    VideoFrame vf = upload(frame, buf);
    FrameSubmit s;
    s.frame = &vf;
    for (VkExtent2D size : {VkExtent2D{64, 36}, VkExtent2D{96, 54}}) {
        SCOPED_TRACE(fmt::format("{}x{}", size.width, size.height));
        r.resize(size);
        for (int i = 0; i < 24; ++i)
            r.wait_frame(r.render(s).serial);
        const auto choice = r.video_pass_choice();
        ASSERT_TRUE(choice.has_value());
        EXPECT_EQ(choice->extent.width, size.width);
        EXPECT_EQ(choice->extent.height, size.height);
        EXPECT_GT(choice->compute_ms, 0.0);
        EXPECT_GT(choice->fragment_ms, 0.0);
        EXPECT_EQ(r.video_pass(), choice->compute_ms <= choice->fragment_ms ? VideoPass::compute
                                                                            : VideoPass::fragment);
        // The picture does not depend on which pass drew it.
        const RgbaImage img = r.read_back();
        const RgbaImage want =
            render_once(ctx(), frame, size.width, size.height, 1, 1, 20, VideoPass::fragment);
        int worst = 0;
        for (size_t i = 0; i < img.pixels.size(); ++i)
            worst = std::max(worst, std::abs(int{img.pixels[i]} - int{want.pixels[i]}));
        EXPECT_LE(worst, 1);
    }
}

// Targets beyond the device's limits are a user error (one line), not undefined behaviour.
TEST_F(Render, OffscreenTargetBeyondTheDeviceLimitIsAUserError) {
    const uint32_t most = ctx().properties().limits.maxImageDimension2D;
    EXPECT_THROW(Renderer(ctx(), OffscreenTarget{{most + 1, 8}}), vfx::Error);
    Renderer r(ctx(), OffscreenTarget{{8, 8}});
    EXPECT_THROW(r.resize({8, most + 1}), vfx::Error);
}

TEST_F(Render, FramesInFlightWithFences) {
    constexpr uint32_t W = 33, H = 21;
    RendererOptions opt;
    opt.frames_in_flight = 3;
    Renderer r(ctx(), OffscreenTarget{{W, H}}, opt);
    EXPECT_EQ(r.frames_in_flight(), 3u);
    EXPECT_EQ(r.image_count(), 3u);
    EXPECT_NE(r.render_pass(), VK_NULL_HANDLE);
    EXPECT_EQ(r.subpass(), 0u);

    // Three buffers in rotation; a buffer is rewritten only once the frame that read it is done.
    std::vector<HostBuffer> bufs;
    std::vector<uint64_t> last_use(3, 0);
    for (int i = 0; i < 3; ++i)
        bufs.push_back(make_host_buffer(ctx(), 64 * 1024));
    uint64_t prev = 0;
    TestFrame last;
    for (uint32_t i = 0; i < 10; ++i) {
        const size_t k = i % 3;
        if (last_use[k]) {
            ASSERT_TRUE(r.wait_frame(last_use[k]));
            EXPECT_GE(r.completed_serial(), last_use[k]);
        }
        last = make_test_frame(W, H, i % 2 ? WorkFormat::rgba16 : WorkFormat::rgba8, i);
        VideoFrame vf = upload(last, bufs[k]);
        FrameSubmit s;
        s.frame = &vf;
        const FrameResult res = r.render(s);
        EXPECT_EQ(res.serial, prev + 1);
        EXPECT_TRUE(res.drawn);
        prev = res.serial;
        last_use[k] = res.serial;
        EXPECT_LE(r.completed_serial(), res.serial);
    }
    EXPECT_EQ(r.submitted_serial(), 10u);
    r.wait_all();
    EXPECT_EQ(r.completed_serial(), 10u);
    EXPECT_TRUE(r.wait_frame(3, 0));  // long done: no wait
    EXPECT_THROW(r.wait_frame(11), std::invalid_argument);

    const RgbaImage img = r.read_back();
    EXPECT_LE(max_error_1to1(img, last), 1.0);  // frame 10 (rgba16)

    if (r.timestamps_supported()) {
        ASSERT_TRUE(r.last_timing().has_value());
        const FrameTiming t = *r.last_timing();
        EXPECT_EQ(t.serial, 10u);
        EXPECT_TRUE(std::isfinite(t.gpu_ms));
        EXPECT_GT(t.gpu_ms, 0.0);
        EXPECT_LT(t.gpu_ms, 10000.0);
        std::printf("  GPU time of frame %llu: %.3f ms\n",
                    static_cast<unsigned long long>(t.serial), t.gpu_ms);
    } else {
        std::printf("  (no timestamps on this queue)\n");
    }
}

TEST_F(Render, GpuTimingIsPositiveAndFinite) {
    Renderer r(ctx(), OffscreenTarget{{320, 240}});
    if (!r.timestamps_supported()) GTEST_SKIP() << "queue has no timestamps";
    const TestFrame frame = make_test_frame(320, 240, WorkFormat::rgba8);
    HostBuffer buf = make_host_buffer(ctx(), frame.bytes.size());
    VideoFrame vf = upload(frame, buf);
    FrameSubmit s;
    s.frame = &vf;
    EXPECT_FALSE(r.last_timing().has_value());
    uint64_t serial = 0;
    for (int i = 0; i < 4; ++i)
        serial = r.render(s).serial;
    ASSERT_TRUE(r.wait_frame(serial));
    ASSERT_TRUE(r.last_timing().has_value());
    EXPECT_EQ(r.last_timing()->serial, serial);
    EXPECT_TRUE(std::isfinite(r.last_timing()->gpu_ms));
    EXPECT_GT(r.last_timing()->gpu_ms, 0.0);
}

TEST_F(Render, NoFrameClearsToBlackAndOverlayDrawsOnTop) {
    for (VideoPass pass : {VideoPass::automatic, VideoPass::fragment}) {
        SCOPED_TRACE(to_string(pass));
        RendererOptions ro;
        ro.video_pass = pass;
        Renderer r(ctx(), OffscreenTarget{{16, 8}}, ro);
        int calls = 0;
        FrameSubmit s;
        s.overlay = [&](VkCommandBuffer cmd) {
            ++calls;
            VkClearAttachment att{};
            att.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
            att.colorAttachment = 0;
            att.clearValue.color = {{1.0f, 0.0f, 0.0f, 1.0f}};
            VkClearRect rect{{{2, 2}, {4, 3}}, 0, 1};
            vkCmdClearAttachments(cmd, 1, &att, 1, &rect);
        };
        const FrameResult res = r.render(s);
        EXPECT_TRUE(res.drawn);
        EXPECT_EQ(calls, 1);
        const RgbaImage img = r.read_back();
        expect_bars(img, Rect{2, 2, 4, 3}, 255, 0, 0);
    }
}

TEST_F(Render, OverlayIsDrawnAfterTheVideo) {
    for (VideoPass pass : {VideoPass::automatic, VideoPass::fragment}) {
        SCOPED_TRACE(to_string(pass));
        const TestFrame frame = solid_frame(16, 16, 0, 0, 255);
        HostBuffer buf = make_host_buffer(ctx(), frame.bytes.size());
        VideoFrame vf = upload(frame, buf);
        RendererOptions ro;
        ro.video_pass = pass;
        Renderer r(ctx(), OffscreenTarget{{16, 16}}, ro);
        FrameSubmit s;
        s.frame = &vf;
        s.overlay = [&](VkCommandBuffer cmd) {
            VkClearAttachment att{};
            att.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
            att.clearValue.color = {{0.0f, 1.0f, 0.0f, 1.0f}};
            VkClearRect rect{{{0, 0}, {16, 4}}, 0, 1};
            vkCmdClearAttachments(cmd, 1, &att, 1, &rect);
        };
        r.render(s);
        const RgbaImage img = r.read_back();
        EXPECT_EQ(img.at(5, 1)[1], 255);  // overlay
        EXPECT_EQ(img.at(5, 1)[2], 0);
        EXPECT_EQ(img.at(5, 10)[2], 255);  // video
        EXPECT_EQ(img.at(5, 10)[1], 0);
    }
}

TEST_F(Render, ResizeOffscreenTarget) {
    Renderer r(ctx(), OffscreenTarget{{17, 13}});
    TestFrame a = make_test_frame(17, 13, WorkFormat::rgba8, 1);
    TestFrame b = make_test_frame(40, 10, WorkFormat::rgba16, 2);
    HostBuffer buf = make_host_buffer(ctx(), 64 * 1024);
    VideoFrame vf = upload(a, buf);
    FrameSubmit s;
    s.frame = &vf;
    r.render(s);
    EXPECT_EQ(max_error_1to1(r.read_back(), a), 0.0);
    r.resize({40, 10});
    EXPECT_EQ(r.extent().width, 40u);
    EXPECT_THROW(r.read_back(), std::logic_error);  // nothing drawn at the new size yet
    vf = upload(b, buf);
    r.render(s);
    const RgbaImage img = r.read_back();
    EXPECT_EQ(img.width, 40u);
    EXPECT_LE(max_error_1to1(img, b), 1.0);
}

TEST_F(Render, RejectsMalformedFrames) {
    Renderer r(ctx(), OffscreenTarget{{8, 8}});
    HostBuffer buf = make_host_buffer(ctx(), 4096);
    VideoFrame vf;
    vf.buffer = buf.buffer.get();
    vf.width = 8;
    vf.height = 8;
    vf.pitch = 30;  // not a multiple of 4
    FrameSubmit s;
    s.frame = &vf;
    EXPECT_THROW(r.render(s), std::invalid_argument);
    vf.pitch = 16;  // shorter than a row
    EXPECT_THROW(r.render(s), std::invalid_argument);
    vf.pitch = 32;
    vf.range = 100;  // too short for the frame
    EXPECT_THROW(r.render(s), std::invalid_argument);
    vf.range = VK_WHOLE_SIZE;
    vf.offset = 2;
    EXPECT_THROW(r.render(s), std::invalid_argument);
    vf.offset = 0;
    std::memset(buf.data, 0, 4096);
    EXPECT_EQ(r.render(s).serial, 1u);  // nothing was submitted by the failed calls
    EXPECT_TRUE(r.wait_frame(1));
}

TEST_F(Render, WaitsAndSignalsBinarySemaphores) {
    VkSemaphoreCreateInfo sci{};
    sci.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
    VkSemaphore raw[2]{};
    VFX_VK(vkCreateSemaphore(ctx().device(), &sci, nullptr, &raw[0]));
    SemaphoreHandle ready(ctx().device(), raw[0]);
    VFX_VK(vkCreateSemaphore(ctx().device(), &sci, nullptr, &raw[1]));
    SemaphoreHandle done(ctx().device(), raw[1]);
    ctx().set_name(raw[0], VK_OBJECT_TYPE_SEMAPHORE, "test frame ready");
    ctx().set_name(raw[1], VK_OBJECT_TYPE_SEMAPHORE, "test frame done");

    const TestFrame frame = make_test_frame(17, 13, WorkFormat::rgba8, 7);
    HostBuffer buf = make_host_buffer(ctx(), frame.bytes.size());
    VideoFrame vf = upload(frame, buf);
    Renderer r(ctx(), OffscreenTarget{{17, 13}});
    for (int i = 0; i < 3; ++i) {
        // Stands in for OpenCL: a batch that signals "ready".
        VkSubmitInfo si{};
        si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
        si.signalSemaphoreCount = 1;
        si.pSignalSemaphores = &raw[0];
        VFX_VK(vkQueueSubmit(ctx().queue(), 1, &si, VK_NULL_HANDLE));

        FrameSubmit s;
        s.frame = &vf;
        s.wait_semaphores = std::span<const VkSemaphore>(&raw[0], 1);
        s.signal_semaphores = std::span<const VkSemaphore>(&raw[1], 1);
        const FrameResult res = r.render(s);

        // ...and a batch that waits on "done" before writing again.
        FenceHandle fence;
        VkFenceCreateInfo fci{};
        fci.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
        VkFence f = VK_NULL_HANDLE;
        VFX_VK(vkCreateFence(ctx().device(), &fci, nullptr, &f));
        fence = FenceHandle(ctx().device(), f);
        const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
        VkSubmitInfo wi{};
        wi.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
        wi.waitSemaphoreCount = 1;
        wi.pWaitSemaphores = &raw[1];
        wi.pWaitDstStageMask = &stage;
        VFX_VK(vkQueueSubmit(ctx().queue(), 1, &wi, f));
        VFX_VK(vkWaitForFences(ctx().device(), 1, &f, VK_TRUE, UINT64_MAX));
        EXPECT_TRUE(r.wait_frame(res.serial, 0));
    }
    EXPECT_EQ(max_error_1to1(r.read_back(), frame), 0.0);
}

TEST_F(Render, WaitsAndSignalsTimelineSemaphores) {
    if (!ctx().timeline_semaphores()) GTEST_SKIP() << "no timeline semaphores";
    VkSemaphoreTypeCreateInfo tci{};
    tci.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
    tci.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkSemaphoreCreateInfo sci{};
    sci.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
    sci.pNext = &tci;
    VkSemaphore raw = VK_NULL_HANDLE;
    VFX_VK(vkCreateSemaphore(ctx().device(), &sci, nullptr, &raw));
    SemaphoreHandle timeline(ctx().device(), raw);
    ctx().set_name(raw, VK_OBJECT_TYPE_SEMAPHORE, "test timeline");

    const TestFrame frame = make_test_frame(17, 13, WorkFormat::rgba16, 8);
    HostBuffer buf = make_host_buffer(ctx(), frame.bytes.size());
    VideoFrame vf = upload(frame, buf);
    Renderer r(ctx(), OffscreenTarget{{17, 13}});
    uint64_t value = 0;
    for (int i = 0; i < 4; ++i) {
        // The producer reaches value+1 (from the host here), the renderer signals value+2.
        VkSemaphoreSignalInfo signal{};
        signal.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO;
        signal.semaphore = raw;
        signal.value = value + 1;
        const uint64_t wait_value = value + 1;
        const uint64_t signal_value = value + 2;
        FrameSubmit s;
        s.frame = &vf;
        s.wait_semaphores = std::span<const VkSemaphore>(&raw, 1);
        s.wait_values = std::span<const uint64_t>(&wait_value, 1);
        s.signal_semaphores = std::span<const VkSemaphore>(&raw, 1);
        s.signal_values = std::span<const uint64_t>(&signal_value, 1);
        const FrameResult res = r.render(s);  // submitted before the wait value is reached
        VFX_VK(vkSignalSemaphore(ctx().device(), &signal));
        VkSemaphoreWaitInfo wait{};
        wait.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
        wait.semaphoreCount = 1;
        wait.pSemaphores = &raw;
        wait.pValues = &signal_value;
        VFX_VK(vkWaitSemaphores(ctx().device(), &wait, UINT64_MAX));
        EXPECT_TRUE(r.wait_frame(res.serial));
        value += 2;
    }
    EXPECT_LE(max_error_1to1(r.read_back(), frame), 1.0);
    const uint64_t mismatch[2] = {1, 2};
    FrameSubmit bad;
    bad.wait_semaphores = std::span<const VkSemaphore>(&raw, 1);
    bad.wait_values = std::span<const uint64_t>(mismatch, 2);
    EXPECT_THROW(r.render(bad), std::invalid_argument);
}

// The external-memory path: a buffer bound to exportable (opaque fd) memory, its pixels put
// there by "another API" (a transfer that then releases the buffer to
// VK_QUEUE_FAMILY_EXTERNAL), and the renderer acquiring it back.
TEST_F(Render, ExternalMemoryBufferWithQueueFamilyTransfer) {
    if (!ctx().has_device_extension(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME)) {
        GTEST_SKIP() << "no VK_KHR_external_memory_fd";
    }
    const VkDevice dev = ctx().device();
    const VkExternalMemoryHandleTypeFlagBits type = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkPhysicalDeviceExternalBufferInfo ebi{};
    ebi.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO;
    ebi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    ebi.handleType = type;
    VkExternalBufferProperties ebp{};
    ebp.sType = VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES;
    vkGetPhysicalDeviceExternalBufferProperties(ctx().physical(), &ebi, &ebp);
    if (!(ebp.externalMemoryProperties.externalMemoryFeatures &
          VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT)) {
        GTEST_SKIP() << "opaque fd buffers are not exportable";
    }
    const TestFrame frame = make_test_frame(641, 479, WorkFormat::rgba16, 9);

    VkExternalMemoryBufferCreateInfo ext{};
    ext.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO;
    ext.handleTypes = type;
    VkBufferCreateInfo bci{};
    bci.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    bci.pNext = &ext;
    bci.size = frame.bytes.size();
    bci.usage = ebi.usage;
    bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkBuffer b = VK_NULL_HANDLE;
    VFX_VK(vkCreateBuffer(dev, &bci, nullptr, &b));
    BufferHandle shared(dev, b);
    ctx().set_name(b, VK_OBJECT_TYPE_BUFFER, "test shared buffer");
    VkMemoryRequirements req{};
    vkGetBufferMemoryRequirements(dev, b, &req);
    VkExportMemoryAllocateInfo export_info{};
    export_info.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO;
    export_info.handleTypes = type;
    VkMemoryDedicatedAllocateInfo dedicated{};
    dedicated.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO;
    dedicated.buffer = b;
    if (ebp.externalMemoryProperties.externalMemoryFeatures &
        VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT) {
        export_info.pNext = &dedicated;
    }
    VkMemoryAllocateInfo mai{};
    mai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    mai.pNext = &export_info;
    mai.allocationSize = req.size;
    mai.memoryTypeIndex = ctx().memory_type(req.memoryTypeBits, 0);
    VkDeviceMemory m = VK_NULL_HANDLE;
    VFX_VK(vkAllocateMemory(dev, &mai, nullptr, &m));
    MemoryHandle memory(dev, m);
    ctx().set_name(m, VK_OBJECT_TYPE_DEVICE_MEMORY, "test shared memory");
    VFX_VK(vkBindBufferMemory(dev, b, m, 0));

    // The fd another API would import.
    auto get_fd = reinterpret_cast<PFN_vkGetMemoryFdKHR>(ctx().device_function("vkGetMemoryFdKHR"));
    VkMemoryGetFdInfoKHR fdi{};
    fdi.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR;
    fdi.memory = m;
    fdi.handleType = type;
    int fd = -1;
    VFX_VK(get_fd(dev, &fdi, &fd));
    EXPECT_GE(fd, 0);
    if (fd >= 0) close(fd);

    // "The other API" writes the pixels and hands the buffer to VK_QUEUE_FAMILY_EXTERNAL.
    HostBuffer staging =
        make_host_buffer(ctx(), frame.bytes.size(), VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
    std::memcpy(staging.data, frame.bytes.data(), frame.bytes.size());
    VkCommandPoolCreateInfo pci{};
    pci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pci.queueFamilyIndex = ctx().queue_family();
    VkCommandPool p = VK_NULL_HANDLE;
    VFX_VK(vkCreateCommandPool(dev, &pci, nullptr, &p));
    CommandPoolHandle pool(dev, p);
    VkCommandBufferAllocateInfo cai{};
    cai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    cai.commandPool = p;
    cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cai.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VFX_VK(vkAllocateCommandBuffers(dev, &cai, &cmd));
    VkCommandBufferBeginInfo begin{};
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    VFX_VK(vkBeginCommandBuffer(cmd, &begin));
    VkBufferCopy region{0, 0, frame.bytes.size()};
    vkCmdCopyBuffer(cmd, staging.buffer.get(), b, 1, &region);
    VkBufferMemoryBarrier release{};
    release.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
    release.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    release.srcQueueFamilyIndex = ctx().queue_family();
    release.dstQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
    release.buffer = b;
    release.size = VK_WHOLE_SIZE;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                         0, 0, nullptr, 1, &release, 0, nullptr);
    VFX_VK(vkEndCommandBuffer(cmd));
    VkSemaphoreCreateInfo sci{};
    sci.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
    VkSemaphore sem = VK_NULL_HANDLE;
    VFX_VK(vkCreateSemaphore(dev, &sci, nullptr, &sem));
    SemaphoreHandle written(dev, sem);
    VkSubmitInfo si{};
    si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    si.signalSemaphoreCount = 1;
    si.pSignalSemaphores = &sem;
    VFX_VK(vkQueueSubmit(ctx().queue(), 1, &si, VK_NULL_HANDLE));

    VideoFrame vf;
    vf.buffer = b;
    vf.width = frame.width;
    vf.height = frame.height;
    vf.pitch = frame.pitch;
    vf.format = frame.format;
    vf.range = frame.bytes.size();
    vf.ownership = BufferOwnership::external;
    // Each pass acquires the range at its own stage (and releases it after): the second
    // renderer acquires what the first released, after the semaphore is signalled again.
    bool first = true;
    for (VideoPass pass : video_passes(ctx())) {
        SCOPED_TRACE(to_string(pass));
        if (!first) {
            VkSubmitInfo again{};
            again.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
            again.signalSemaphoreCount = 1;
            again.pSignalSemaphores = &sem;
            VFX_VK(vkQueueSubmit(ctx().queue(), 1, &again, VK_NULL_HANDLE));
        }
        first = false;
        RendererOptions ro;
        ro.video_pass = pass;
        Renderer r(ctx(), OffscreenTarget{{641, 479}}, ro);
        FrameSubmit s;
        s.frame = &vf;
        s.wait_semaphores = std::span<const VkSemaphore>(&sem, 1);
        const FrameResult res = r.render(s);
        EXPECT_TRUE(r.wait_frame(res.serial));
        EXPECT_LE(max_error_1to1(r.read_back(), frame), 1.0);
    }
}

TEST_F(Render, DeferredDestructionWaitsForTheFrame) {
    Renderer r(ctx(), OffscreenTarget{{17, 13}});
    const TestFrame frame = make_test_frame(17, 13, WorkFormat::rgba8, 2);
    HostBuffer buf = make_host_buffer(ctx(), frame.bytes.size());
    VideoFrame vf = upload(frame, buf);
    FrameSubmit s;
    s.frame = &vf;
    const uint64_t serial = r.render(s).serial;
    r.deferred().retire(std::move(buf), serial);  // the frame may still be reading it
    EXPECT_EQ(r.deferred().size(), 1u);
    r.wait_frame(serial);
    FrameSubmit empty;
    r.render(empty);  // collects
    EXPECT_EQ(r.deferred().size(), 0u);
}

}  // namespace
}  // namespace vfx::test
