#pragma once
// The renderer: draws one video frame per call, read straight from a storage buffer, into a
// swapchain (a window's VkSurfaceKHR) or an offscreen RGBA8 image.
//
// The video pass (RendererOptions::video_pass) is a compute shader writing the target as a
// storage image (shaders/video.comp) or a fragment shader (shaders/video.frag); both draw the
// same pixels. Compute runs on every multiprocessor, where a data-centre GPU rasterises on a
// few: on an H100 the fragment pass's commands took 0.38 ms at 1280x720 and 2.7 ms at
// 3840x2160, the compute pass's 0.17 and 0.21 ms. `automatic` measures: whenever the target's
// size changes, the next 16 frames with video alternate between the passes, and once their GPU
// times (FrameTiming::switch_ms + gpu_ms) are in, the pass with the lower median stays
// (video_pass_choice()); the fragment pass alone where the target cannot be a storage image,
// the compute pass where the queue has no timestamps. A compute pass asked for where it cannot
// run is a vfx::Error (one line for the user). The overlay, when there is one, is drawn by a
// render pass that loads what the compute pass wrote.
//
// ---------------------------------------------------------------------------------------------
// Contract (for the session, the UI and the interop bridge)
// ---------------------------------------------------------------------------------------------
// Threading: a Renderer and everything it returns are used from one thread (the render thread),
//   which is also the only thread that submits to VkContext::queue().
//
// Handing a frame in: render(FrameSubmit) with
//   - frame: a VideoFrame describing pixels in a VkBuffer (usage STORAGE_BUFFER) in the working
//     format; rows `pitch` bytes apart; `offset` and `pitch` multiples of 4. The video pass's
//     shader reads it directly (no copy). nullptr: no video, the target is cleared to black
//     (the overlay still draws).
//   - wait_semaphores: waited before any of the frame's commands (ALL_COMMANDS: its timestamps
//     included, so its GPU times never count the wait for the other API's work).
//     Binary or timeline; with any timeline semaphore, wait_values gives one value per
//     semaphore (ignored for binary ones), else leave wait_values empty.
//   - signal_semaphores (+ signal_values likewise): signalled when this frame's GPU work,
//     including every read of the buffer, is complete.
//   - overlay: recorded inside a render pass (render_pass()-compatible, subpass 0) after the
//     video pass, in the same command buffer (ImGui).
//   Every call consumes its wait semaphores and signals its signal semaphores exactly once,
//   also when nothing is drawn (minimised window, swapchain out of date): then an empty batch
//   with those semaphores is submitted, so the OpenCL side never deadlocks or double-signals.
//
// Ownership of the buffer (VideoFrame::ownership):
//   - local: ordinary Vulkan memory, or host memory written by the CPU before render()
//     (host-visible/host-coherent or flushed; VK_EXT_external_memory_host imports included).
//     No barrier is needed: vkQueueSubmit makes earlier host writes visible.
//   - external: memory shared with another API through VK_KHR_external_memory_fd (a buffer
//     created with VkExternalMemoryBufferCreateInfo, VK_SHARING_MODE_EXCLUSIVE). The command
//     buffer acquires the bound range from VK_QUEUE_FAMILY_EXTERNAL (at the frame's pass's
//     stage, after the wait semaphores) before the video pass, and releases it back to
//     VK_QUEUE_FAMILY_EXTERNAL after it (recorded last; it orders the video pass's reads). The
//     other API must have finished writing before the wait semaphores signal (or before render()
//     when there are none).
//
// Learning completion: render() returns a serial (1, 2, 3...; every call gets one). Serials
//   complete in order. completed_serial() is the highest serial whose GPU work (and so every
//   read of its buffer) is finished, polled from the slot fences without blocking;
//   wait_frame(serial, timeout_ns) blocks until it is (false on timeout). A buffer handed in
//   with serial S may be rewritten by the host or another API once completed_serial() >= S
//   (or once its signal semaphores were waited on, for GPU-side ordering). Objects the GPU may
//   still use can be parked in deferred() with the serial that last used them; render()
//   destroys them once that serial completed.
//
// Frames in flight: options.frames_in_flight slots (>= 2), each with a command pool/buffer, a
//   fence, a descriptor set, a timestamp pair and an acquire semaphore; render() blocks only
//   when the slot it needs is still in flight (the frame frames_in_flight() ago).
//
// GPU time: when the queue supports timestamps, each drawn frame's times are read once its
//   fence has signalled (last_timing(), frame_timing()): gpu_ms from the video pass's start to
//   the end of its commands (overlay included), switch_ms from the start of its commands, after
//   the wait semaphores (so not the wait for OpenCL), to the video pass's start.
//
// Swapchain target: FIFO with vsync, else MAILBOX, else IMMEDIATE (else FIFO). Call resize()
//   with the window's framebuffer size whenever it changes; the swapchain is also recreated
//   on VK_ERROR_OUT_OF_DATE_KHR / VK_SUBOPTIMAL_KHR. A zero size (minimised) draws nothing and
//   is no error. The renderer does not own the surface: destroy it after the Renderer.
//   Recreation waits for the device to be idle (only then; never per frame).
//
// ImGui (imgui_impl_vulkan): RenderPass = render_pass() (stable for the Renderer's life),
//   Subpass = subpass(), MinImageCount = min_image_count(), ImageCount = image_count(),
//   MSAASamples = VK_SAMPLE_COUNT_1_BIT, Queue/QueueFamily/Device from the VkContext.
//
// Destruction: waits for the device to be idle, then destroys everything it made (deferred()
//   included). Destroy the Renderer before the VkContext.
// ---------------------------------------------------------------------------------------------
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <vulkan/vulkan.h>

