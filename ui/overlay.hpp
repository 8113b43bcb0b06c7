#pragma once
// The Dear ImGui overlay, drawn by the renderer into the same render pass as the video (through
// the renderer's overlay hook), so it never touches the video's own pixels: screenshots of the
// processed frame and `process` output never contain it.
#include <functional>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include <optional>

#include "compute/chain.hpp"
#include "compute/processor.hpp"
#include "timing/timing.hpp"

struct GLFWwindow;

namespace vfx {
class VkContext;
}

namespace vfx::ui {

// What the overlay shows; filled by the player each frame.
struct OverlayState {
    std::string cl_device, vk_device, interop, interop_reason;
    std::string source;            // e.g. "1280x720 yuv420p h264, bt709 limited"
    const Chain* chain = nullptr;  // edited in place by the sliders (see build())
    double fps = 0;
    int64_t frames = 0, dropped = 0, corrupt = 0;
    size_t queue_depth = 0, queue_capacity = 0;
    const TimingLog* timing = nullptr;
    const Histogram* histogram = nullptr;  // the chain's `histogram` filter, latest frame

    // Transport (filled by the player loop, shown in the status panel).
    double position_s = 0, duration_s = 0;  // duration 0: unknown or live
    bool paused = false, loop = false;
    double speed = 1;
    double latency_ms = -1;  // live sources: capture-to-present, -1 when not measured
    // Drawn inside the overlay's ImGui frame while the overlay is visible (the transport bar).
    std::function<void()> extra_ui;
};

class Overlay {
public:
    // min_image_count: the swapchain's; buffer_count: how many frames' vertex buffers ImGui
    // keeps (at least the frames in flight).
    Overlay(VkContext& vk, GLFWwindow* window, VkRenderPass render_pass, uint32_t min_image_count,
            uint32_t buffer_count);
    ~Overlay();
    Overlay(const Overlay&) = delete;
    Overlay& operator=(const Overlay&) = delete;

    void set_visible(bool v) { visible_ = v; }
    bool visible() const { return visible_; }
    void set_min_image_count(uint32_t n);  // after the swapchain was recreated

    // Builds this frame's UI (call once per frame before record()). Returns the chain with the
    // user's edits when a slider, combo or checkbox changed a parameter this frame.
    std::optional<Chain> build(const OverlayState& s, float content_scale);
    // Records the draw commands into `cmd` inside the render pass.
    void record(VkCommandBuffer cmd);

private:
    VkContext& vk_;
    VkDescriptorPool pool_ = VK_NULL_HANDLE;
    bool visible_ = true;
    float scale_ = 0;
    bool have_frame_ = false;
};

}  // namespace vfx::ui
