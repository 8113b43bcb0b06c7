#pragma once
// The Dear ImGui overlay, drawn by the renderer after the video pass, in the same command buffer
// (through the renderer's overlay hook), so it never touches the video's own pixels: screenshots of
// the processed frame and `process` output never contain it.
#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <imgui.h>
#include <vulkan/vulkan.h>

#include "compute/chain.hpp"
#include "compute/processor.hpp"
#include "render/vk_handle.hpp"
#include "session/chain_editor.hpp"
#include "timing/timing.hpp"

struct GLFWwindow;

namespace vfx {
class VkContext;
class Player;
}  // namespace vfx

namespace vfx::ui {

// What the overlay shows; filled by the player each frame.
struct OverlayState {
    std::string cl_device, vk_device, interop, interop_reason;
    std::string source;            // e.g. "1280x720 yuv420p h264, bt709 limited"
    const Chain* chain = nullptr;  // the chain the editor starts from (read on the first build)
    double fps = 0;
    int64_t frames = 0, dropped = 0;
    int64_t corrupt = 0, concealed = 0;  // SourceStats::packets_corrupt, frames_concealed
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

    // The overlay's own panels (update_overlay_state() fills these from the player).
    BuildStatus build;                                // background builds, kernel reload
    const ViewHistograms* view_histograms = nullptr;  // before/after the chain, latest frame
    uint32_t video_width = 0, video_height = 0;       // the latest frame (split view mapping)
    uint32_t sar_num = 1, sar_den = 1;
    std::string kernels_dir;  // --kernels-dir ("" = none)
    // The last S key's screenshot: "screenshot: FILE" or why it was not written ("" = none).
    std::string screenshot;
    bool screenshot_failed = false;
};

// Fills the overlay's own fields of `s` from the player (call once per frame before build()).
void update_overlay_state(OverlayState& s, const Player& player);

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

    // Builds this frame's UI (call once per frame before record()). Returns the chain to run
    // when the user's edits changed it this frame (a parameter, a stage added, removed, moved,
    // enabled or disabled, a preset loaded); hand it to Player::set_chain.
    std::optional<Chain> build(const OverlayState& s, float content_scale);

    // True, after build(), while the overlay has the keyboard: a text field being typed into, a
    // widget held (a slider dragged), a popup open (a combo's list: its Escape closes it). The
    // player's key bindings must not act on those key presses (play.cpp asks before and after
    // the frame that took them).
    bool keyboard_busy() const;
    // Escape while the overlay has the keyboard: on the next build(), open popups close and the
    // widget being edited lets go. (This ImGui closes a popup on Escape only with keyboard
    // navigation on, which would take the player's keys, and it misses a key pressed and
    // released between two frames, as a quick tap at a few frames a second is.)
    void release_keyboard() { release_keyboard_ = true; }
    // A key pressed (from the window's key callback). This ImGui (1.86, before its input queue)
    // keeps only whether a key is down when a frame starts, so a key pressed and released
    // between two frames (a quick tap, at the few frames a second of a software renderer: Enter
    // in a field, Ctrl+A) would never reach it: build() holds such a key down for one frame.
    void note_key_press(int key) { taps_.push_back(key); }
    // The split view (V): on/off, and its divider, dragged with the mouse over the video.
    void toggle_split() { split_ = !split_; }
    // What the processor adds to the frames shown (Player::set_view): the before/after
    // histograms while they are on screen, the split view while it is on.
    ViewOptions view() const;
    const ChainEditor& editor() const { return editor_; }
    // Records the draw commands into `cmd` inside the render pass.
    void record(VkCommandBuffer cmd);

private:
    std::optional<Chain> chain_panel(const OverlayState& s);
    void status_panel(const OverlayState& s);
    void timing_panel(const OverlayState& s);
    void histogram_panel(const OverlayState& s);
    void drag_split(const OverlayState& s);

    // Dear ImGui's context and backends, shut down in reverse order of what was started (also
    // when the constructor throws half-way), after the device is idle; declared after pool_,
    // so it goes first: the Vulkan backend frees its descriptor sets into pool_.
    struct ImGuiSession {
        VkDevice device = VK_NULL_HANDLE;
        bool context = false, glfw = false, vulkan = false;
        ImGuiSession() = default;
        ImGuiSession(const ImGuiSession&) = delete;
        ImGuiSession& operator=(const ImGuiSession&) = delete;
        ~ImGuiSession();
    };

    VkContext& vk_;
    DescriptorPoolHandle pool_;
    ImGuiSession imgui_;
    bool visible_ = true;
    bool release_keyboard_ = false;  // release_keyboard() asked, for the next build()
    GLFWwindow* window_ = nullptr;
    std::vector<int> taps_;  // note_key_press() since the last build()
    std::vector<int> held_;  // keys build() held down for the frame it made
    // Where the panels were at the last build(), for keeping them in view when the window's
    // size changes (last_display_: the size they were laid out in).
    struct Placement {
        ImVec2 pos{}, size{};
        bool known = false;
    };
    Placement vfx_panel_, timing_panel_;
    bool timing_at_right_ = true;  // the timing panel at its default place, the top right
    ImVec2 last_display_{};
    float scale_ = 0;
    bool have_frame_ = false;

    ChainEditor editor_;
    bool editor_ready_ = false;
    Chain sent_;  // the chain last handed out by build()
    int add_choice_ = 0;
    std::array<char, 1024> preset_path_{"preset.json"};
    std::string message_;  // the result of the last editor action (preset load/save, errors)
    bool message_is_error_ = false;

    TimingWindow timeline_{300};
    bool histograms_shown_ = false;
    bool split_ = false;
    double split_position_ = 0.5;
};

}  // namespace vfx::ui