#include "core/format.hpp"
#include "render/vk_context.hpp"
#include "render/vk_handle.hpp"

namespace vfx {

// A rectangle in framebuffer pixels.
struct Rect {
    int32_t x = 0;
    int32_t y = 0;
    uint32_t width = 0;
    uint32_t height = 0;
    bool operator==(const Rect&) const = default;
};

// Where a video of video_width x video_height pixels with sample aspect ratio sar_num:sar_den
// goes in a target of target_width x target_height: as large as fits with its display aspect
// ratio (video_width * sar_num) / (video_height * sar_den), centred, in whole pixels (the rest
// is black bars). A sar of 0 in either part counts as 1:1. Empty rect for an empty target or
// video. `rotation` (degrees clockwise, 0/90/180/270) turns the picture on screen: at 90 and
// 270 the display aspect ratio is the inverse.
Rect letterbox_rect(uint32_t target_width, uint32_t target_height, uint32_t video_width,
                    uint32_t video_height, uint32_t sar_num = 1, uint32_t sar_den = 1,
                    uint32_t rotation = 0);

enum class BufferOwnership : uint8_t {
    local,     // Vulkan or host memory; no queue family transfer
    external,  // external memory: acquire from / release to VK_QUEUE_FAMILY_EXTERNAL
};

// One frame in the working format, in a buffer the video pass reads.
struct VideoFrame {
    VkBuffer buffer = VK_NULL_HANDLE;    // usage must include VK_BUFFER_USAGE_STORAGE_BUFFER_BIT
    VkDeviceSize offset = 0;             // byte offset of pixel (0, 0); multiple of 4
    VkDeviceSize range = VK_WHOLE_SIZE;  // bytes from offset the frame may span (checked when
                                         // given: >= pitch * (height - 1) + width * bpp)
    uint32_t width = 0;
    uint32_t height = 0;
    size_t pitch = 0;  // bytes per row; multiple of 4, >= width * bytes_per_pixel(format)
    WorkFormat format = WorkFormat::rgba8;
    uint32_t sar_num = 1;  // sample (pixel) aspect ratio
    uint32_t sar_den = 1;
    uint32_t rotation = 0;  // shown turned this many degrees clockwise: 0, 90, 180 or 270
                            // (a stream's display matrix; anything else is rejected)
    BufferOwnership ownership = BufferOwnership::local;
};

using OverlayFn = std::function<void(VkCommandBuffer)>;

struct FrameSubmit {
    const VideoFrame* frame = nullptr;
    std::span<const VkSemaphore> wait_semaphores;
    std::span<const uint64_t> wait_values;  // empty, or one per wait semaphore (timelines)
    std::span<const VkSemaphore> signal_semaphores;
    std::span<const uint64_t> signal_values;  // empty, or one per signal semaphore
    OverlayFn overlay;
};

struct FrameResult {
    uint64_t serial = 0;     // >= 1; see completed_serial() / wait_frame()
    bool drawn = false;      // the video pass (and overlay) were recorded into a target image
    bool presented = false;  // swapchain: the image was queued for presentation
};

struct FrameTiming {
    uint64_t serial = 0;
    double gpu_ms = 0.0;     // the video pass (and overlay): its start to the frame's end
    double switch_ms = 0.0;  // the frame's commands' start (after its wait semaphores) to the
                             // video pass's start: on a GPU shared with OpenCL, mostly the GPU
                             // changing over to Vulkan's context (0.16 ms on an H100); on a CPU
                             // device the split between the two is not meaningful
};

// How the video is drawn into the target (see the top of this file).
enum class VideoPass : uint8_t {
    automatic,  // where both can run: the faster on this device and target size, measured
    compute,    // compute only: a GpuError where the target cannot be a storage image
    fragment,   // a full-screen triangle (for comparison, or drivers that need it)
};
const char* to_string(VideoPass pass);

struct RendererOptions {
    uint32_t frames_in_flight = 2;  // clamped to [2, 8]
    VideoPass video_pass = VideoPass::automatic;
    bool vsync = true;                  // swapchain only
    const char* name = "vfx renderer";  // prefix of debug names
};

struct SwapchainTarget {
    VkSurfaceKHR surface = VK_NULL_HANDLE;  // not owned
    VkExtent2D size{};                      // the window's framebuffer size in pixels
};

struct OffscreenTarget {
    VkExtent2D size{};  // RGBA8 image size, >= 1x1
};

// Host copy of a rendered image: RGBA8, rows width * 4 bytes, top row first.
struct RgbaImage {
    uint32_t width = 0;
    uint32_t height = 0;
    std::vector<uint8_t> pixels;
    const uint8_t* at(uint32_t x, uint32_t y) const { return &pixels[(size_t{y} * width + x) * 4]; }
};

class Renderer {
public:
    Renderer(VkContext& ctx, const SwapchainTarget& target, const RendererOptions& options = {});
    Renderer(VkContext& ctx, const OffscreenTarget& target, const RendererOptions& options = {});
    ~Renderer();
    Renderer(const Renderer&) = delete;
    Renderer& operator=(const Renderer&) = delete;

