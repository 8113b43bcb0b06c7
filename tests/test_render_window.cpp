// Windowed smoke test of the swapchain target: a GLFW window (no client API), its surface,
// 30 frames with a resize, a vsync change and a minimised stretch, then teardown. Test code may
// use GLFW (engine/ may not). Skips without a display; run it under
//   xvfb-run -a -s "-screen 0 1280x720x24" ./tests/test_render_window
#define GLFW_INCLUDE_VULKAN
#include <GLFW/glfw3.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "render_util.hpp"
#include "support/media.hpp"

namespace vfx::test {
namespace {

VkExtent2D extent(int w, int h) {
    return {static_cast<uint32_t>(w), static_cast<uint32_t>(h)};
}

TEST(RenderWindow, Renders30FramesToASwapchain) {
    if (!std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY")) {
        GTEST_SKIP() << "no DISPLAY (run under xvfb-run)";
    }
    if (!vulkan_available()) GTEST_SKIP() << "no Vulkan device (no driver/ICD found)";
    if (!glfwInit()) GTEST_SKIP() << "glfwInit failed";
    if (!glfwVulkanSupported()) {
        glfwTerminate();
        GTEST_SKIP() << "GLFW finds no Vulkan loader";
    }
    const uint32_t errors_before = total_validation_errors();
    uint32_t n = 0;
    const char** exts = glfwGetRequiredInstanceExtensions(&n);
    ASSERT_NE(exts, nullptr);
    VkContextOptions opts;
    opts.validation = true;
    opts.synchronization_validation = true;
    opts.need_swapchain = true;
    for (uint32_t i = 0; i < n; ++i)
        opts.instance_extensions.emplace_back(exts[i]);
    {
        VkContext ctx(opts);
        glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
        GLFWwindow* window = glfwCreateWindow(640, 360, "vfx render test", nullptr, nullptr);
        ASSERT_NE(window, nullptr);
        VkSurfaceKHR surface = VK_NULL_HANDLE;
        VFX_VK(glfwCreateWindowSurface(ctx.instance(), window, nullptr, &surface));
        // Both video passes (compute where the swapchain's images can be storage images:
        // lavapipe, NVIDIA), and what `automatic` picks.
        std::vector<VideoPass> passes = video_passes(ctx);
        passes.push_back(VideoPass::automatic);
        for (VideoPass pass : passes) {
            glfwSetWindowSize(window, 640, 360);
            int fw = 0, fh = 0;
            glfwGetFramebufferSize(window, &fw, &fh);
            RendererOptions ro;
            ro.vsync = true;
            ro.video_pass = pass;
            Renderer r(ctx, SwapchainTarget{surface, extent(fw, fh)}, ro);
            SCOPED_TRACE(
                fmt::format("{} -> the {} pass", to_string(pass), to_string(r.video_pass())));
            std::printf("  video pass asked %s: %s\n", to_string(pass), to_string(r.video_pass()));
            if (pass != VideoPass::automatic) {
                EXPECT_EQ(r.video_pass(), pass);
            }
            EXPECT_FALSE(r.offscreen());
            EXPECT_NE(r.render_pass(), VK_NULL_HANDLE);
            EXPECT_GE(r.image_count(), r.min_image_count());
            EXPECT_GE(r.min_image_count(), 2u);
            EXPECT_EQ(r.present_mode(), VK_PRESENT_MODE_FIFO_KHR);

            std::vector<HostBuffer> bufs;
            std::vector<uint64_t> last_use(r.frames_in_flight(), 0);
            for (uint32_t i = 0; i < r.frames_in_flight(); ++i) {
                bufs.push_back(make_host_buffer(ctx, 2 * 1024 * 1024));
            }
            int presented = 0;
            int overlays = 0;
            for (uint32_t i = 0; i < 30; ++i) {
                glfwPollEvents();
                if (i == 10) glfwSetWindowSize(window, 800, 450);
                if (i == 20) r.set_vsync(false);
                glfwGetFramebufferSize(window, &fw, &fh);
                r.resize(extent(fw, fh));

                const size_t k = i % bufs.size();
                if (last_use[k]) {
                    ASSERT_TRUE(r.wait_frame(last_use[k]));
                }
                const TestFrame frame =
                    make_test_frame(320, 180, i % 2 ? WorkFormat::rgba16 : WorkFormat::rgba8, i);
                VideoFrame vf = upload(frame, bufs[k]);
                vf.sar_num = 4;  // displays 16:9 * 4/3: letterboxed in a 16:9 window
                vf.sar_den = 3;
                FrameSubmit s;
                s.frame = &vf;
                s.overlay = [&](VkCommandBuffer) { ++overlays; };
                const FrameResult res = r.render(s);
                last_use[k] = res.serial;
                presented += res.presented ? 1 : 0;
                if (i == 25 && std::getenv("VFX_TEST_SCREENSHOT")) {
                    r.wait_frame(res.serial);
                    run_command(std::string("import -window root ") +
                                std::getenv("VFX_TEST_SCREENSHOT"));
                }
            }
            EXPECT_GE(presented, 28) << "frames presented out of 30";
            EXPECT_EQ(overlays, presented);
            EXPECT_EQ(r.extent().width, 800u);
            EXPECT_EQ(r.extent().height, 450u);
            EXPECT_NE(r.present_mode(), VK_PRESENT_MODE_FIFO_RELAXED_KHR);

            // Minimised: nothing drawn, no error, and the semaphores still pass through.
            VkSemaphoreCreateInfo sci{};
            sci.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
            VkSemaphore raw[2]{};
            VFX_VK(vkCreateSemaphore(ctx.device(), &sci, nullptr, &raw[0]));
            SemaphoreHandle ready(ctx.device(), raw[0]);
            VFX_VK(vkCreateSemaphore(ctx.device(), &sci, nullptr, &raw[1]));
            SemaphoreHandle done(ctx.device(), raw[1]);
            r.resize({0, 0});
            for (int i = 0; i < 3; ++i) {
                VkSubmitInfo si{};
                si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
                si.signalSemaphoreCount = 1;
                si.pSignalSemaphores = &raw[0];
                VFX_VK(vkQueueSubmit(ctx.queue(), 1, &si, VK_NULL_HANDLE));
                FrameSubmit s;
                s.wait_semaphores = std::span<const VkSemaphore>(&raw[0], 1);
                s.signal_semaphores = std::span<const VkSemaphore>(&raw[1], 1);
                const FrameResult res = r.render(s);
                EXPECT_FALSE(res.drawn);
                EXPECT_FALSE(res.presented);
                EXPECT_EQ(r.extent().width, 0u);
                const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
                VkSubmitInfo wi{};
                wi.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
                wi.waitSemaphoreCount = 1;
                wi.pWaitSemaphores = &raw[1];
                wi.pWaitDstStageMask = &stage;
                VFX_VK(vkQueueSubmit(ctx.queue(), 1, &wi, VK_NULL_HANDLE));
                EXPECT_TRUE(r.wait_frame(res.serial));
            }
            // Restored.
            glfwGetFramebufferSize(window, &fw, &fh);
            r.resize(extent(fw, fh));
            FrameSubmit s;
            EXPECT_TRUE(r.render(s).presented);
            r.wait_all();
            vkQueueWaitIdle(ctx.queue());  // the last waits on `done` before it is destroyed
        }
        vkDestroySurfaceKHR(ctx.instance(), surface, nullptr);
        glfwDestroyWindow(window);
        EXPECT_EQ(ctx.validation_errors(), 0u);
    }
    glfwTerminate();
    EXPECT_EQ(total_validation_errors(), errors_before);
}

}  // namespace
}  // namespace vfx::test