    // Records and submits one frame (and presents it, for a swapchain). See the contract above.
    FrameResult render(const FrameSubmit& submit);

    // --- completion ---
    uint64_t submitted_serial() const { return submitted_; }
    uint64_t completed_serial();  // polls the in-flight fences; never blocks
    bool wait_frame(uint64_t serial, uint64_t timeout_ns = UINT64_MAX);  // false on timeout
    void wait_all();  // waits for every submitted frame (fences; not vkDeviceWaitIdle)

    // The video pass new frames use (compute or fragment; with `automatic`, while a target
    // size is being measured, frames alternate).
    VideoPass video_pass() const { return use_compute_ ? VideoPass::compute : VideoPass::fragment; }
    // `automatic`: the last choice made by measurement (nullopt before one).
    struct VideoPassChoice {
        VkExtent2D extent{};
        double compute_ms = 0.0;  // p50 of the trial frames' switch_ms + gpu_ms
        double fragment_ms = 0.0;
    };
    std::optional<VideoPassChoice> video_pass_choice() const { return choice_; }

    // GPU times of the most recent completed, drawn frame (see "GPU time" above); nullopt
    // before one, or when the queue cannot write timestamps.
    std::optional<FrameTiming> last_timing() const { return last_timing_; }
    bool timestamps_supported() const { return timestamps_; }
    // GPU time of one of the recent completed, drawn frames (the last few dozen serials), for
    // per-frame records; nullopt when not drawn, not complete, untimed or too old.
    std::optional<double> timing_of(uint64_t serial) const;
    std::optional<FrameTiming> frame_timing(uint64_t serial) const;  // the same, both parts

    // --- target ---
    bool offscreen() const { return offscreen_; }
    // Swapchain: the window's new framebuffer size (0 x 0 when minimised); the swapchain is
    // recreated on the next render(). Offscreen: reallocates the images (waits for the GPU).
    void resize(VkExtent2D size);
    void set_vsync(bool vsync);  // swapchain: recreated on the next render()
    bool vsync() const { return vsync_; }
    VkExtent2D extent() const { return extent_; }  // current target size (may be 0 x 0)
    VkFormat color_format() const { return color_format_; }
    VkPresentModeKHR present_mode() const { return present_mode_; }

    // --- for the overlay (ImGui) ---
    VkRenderPass render_pass() const { return render_pass_.get(); }
    uint32_t subpass() const { return 0; }
    uint32_t image_count() const { return static_cast<uint32_t>(images_.size()); }
    uint32_t min_image_count() const { return min_image_count_; }
    uint32_t frames_in_flight() const { return static_cast<uint32_t>(slots_.size()); }

    // Offscreen only: the last drawn frame, copied to the host (waits for it). Throws
    // std::logic_error for a swapchain target or before any frame was drawn.
    RgbaImage read_back();

    // Objects to destroy once a serial has completed (collected in render()).
    DeferredQueue& deferred() { return deferred_; }
    VkContext& context() { return ctx_; }

private:
    struct VideoPush;  // the shaders' push constants (shaders/video_sample.glsl)
    struct Slot {
        CommandPoolHandle pool;
        VkCommandBuffer cmd = VK_NULL_HANDLE;
        FenceHandle fence;
        SemaphoreHandle acquired;  // swapchain image acquire
        VkDescriptorSet set = VK_NULL_HANDLE;
        uint32_t index = 0;
        uint64_t serial = 0;   // last serial submitted with this slot (0: none)
        bool timed = false;    // that submission wrote the slot's timestamps
        bool compute = false;  // that submission used the compute pass
        uint32_t trial = 0;    // that submission's trial generation (0: not a trial frame)
    };
    struct TargetImage {  // a swapchain image or an offscreen image
        VkImage image = VK_NULL_HANDLE;
        MemoryHandle memory;  // offscreen only (declared first: freed after the image)
        ImageHandle owned;    // offscreen only
        ImageViewHandle view;
        FramebufferHandle framebuffer;
        SemaphoreHandle rendered;  // swapchain: signalled for vkQueuePresentKHR
    };

    Renderer(VkContext& ctx, const RendererOptions& options, bool offscreen, VkExtent2D size,
             VkSurfaceKHR surface);
    void create_common();
    std::string compute_pass_unavailable() const;      // why not (empty: available)
    void check_offscreen_size(VkExtent2D size) const;  // vfx::Error beyond the device's limits
    RenderPassHandle make_render_pass(bool load_after_compute) const;
    ShaderModuleHandle shader_module(std::string_view file) const;
    void create_pipeline();
    void create_compute_pipeline();
    void create_offscreen_images();
    VkSurfaceFormatKHR choose_surface_format() const;
    bool recreate_swapchain();  // false: zero size, nothing to render to
    void create_image_views_and_framebuffers();
    std::optional<uint32_t> acquire_image(Slot& slot, bool* suboptimal);
    void harvest(Slot& slot);
    // The pass of the frame about to be recorded in `slot` (`video`: it has a frame to draw).
    bool choose_pass(Slot& slot, bool video);
    static VkPipelineStageFlags stage_of(bool compute) {
        return compute ? VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT
                       : VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT;
    }
    void record(Slot& slot, const FrameSubmit& submit, uint32_t image_index);
    void record_compute_pass(VkCommandBuffer cmd, const Slot& slot, const TargetImage& target,
                             const VideoPush& pc);
    void submit(Slot& slot, const FrameSubmit& submit, std::optional<uint32_t> image_index);
    void check_frame(const VideoFrame& f) const;
    std::string name(const char* what, uint32_t index = UINT32_MAX) const;

    VkContext& ctx_;
    VkDevice device_ = VK_NULL_HANDLE;
    std::string name_;
    bool offscreen_ = false;
    bool vsync_ = true;
    VkSurfaceKHR surface_ = VK_NULL_HANDLE;
    VkExtent2D requested_{};  // what resize() asked for
    VkExtent2D extent_{};     // what the images have
    VkFormat color_format_ = VK_FORMAT_UNDEFINED;
    VkColorSpaceKHR color_space_ = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR;
    VkPresentModeKHR present_mode_ = VK_PRESENT_MODE_FIFO_KHR;
    uint32_t min_image_count_ = 2;
    bool swapchain_dirty_ = true;
    bool compute_ = false;         // the compute pass can run (its objects exist)
    bool use_compute_ = false;     // the pass new frames use (outside a trial)
    bool choose_by_time_ = false;  // `automatic` with both passes and timestamps
    struct {
        bool active = false;
        VkExtent2D extent{};  // the size measured (or being measured)
        uint32_t generation = 0;
        uint32_t submitted[2] = {0, 0};  // trial frames submitted: [0] fragment, [1] compute
        std::vector<double> ms[2];       // their GPU times, as they complete
    } trial_;
    std::optional<VideoPassChoice> choice_;
    VkShaderStageFlags push_stages_ = VK_SHADER_STAGE_FRAGMENT_BIT;

    RenderPassHandle render_pass_;   // clears, then the fragment pass and the overlay
    RenderPassHandle overlay_pass_;  // compute pass only: loads its pixels, then the overlay
    DescriptorSetLayoutHandle set_layout_;
    PipelineLayoutHandle pipeline_layout_;
    PipelineHandle fragment_pipeline_;
    PipelineHandle compute_pipeline_;  // when compute_
    DescriptorPoolHandle descriptor_pool_;
    QueryPoolHandle query_pool_;
    SwapchainHandle swapchain_;
    std::vector<TargetImage> images_;
    std::vector<SemaphoreHandle> spare_rendered_;  // per-image semaphores kept across recreation
    std::vector<Slot> slots_;                      // serial s uses slots_[(s - 1) % size]

    bool timestamps_ = false;
    uint64_t timestamp_mask_ = 0;
    double timestamp_ns_ = 1.0;
    std::optional<FrameTiming> last_timing_;
    static constexpr size_t kRecentTimings = 64;
    std::deque<FrameTiming> recent_timings_;

    uint64_t submitted_ = 0;
    uint64_t completed_ = 0;
    std::optional<uint32_t> last_drawn_image_;
    uint64_t last_drawn_serial_ = 0;

    // Read-back (offscreen), made on first use.
    CommandPoolHandle readback_pool_;
    VkCommandBuffer readback_cmd_ = VK_NULL_HANDLE;
    FenceHandle readback_fence_;
    MemoryHandle readback_memory_;
    BufferHandle readback_buffer_;
    VkDeviceSize readback_size_ = 0;
    bool readback_coherent_ = true;

    // Reused per frame (no allocation on the hot path once they have grown).
    std::vector<VkSemaphore> wait_sems_;
    std::vector<VkPipelineStageFlags> wait_stages_;
    std::vector<uint64_t> wait_vals_;
    std::vector<VkSemaphore> signal_sems_;
    std::vector<uint64_t> signal_vals_;

    DeferredQueue deferred_;  // last member: destroyed first
};

}  // namespace vfx
