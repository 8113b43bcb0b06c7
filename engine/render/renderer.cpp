#include "render/renderer.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <stdexcept>

#include "core/embedded.hpp"
#include "core/error.hpp"
#include "render/vk_check.hpp"

namespace vfx {

namespace {

constexpr uint32_t kMaxFramesInFlight = 8;
// Timestamps of a frame: its commands' start (after its semaphores), the video pass's start,
// the end.
constexpr uint32_t kStamps = 3;
constexpr uint32_t kComputeGroupX = 32;  // local_size of shaders/video.comp
constexpr uint32_t kComputeGroupY = 8;

std::span<const uint32_t> shader_words(std::string_view name) {
    for (const EmbeddedSpirv& s : embedded_shaders()) {
        if (s.name == name) return s.words;
    }
    throw std::logic_error(fmt::format("shader {} is not embedded", name));
}

std::optional<uint32_t> find_memory_type(const VkPhysicalDeviceMemoryProperties& mp, uint32_t bits,
                                         VkMemoryPropertyFlags flags) {
    for (uint32_t i = 0; i < mp.memoryTypeCount; ++i) {
        if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & flags) == flags) return i;
    }
    return std::nullopt;
}

// A layout transition of a whole single-level colour image.
void transition(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to,
                VkPipelineStageFlags src_stages, VkAccessFlags src_access,
                VkPipelineStageFlags dst_stages, VkAccessFlags dst_access) {
    VkImageMemoryBarrier ib{};
    ib.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
    ib.srcAccessMask = src_access;
    ib.dstAccessMask = dst_access;
    ib.oldLayout = from;
    ib.newLayout = to;
    ib.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    ib.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    ib.image = image;
    ib.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdPipelineBarrier(cmd, src_stages, dst_stages, 0, 0, nullptr, 0, nullptr, 1, &ib);
}

__extension__ typedef unsigned __int128 u128;

uint32_t round_div(u128 num, u128 den) {
    return static_cast<uint32_t>((num * 2 + den) / (den * 2));
}

}  // namespace

// Matches `Push` in shaders/video_sample.glsl (push constants use std430 offsets).
struct Renderer::VideoPush {
    uint32_t width;
    uint32_t height;
    uint32_t pitch_words;
    uint32_t format;
    uint32_t base_word;
    uint32_t rotation;  // quarter turns clockwise, 0..3
    float dst_x;
    float dst_y;
    float scale_x;
    float scale_y;
    uint32_t dst_width;
    uint32_t dst_height;
};

const char* to_string(VideoPass pass) {
    switch (pass) {
        case VideoPass::automatic:
            return "auto";
        case VideoPass::compute:
            return "compute";
        case VideoPass::fragment:
            return "fragment";
    }
    return "?";
}

Rect letterbox_rect(uint32_t target_width, uint32_t target_height, uint32_t video_width,
                    uint32_t video_height, uint32_t sar_num, uint32_t sar_den, uint32_t rotation) {
    if (target_width == 0 || target_height == 0 || video_width == 0 || video_height == 0) {
        return {};
    }
    if (sar_num == 0 || sar_den == 0) sar_num = sar_den = 1;
    if (rotation % 180 == 90) {  // turned on its side: the display's width is the video's height
        std::swap(video_width, video_height);
        std::swap(sar_num, sar_den);
    }
    // Display aspect dw/dh = (video_width * sar_num) / (video_height * sar_den), exactly.
    const u128 dw = u128{video_width} * sar_num;
    const u128 dh = u128{video_height} * sar_den;
    Rect r;
    if (dw * target_height >= dh * target_width) {
        // Wider than (or as wide as) the target: full width, bars above and below.
        r.width = target_width;
        r.height = std::clamp(round_div(dh * target_width, dw), 1u, target_height);
    } else {
        r.height = target_height;
        r.width = std::clamp(round_div(dw * target_height, dh), 1u, target_width);
    }
    r.x = static_cast<int32_t>((target_width - r.width) / 2);
    r.y = static_cast<int32_t>((target_height - r.height) / 2);
    return r;
}

Renderer::Renderer(VkContext& ctx, const SwapchainTarget& target, const RendererOptions& options)
    : Renderer(ctx, options, false, target.size, target.surface) {}

Renderer::Renderer(VkContext& ctx, const OffscreenTarget& target, const RendererOptions& options)
    : Renderer(ctx, options, true, target.size, VK_NULL_HANDLE) {}

Renderer::Renderer(VkContext& ctx, const RendererOptions& options, bool offscreen, VkExtent2D size,
                   VkSurfaceKHR surface)
    : ctx_(ctx),
      device_(ctx.device()),
      name_(options.name ? options.name : "vfx renderer"),
      offscreen_(offscreen),
      vsync_(options.vsync),
      surface_(surface),
      requested_(size) {
    if (offscreen_) {
        if (size.width == 0 || size.height == 0) {
            throw std::invalid_argument("Renderer: offscreen target of zero size");
        }
        check_offscreen_size(size);
        color_format_ = VK_FORMAT_R8G8B8A8_UNORM;
        extent_ = size;
    } else {
        if (surface_ == VK_NULL_HANDLE) throw std::invalid_argument("Renderer: no surface");
        if (!ctx_.has_device_extension(VK_KHR_SWAPCHAIN_EXTENSION_NAME)) {
            throw GpuError("Renderer: VK_KHR_swapchain is not enabled on the device",
                           VK_ERROR_EXTENSION_NOT_PRESENT);
        }
        VkBool32 supported = VK_FALSE;
        VFX_VK(vkGetPhysicalDeviceSurfaceSupportKHR(ctx_.physical(), ctx_.queue_family(), surface_,
                                                    &supported));
        if (!supported) {
            spdlog::error("Vulkan: queue family {} cannot present to this surface",
                          ctx_.queue_family());
            throw GpuError("Renderer: the graphics queue cannot present to the window",
                           VK_ERROR_INCOMPATIBLE_DISPLAY_KHR);
        }
        const VkSurfaceFormatKHR f = choose_surface_format();
        color_format_ = f.format;
        color_space_ = f.colorSpace;
    }
    const std::string unavailable = compute_pass_unavailable();
    if (options.video_pass == VideoPass::compute && !unavailable.empty()) {
        fail("the compute video pass cannot run here ({}); use auto or fragment", unavailable);
    }
    compute_ = unavailable.empty() && options.video_pass != VideoPass::fragment;
    use_compute_ = compute_;
    if (!unavailable.empty()) spdlog::debug("Vulkan: fragment video pass only: {}", unavailable);
    const uint32_t n = std::clamp(options.frames_in_flight, 2u, kMaxFramesInFlight);
    slots_.resize(n);
    create_common();
    // Automatic: each target size starts with a few frames of each pass, then keeps the faster
    // (by the frames' own GPU times); without timestamps, the compute pass.
    choose_by_time_ = compute_ && timestamps_ && options.video_pass == VideoPass::automatic;
    if (offscreen_) {
        create_offscreen_images();
    } else {
        recreate_swapchain();  // may find a zero size: then the first render() retries
    }
}

Renderer::~Renderer() {
    // Teardown only: the swapchain images may still be queued for presentation, which no
    // fence covers.
    if (device_) vkDeviceWaitIdle(device_);
    deferred_.clear();
}

void Renderer::check_offscreen_size(VkExtent2D size) const {
    const VkPhysicalDeviceLimits& l = ctx_.properties().limits;
    const uint32_t most =
        std::min({l.maxImageDimension2D, l.maxFramebufferWidth, l.maxFramebufferHeight});
    if (size.width > most || size.height > most) {
        fail("an offscreen target of {}x{} is larger than this device allows ({} a side)",
             size.width, size.height, most);
    }
}

std::string Renderer::compute_pass_unavailable() const {
    if (!ctx_.storage_write_without_format()) {
        return "the device cannot write storage images without a format";
    }
    const VkPhysicalDeviceLimits& l = ctx_.properties().limits;
    if (l.maxComputeWorkGroupInvocations < kComputeGroupX * kComputeGroupY ||
        l.maxComputeWorkGroupSize[0] < kComputeGroupX ||
        l.maxComputeWorkGroupSize[1] < kComputeGroupY) {
        return fmt::format("work groups of {}x{} are too large", kComputeGroupX, kComputeGroupY);
    }
    VkFormatProperties fp{};
    vkGetPhysicalDeviceFormatProperties(ctx_.physical(), color_format_, &fp);
    if (!(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT)) {
        return fmt::format("format {} is no storage image format", static_cast<int>(color_format_));
    }
    if (ctx_.api_version() >= VK_API_VERSION_1_3) {
        // Vulkan 1.3 reports per format whether it can be written without a format qualifier
        // (the shader's image has none), beyond the device-wide feature.
        VkFormatProperties3 fp3{};
        fp3.sType = VK_STRUCTURE_TYPE_FORMAT_PROPERTIES_3;
        VkFormatProperties2 fp2{};
        fp2.sType = VK_STRUCTURE_TYPE_FORMAT_PROPERTIES_2;
        fp2.pNext = &fp3;
        vkGetPhysicalDeviceFormatProperties2(ctx_.physical(), color_format_, &fp2);
        if (!(fp3.optimalTilingFeatures & VK_FORMAT_FEATURE_2_STORAGE_WRITE_WITHOUT_FORMAT_BIT)) {
            return fmt::format("format {} cannot be written without a format qualifier",
                               static_cast<int>(color_format_));
        }
    }
    if (!offscreen_) {
        VkSurfaceCapabilitiesKHR caps{};
        VFX_VK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(ctx_.physical(), surface_, &caps));
        if (!(caps.supportedUsageFlags & VK_IMAGE_USAGE_STORAGE_BIT)) {
            return "the surface's images cannot be storage images";
        }
    }
    return {};
}

std::string Renderer::name(const char* what, uint32_t index) const {
    if (index == UINT32_MAX) return fmt::format("{} {}", name_, what);
    return fmt::format("{} {} {}", name_, what, index);
}

void Renderer::create_common() {
    const bool swapchain = !offscreen_;
    for (uint32_t i = 0; i < slots_.size(); ++i) {
        Slot& s = slots_[i];
        s.index = i;
        VkCommandPoolCreateInfo pci{};
        pci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
        pci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
        pci.queueFamilyIndex = ctx_.queue_family();
        VkCommandPool pool = VK_NULL_HANDLE;
        VFX_VK(vkCreateCommandPool(device_, &pci, nullptr, &pool));
        s.pool = CommandPoolHandle(device_, pool);
        ctx_.set_name(pool, VK_OBJECT_TYPE_COMMAND_POOL, name("command pool", i).c_str());

        VkCommandBufferAllocateInfo cai{};
        cai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
        cai.commandPool = pool;
        cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        cai.commandBufferCount = 1;
        VFX_VK(vkAllocateCommandBuffers(device_, &cai, &s.cmd));
        ctx_.set_name(s.cmd, VK_OBJECT_TYPE_COMMAND_BUFFER, name("command buffer", i).c_str());

        VkFenceCreateInfo fci{};
        fci.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
        fci.flags = VK_FENCE_CREATE_SIGNALED_BIT;
        VkFence fence = VK_NULL_HANDLE;
        VFX_VK(vkCreateFence(device_, &fci, nullptr, &fence));
        s.fence = FenceHandle(device_, fence);
        ctx_.set_name(fence, VK_OBJECT_TYPE_FENCE, name("frame fence", i).c_str());

        if (swapchain) {
            VkSemaphoreCreateInfo sci{};
            sci.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
            VkSemaphore sem = VK_NULL_HANDLE;
            VFX_VK(vkCreateSemaphore(device_, &sci, nullptr, &sem));
            s.acquired = SemaphoreHandle(device_, sem);
            ctx_.set_name(sem, VK_OBJECT_TYPE_SEMAPHORE, name("image acquired", i).c_str());
        }
    }

    // Descriptors: one set per slot, rewritten when the slot is recorded: the frame's storage
    // buffer, and for the compute pass the target as a storage image.
    push_stages_ =
        compute_ ? VkShaderStageFlags{VK_SHADER_STAGE_FRAGMENT_BIT | VK_SHADER_STAGE_COMPUTE_BIT}
                 : VkShaderStageFlags{VK_SHADER_STAGE_FRAGMENT_BIT};
    const VkShaderStageFlags stage = push_stages_;
    VkDescriptorSetLayoutBinding bindings[2]{};
    bindings[0].binding = 0;
    bindings[0].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[0].descriptorCount = 1;
    bindings[0].stageFlags = stage;
    bindings[1].binding = 1;
    bindings[1].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
    bindings[1].descriptorCount = 1;
    bindings[1].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    VkDescriptorSetLayoutCreateInfo lci{};
    lci.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    lci.bindingCount = compute_ ? 2 : 1;
    lci.pBindings = bindings;
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    VFX_VK(vkCreateDescriptorSetLayout(device_, &lci, nullptr, &set_layout));
    set_layout_ = DescriptorSetLayoutHandle(device_, set_layout);
    ctx_.set_name(set_layout, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT, name("set layout").c_str());

    const uint32_t n = static_cast<uint32_t>(slots_.size());
    const VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, n},
                                           {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, n}};
    VkDescriptorPoolCreateInfo dpci{};
    dpci.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
    dpci.maxSets = n;
    dpci.poolSizeCount = compute_ ? 2 : 1;
    dpci.pPoolSizes = sizes;
    VkDescriptorPool dpool = VK_NULL_HANDLE;
    VFX_VK(vkCreateDescriptorPool(device_, &dpci, nullptr, &dpool));
    descriptor_pool_ = DescriptorPoolHandle(device_, dpool);
    ctx_.set_name(dpool, VK_OBJECT_TYPE_DESCRIPTOR_POOL, name("descriptor pool").c_str());
    for (Slot& s : slots_) {
        VkDescriptorSetAllocateInfo dai{};
        dai.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
        dai.descriptorPool = dpool;
        dai.descriptorSetCount = 1;
        dai.pSetLayouts = &set_layout;
        VFX_VK(vkAllocateDescriptorSets(device_, &dai, &s.set));
        ctx_.set_name(s.set, VK_OBJECT_TYPE_DESCRIPTOR_SET, name("frame set", s.index).c_str());
    }

    VkPushConstantRange push{};
    push.stageFlags = stage;
    push.offset = 0;
    push.size = sizeof(VideoPush);
    VkPipelineLayoutCreateInfo plci{};
    plci.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    plci.setLayoutCount = 1;
    plci.pSetLayouts = &set_layout;
    plci.pushConstantRangeCount = 1;
    plci.pPushConstantRanges = &push;
    VkPipelineLayout pl = VK_NULL_HANDLE;
    VFX_VK(vkCreatePipelineLayout(device_, &plci, nullptr, &pl));
    pipeline_layout_ = PipelineLayoutHandle(device_, pl);
    ctx_.set_name(pl, VK_OBJECT_TYPE_PIPELINE_LAYOUT, name("pipeline layout").c_str());

    render_pass_ = make_render_pass(false);
    ctx_.set_name(render_pass_.get(), VK_OBJECT_TYPE_RENDER_PASS, name("render pass").c_str());
    create_pipeline();
    if (compute_) {
        overlay_pass_ = make_render_pass(true);
        ctx_.set_name(overlay_pass_.get(), VK_OBJECT_TYPE_RENDER_PASS,
                      name("overlay pass").c_str());
        create_compute_pipeline();
    }

    // Timestamps: three per slot (kStamps), when the queue can write them.
    const uint32_t bits = ctx_.timestamp_valid_bits();
    const float period = ctx_.properties().limits.timestampPeriod;
    if (bits > 0 && period > 0.0f) {
        timestamps_ = true;
        timestamp_mask_ = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
        timestamp_ns_ = static_cast<double>(period);
        VkQueryPoolCreateInfo qci{};
        qci.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
        qci.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qci.queryCount = kStamps * n;
        VkQueryPool qp = VK_NULL_HANDLE;
        VFX_VK(vkCreateQueryPool(device_, &qci, nullptr, &qp));
        query_pool_ = QueryPoolHandle(device_, qp);
        ctx_.set_name(qp, VK_OBJECT_TYPE_QUERY_POOL, name("timestamps").c_str());
    } else {
        spdlog::info("Vulkan: the queue cannot write timestamps; no GPU frame times");
    }
}

RenderPassHandle Renderer::make_render_pass(bool load_after_compute) const {
    // Two passes over the same attachment, compatible with each other (and so with the
    // overlay's pipeline and the framebuffers): the first clears (black bars) and holds the
    // fragment video pass; the second loads what the compute video pass wrote (layout GENERAL)
    // for the overlay.
    VkAttachmentDescription color{};
    color.format = color_format_;
    color.samples = VK_SAMPLE_COUNT_1_BIT;
    color.loadOp = load_after_compute ? VK_ATTACHMENT_LOAD_OP_LOAD : VK_ATTACHMENT_LOAD_OP_CLEAR;
    color.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    color.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    color.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    color.initialLayout = load_after_compute ? VK_IMAGE_LAYOUT_GENERAL : VK_IMAGE_LAYOUT_UNDEFINED;
    color.finalLayout =
        offscreen_ ? VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL : VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
    VkAttachmentReference ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkSubpassDescription sub{};
    sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    sub.colorAttachmentCount = 1;
    sub.pColorAttachments = &ref;

    VkSubpassDependency deps[2]{};
    // In: the image's previous use before the clear or load and the writes: the acquire
    // semaphore's stage (swapchain), the last frame's writes and the read-back copy
    // (offscreen), and the compute pass's writes (the overlay pass). The same dependencies in
    // both passes: compatible render passes differ only in load/store operations and layouts.
    deps[0].srcSubpass = VK_SUBPASS_EXTERNAL;
    deps[0].dstSubpass = 0;
    deps[0].srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    deps[0].srcAccessMask = 0;
    if (compute_) {
        deps[0].srcStageMask |= VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
        deps[0].srcAccessMask |= VK_ACCESS_SHADER_WRITE_BIT;
    }
    if (offscreen_) {
        deps[0].srcStageMask |= VK_PIPELINE_STAGE_TRANSFER_BIT;
        deps[0].srcAccessMask |= VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    }
    deps[0].dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    deps[0].dstAccessMask =
        VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_COLOR_ATTACHMENT_READ_BIT;
    // Out: colour writes before the read-back copy (offscreen) or presentation.
    deps[1].srcSubpass = 0;
    deps[1].dstSubpass = VK_SUBPASS_EXTERNAL;
    deps[1].srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    deps[1].srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    if (offscreen_) {
        deps[1].dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
        deps[1].dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    } else {
        deps[1].dstStageMask = VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT;
        deps[1].dstAccessMask = 0;
    }

    VkRenderPassCreateInfo rci{};
    rci.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO;
    rci.attachmentCount = 1;
    rci.pAttachments = &color;
    rci.subpassCount = 1;
    rci.pSubpasses = &sub;
    rci.dependencyCount = 2;
    rci.pDependencies = deps;
    VkRenderPass rp = VK_NULL_HANDLE;
    VFX_VK(vkCreateRenderPass(device_, &rci, nullptr, &rp));
    return RenderPassHandle(device_, rp);
}

ShaderModuleHandle Renderer::shader_module(std::string_view file) const {
    std::span<const uint32_t> words = shader_words(file);
    VkShaderModuleCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    ci.codeSize = words.size_bytes();
    ci.pCode = words.data();
    VkShaderModule m = VK_NULL_HANDLE;
    VFX_VK(vkCreateShaderModule(device_, &ci, nullptr, &m));
    ctx_.set_name(m, VK_OBJECT_TYPE_SHADER_MODULE, name(std::string(file).c_str()).c_str());
    return ShaderModuleHandle(device_, m);
}

void Renderer::create_compute_pipeline() {
    ShaderModuleHandle comp = shader_module("video.comp");
    VkComputePipelineCreateInfo cci{};
    cci.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
    cci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    cci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    cci.stage.module = comp.get();
    cci.stage.pName = "main";
    cci.layout = pipeline_layout_.get();
    VkPipeline p = VK_NULL_HANDLE;
    VFX_VK(vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &cci, nullptr, &p));
    compute_pipeline_ = PipelineHandle(device_, p);
    ctx_.set_name(p, VK_OBJECT_TYPE_PIPELINE, name("video pipeline (compute)").c_str());
}

void Renderer::create_pipeline() {
    ShaderModuleHandle vert = shader_module("video.vert");
    ShaderModuleHandle frag = shader_module("video.frag");

    VkPipelineShaderStageCreateInfo stages[2]{};
    stages[0].sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
    stages[0].module = vert.get();
    stages[0].pName = "main";
    stages[1].sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
    stages[1].module = frag.get();
    stages[1].pName = "main";

    VkPipelineVertexInputStateCreateInfo vi{};
    vi.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO;
    VkPipelineInputAssemblyStateCreateInfo ia{};
    ia.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO;
    ia.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
    VkPipelineViewportStateCreateInfo vp{};
    vp.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO;
    vp.viewportCount = 1;
    vp.scissorCount = 1;
    VkPipelineRasterizationStateCreateInfo rs{};
    rs.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO;
    rs.polygonMode = VK_POLYGON_MODE_FILL;
    rs.cullMode = VK_CULL_MODE_NONE;
    rs.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
    rs.lineWidth = 1.0f;
    VkPipelineMultisampleStateCreateInfo ms{};
    ms.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO;
    ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
    VkPipelineColorBlendAttachmentState blend{};
    blend.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT |
                           VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
    VkPipelineColorBlendStateCreateInfo cb{};
    cb.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO;
    cb.attachmentCount = 1;
    cb.pAttachments = &blend;
    const VkDynamicState dyn_states[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    VkPipelineDynamicStateCreateInfo dyn{};
    dyn.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO;
    dyn.dynamicStateCount = 2;
    dyn.pDynamicStates = dyn_states;

    VkGraphicsPipelineCreateInfo gci{};
    gci.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO;
    gci.stageCount = 2;
    gci.pStages = stages;
    gci.pVertexInputState = &vi;
    gci.pInputAssemblyState = &ia;
    gci.pViewportState = &vp;
    gci.pRasterizationState = &rs;
    gci.pMultisampleState = &ms;
    gci.pColorBlendState = &cb;
    gci.pDynamicState = &dyn;
    gci.layout = pipeline_layout_.get();
    gci.renderPass = render_pass_.get();
    gci.subpass = 0;
    VkPipeline p = VK_NULL_HANDLE;
    VFX_VK(vkCreateGraphicsPipelines(device_, VK_NULL_HANDLE, 1, &gci, nullptr, &p));
    fragment_pipeline_ = PipelineHandle(device_, p);
    ctx_.set_name(p, VK_OBJECT_TYPE_PIPELINE, name("video pipeline (fragment)").c_str());
}

void Renderer::create_offscreen_images() {
    images_.clear();
    images_.resize(slots_.size());  // one image per slot: image index = slot index
    for (uint32_t i = 0; i < images_.size(); ++i) {
        TargetImage& t = images_[i];
        VkImageCreateInfo ici{};
        ici.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
        ici.imageType = VK_IMAGE_TYPE_2D;
        ici.format = color_format_;
        ici.extent = {extent_.width, extent_.height, 1};
        ici.mipLevels = 1;
        ici.arrayLayers = 1;
        ici.samples = VK_SAMPLE_COUNT_1_BIT;
        ici.tiling = VK_IMAGE_TILING_OPTIMAL;
        ici.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
        if (compute_) ici.usage |= VK_IMAGE_USAGE_STORAGE_BIT;
        ici.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
        ici.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
        VkImage img = VK_NULL_HANDLE;
        VFX_VK(vkCreateImage(device_, &ici, nullptr, &img));
        t.owned = ImageHandle(device_, img);
        t.image = img;
        ctx_.set_name(img, VK_OBJECT_TYPE_IMAGE, name("offscreen image", i).c_str());

        VkMemoryRequirements req{};
        vkGetImageMemoryRequirements(device_, img, &req);
        std::optional<uint32_t> type = find_memory_type(
            ctx_.memory_properties(), req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        if (!type) type = ctx_.memory_type(req.memoryTypeBits, 0);
        VkMemoryAllocateInfo mai{};
        mai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
        mai.allocationSize = req.size;
        mai.memoryTypeIndex = *type;
        VkDeviceMemory mem = VK_NULL_HANDLE;
        VFX_VK(vkAllocateMemory(device_, &mai, nullptr, &mem));
        t.memory = MemoryHandle(device_, mem);
        ctx_.set_name(mem, VK_OBJECT_TYPE_DEVICE_MEMORY, name("offscreen memory", i).c_str());
        VFX_VK(vkBindImageMemory(device_, img, mem, 0));
    }
    create_image_views_and_framebuffers();
}

VkSurfaceFormatKHR Renderer::choose_surface_format() const {
    uint32_t n = 0;
    VFX_VK(vkGetPhysicalDeviceSurfaceFormatsKHR(ctx_.physical(), surface_, &n, nullptr));
    std::vector<VkSurfaceFormatKHR> formats(n);
    VFX_VK(vkGetPhysicalDeviceSurfaceFormatsKHR(ctx_.physical(), surface_, &n, formats.data()));
    formats.resize(n);
    if (formats.empty()) {
        throw GpuError("Renderer: the surface reports no formats", VK_ERROR_FORMAT_NOT_SUPPORTED);
    }
    if (formats.size() == 1 && formats[0].format == VK_FORMAT_UNDEFINED) {
        return {VK_FORMAT_B8G8R8A8_UNORM, VK_COLOR_SPACE_SRGB_NONLINEAR_KHR};
    }
    // UNORM, not SRGB: the working format already holds the source's transfer curve, which is
    // what the display expects; an _SRGB format would encode it a second time.
    for (VkFormat want :
         {VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_A8B8G8R8_UNORM_PACK32}) {
        for (const VkSurfaceFormatKHR& f : formats) {
            if (f.format == want && f.colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR) return f;
        }
    }
    spdlog::warn("Vulkan: no 8-bit UNORM sRGB-nonlinear surface format; using format {}",
                 static_cast<int>(formats[0].format));
    return formats[0];
}

bool Renderer::recreate_swapchain() {
    if (requested_.width == 0 || requested_.height == 0) {
        extent_ = {0, 0};
        return false;
    }
    // Swapchain recreation is the one place (with teardown) that waits for the device.
    VFX_VK(vkDeviceWaitIdle(device_));

    VkSurfaceCapabilitiesKHR caps{};
    VFX_VK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(ctx_.physical(), surface_, &caps));
    VkExtent2D ext = caps.currentExtent;
    if (ext.width == UINT32_MAX) {
        ext.width =
            std::clamp(requested_.width, caps.minImageExtent.width, caps.maxImageExtent.width);
        ext.height =
            std::clamp(requested_.height, caps.minImageExtent.height, caps.maxImageExtent.height);
    }
    if (ext.width == 0 || ext.height == 0) {
        extent_ = {0, 0};
        return false;  // minimised: keep the old swapchain (if any) for oldSwapchain later
    }

    uint32_t n = 0;
    VFX_VK(vkGetPhysicalDeviceSurfacePresentModesKHR(ctx_.physical(), surface_, &n, nullptr));
    std::vector<VkPresentModeKHR> modes(n);
    VFX_VK(vkGetPhysicalDeviceSurfacePresentModesKHR(ctx_.physical(), surface_, &n, modes.data()));
    modes.resize(n);
    auto has = [&](VkPresentModeKHR m) {
        return std::find(modes.begin(), modes.end(), m) != modes.end();
    };
    present_mode_ = VK_PRESENT_MODE_FIFO_KHR;  // always supported
    if (!vsync_) {
        if (has(VK_PRESENT_MODE_MAILBOX_KHR)) {
            present_mode_ = VK_PRESENT_MODE_MAILBOX_KHR;
        } else if (has(VK_PRESENT_MODE_IMMEDIATE_KHR)) {
            present_mode_ = VK_PRESENT_MODE_IMMEDIATE_KHR;
        }
    }

    uint32_t count = caps.minImageCount + 1;
    if (caps.maxImageCount > 0) count = std::min(count, caps.maxImageCount);
    min_image_count_ = std::max(2u, caps.minImageCount);

    VkCompositeAlphaFlagBitsKHR alpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    if (!(caps.supportedCompositeAlpha & alpha)) {
        for (uint32_t bit = 1; bit != 0; bit <<= 1) {
            if (caps.supportedCompositeAlpha & bit) {
                alpha = static_cast<VkCompositeAlphaFlagBitsKHR>(bit);
                break;
            }
        }
    }

    VkSwapchainCreateInfoKHR sci{};
    sci.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR;
    sci.surface = surface_;
    sci.minImageCount = count;
    sci.imageFormat = color_format_;
    sci.imageColorSpace = color_space_;
    sci.imageExtent = ext;
    sci.imageArrayLayers = 1;
    sci.imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
    if (compute_) sci.imageUsage |= VK_IMAGE_USAGE_STORAGE_BIT;
    sci.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
    sci.preTransform = caps.currentTransform;
    sci.compositeAlpha = alpha;
    sci.presentMode = present_mode_;
    sci.clipped = VK_TRUE;
    sci.oldSwapchain = swapchain_.get();
    VkSwapchainKHR sc = VK_NULL_HANDLE;
    VFX_VK(vkCreateSwapchainKHR(device_, &sci, nullptr, &sc));

    // Retire the old swapchain's views and framebuffers; keep the per-image semaphores.
    for (TargetImage& t : images_) {
        if (t.rendered) spare_rendered_.push_back(std::move(t.rendered));
    }
    images_.clear();
    swapchain_ = SwapchainHandle(device_, sc);
    ctx_.set_name(sc, VK_OBJECT_TYPE_SWAPCHAIN_KHR, name("swapchain").c_str());
    extent_ = ext;
    last_drawn_image_.reset();

    uint32_t image_count = 0;
    VFX_VK(vkGetSwapchainImagesKHR(device_, sc, &image_count, nullptr));
    std::vector<VkImage> raw(image_count);
    VFX_VK(vkGetSwapchainImagesKHR(device_, sc, &image_count, raw.data()));
    images_.resize(image_count);
    for (uint32_t i = 0; i < image_count; ++i) {
        TargetImage& t = images_[i];
        t.image = raw[i];
        ctx_.set_name(raw[i], VK_OBJECT_TYPE_IMAGE, name("swapchain image", i).c_str());
        if (!spare_rendered_.empty()) {
            t.rendered = std::move(spare_rendered_.back());
            spare_rendered_.pop_back();
        } else {
            VkSemaphoreCreateInfo sem_ci{};
            sem_ci.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
            VkSemaphore sem = VK_NULL_HANDLE;
            VFX_VK(vkCreateSemaphore(device_, &sem_ci, nullptr, &sem));
            t.rendered = SemaphoreHandle(device_, sem);
        }
        ctx_.set_name(t.rendered.get(), VK_OBJECT_TYPE_SEMAPHORE,
                      name("render finished", i).c_str());
    }
    create_image_views_and_framebuffers();
    swapchain_dirty_ = false;
    spdlog::debug("Vulkan: swapchain {}x{}, {} images, present mode {}", ext.width, ext.height,
                  image_count, static_cast<int>(present_mode_));
    return true;
}

void Renderer::create_image_views_and_framebuffers() {
    for (uint32_t i = 0; i < images_.size(); ++i) {
        TargetImage& t = images_[i];
        VkImageViewCreateInfo vci{};
        vci.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO;
        vci.image = t.image;
        vci.viewType = VK_IMAGE_VIEW_TYPE_2D;
        vci.format = color_format_;
        vci.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
        VkImageView view = VK_NULL_HANDLE;
        VFX_VK(vkCreateImageView(device_, &vci, nullptr, &view));
        t.view = ImageViewHandle(device_, view);
        ctx_.set_name(view, VK_OBJECT_TYPE_IMAGE_VIEW, name("target view", i).c_str());

        VkFramebufferCreateInfo fci{};
        fci.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO;
        fci.renderPass = render_pass_.get();
        fci.attachmentCount = 1;
        fci.pAttachments = &view;
        fci.width = extent_.width;
        fci.height = extent_.height;
        fci.layers = 1;
        VkFramebuffer fb = VK_NULL_HANDLE;
        VFX_VK(vkCreateFramebuffer(device_, &fci, nullptr, &fb));
        t.framebuffer = FramebufferHandle(device_, fb);
        ctx_.set_name(fb, VK_OBJECT_TYPE_FRAMEBUFFER, name("framebuffer", i).c_str());
    }
}

void Renderer::resize(VkExtent2D size) {
    if (offscreen_) {
        if (size.width == 0 || size.height == 0) {
            throw std::invalid_argument("Renderer: offscreen target of zero size");
        }
        if (size.width == extent_.width && size.height == extent_.height) return;
        check_offscreen_size(size);
        wait_all();
        requested_ = size;
        extent_ = size;
        last_drawn_image_.reset();
        create_offscreen_images();
        return;
    }
    if (size.width != requested_.width || size.height != requested_.height ||
        size.width != extent_.width || size.height != extent_.height) {
        swapchain_dirty_ = true;
    }
    requested_ = size;
}

void Renderer::set_vsync(bool vsync) {
    if (vsync == vsync_) return;
    vsync_ = vsync;
    swapchain_dirty_ = true;
}

std::optional<uint32_t> Renderer::acquire_image(Slot& slot, bool* suboptimal) {
    for (int attempt = 0; attempt < 2; ++attempt) {
        if (swapchain_dirty_ || !swapchain_) {
            if (!recreate_swapchain()) return std::nullopt;
        }
        uint32_t index = 0;
        const VkResult r = vkAcquireNextImageKHR(device_, swapchain_.get(), UINT64_MAX,
                                                 slot.acquired.get(), VK_NULL_HANDLE, &index);
        if (r == VK_SUCCESS) return index;
        if (r == VK_SUBOPTIMAL_KHR) {  // the semaphore will be signalled: render and present
            *suboptimal = true;
            return index;
        }
        if (r == VK_ERROR_OUT_OF_DATE_KHR) {
            swapchain_dirty_ = true;
            continue;
        }
        VFX_VK(r);
    }
    return std::nullopt;
}

void Renderer::harvest(Slot& slot) {
    // The slot's fence has signalled.
    completed_ = std::max(completed_, slot.serial);
    if (!slot.timed) return;
    slot.timed = false;
    uint64_t ts[kStamps] = {};
    const VkResult r =
        vkGetQueryPoolResults(device_, query_pool_.get(), kStamps * slot.index, kStamps, sizeof(ts),
                              ts, sizeof(uint64_t), VK_QUERY_RESULT_64_BIT);
    if (r != VK_SUCCESS) return;  // VK_NOT_READY: no time for this frame
    auto ms_between = [&](uint64_t a, uint64_t b) {
        return static_cast<double>((b - a) & timestamp_mask_) * timestamp_ns_ / 1e6;
    };
    const double ms = ms_between(ts[1], ts[2]);
    const FrameTiming timing{slot.serial, ms, ms_between(ts[0], ts[1])};
    if (!last_timing_ || slot.serial > last_timing_->serial) last_timing_ = timing;
    if (slot.trial != 0 && slot.trial == trial_.generation && trial_.active) {
        // The whole of the frame's commands: where a pass's own stamp lands differs between
        // drivers (lavapipe writes the compute pass's after its dispatch has run).
        trial_.ms[slot.compute ? 1 : 0].push_back(timing.switch_ms + timing.gpu_ms);
    }
    slot.trial = 0;
    recent_timings_.push_back(timing);
    while (recent_timings_.size() > kRecentTimings)
        recent_timings_.pop_front();
}

std::optional<FrameTiming> Renderer::frame_timing(uint64_t serial) const {
    for (const FrameTiming& t : recent_timings_)
        if (t.serial == serial) return t;
    return std::nullopt;
}

std::optional<double> Renderer::timing_of(uint64_t serial) const {
    if (const auto t = frame_timing(serial)) return t->gpu_ms;
    return std::nullopt;
}

uint64_t Renderer::completed_serial() {
    for (Slot& s : slots_) {
        if (s.serial == 0) continue;
        if (s.serial <= completed_) {
            if (s.timed) harvest(s);  // completed through a later fence
            continue;
        }
        const VkResult r = vkGetFenceStatus(device_, s.fence.get());
        if (r == VK_SUCCESS) {
            harvest(s);
        } else if (r != VK_NOT_READY) {
            VFX_VK(r);
        }
    }
    return completed_;
}

bool Renderer::wait_frame(uint64_t serial, uint64_t timeout_ns) {
    if (serial <= completed_) return true;
    if (serial > submitted_) {
        throw std::invalid_argument(
            fmt::format("Renderer::wait_frame({}): only {} submitted", serial, submitted_));
    }
    // A slot is reused only after its previous serial completed, so it still holds `serial`.
    Slot& slot = slots_[(serial - 1) % slots_.size()];
    VkFence fence = slot.fence.get();
    const VkResult r = vkWaitForFences(device_, 1, &fence, VK_TRUE, timeout_ns);
    if (r == VK_TIMEOUT) return false;
    VFX_VK(r);
    harvest(slot);
    return true;
}

void Renderer::wait_all() {
    if (submitted_ > 0) wait_frame(submitted_);
}

void Renderer::check_frame(const VideoFrame& f) const {
    const size_t bpp = bytes_per_pixel(f.format);
    if (f.buffer == VK_NULL_HANDLE) throw std::invalid_argument("VideoFrame: no buffer");
    if (f.rotation % 90 != 0 || f.rotation >= 360) {
        throw std::invalid_argument(
            fmt::format("VideoFrame: rotation {} is not 0, 90, 180 or 270", f.rotation));
    }
    if (f.offset % 4 != 0 || f.pitch % 4 != 0) {
        throw std::invalid_argument(fmt::format(
            "VideoFrame: offset {} and pitch {} must be multiples of 4", f.offset, f.pitch));
    }
    if (f.pitch < size_t{f.width} * bpp || f.pitch / 4 > UINT32_MAX) {
        throw std::invalid_argument(fmt::format("VideoFrame: pitch {} for {} pixels of {}", f.pitch,
                                                f.width, to_string(f.format)));
    }
    const VkDeviceSize need = VkDeviceSize{f.pitch} * (f.height - 1) + VkDeviceSize{f.width} * bpp;
    if (f.range != VK_WHOLE_SIZE && f.range < need) {
        throw std::invalid_argument(fmt::format("VideoFrame: range {} < {} bytes of a {}x{} frame",
                                                f.range, need, f.width, f.height));
    }
    const VkDeviceSize align = ctx_.properties().limits.minStorageBufferOffsetAlignment;
    if (need + f.offset % align > ctx_.properties().limits.maxStorageBufferRange) {
        throw std::invalid_argument(
            fmt::format("VideoFrame: {} bytes exceed maxStorageBufferRange {}", need,
                        ctx_.properties().limits.maxStorageBufferRange));
    }
}

void Renderer::record(Slot& slot, const FrameSubmit& submit, uint32_t image_index) {
    const VideoFrame* f = submit.frame;
    if (f && (f->width == 0 || f->height == 0)) f = nullptr;
    const TargetImage& target = images_[image_index];

    // The slot's previous submission has completed, so its set may be rewritten.
    VkDescriptorBufferInfo bi{};
    static_assert(sizeof(VideoPush) == 48 && offsetof(VideoPush, dst_width) == 40);
    VideoPush pc{};
    if (f) {
        const VkDeviceSize align =
            std::max<VkDeviceSize>(4, ctx_.properties().limits.minStorageBufferOffsetAlignment);
        const VkDeviceSize bind_offset = f->offset - f->offset % align;
        bi.buffer = f->buffer;
        bi.offset = bind_offset;
        bi.range = (f->offset - bind_offset) + VkDeviceSize{f->pitch} * (f->height - 1) +
                   VkDeviceSize{f->width} * bytes_per_pixel(f->format);
        VkDescriptorImageInfo ii{};
        ii.imageView = target.view.get();
        ii.imageLayout = VK_IMAGE_LAYOUT_GENERAL;
        VkWriteDescriptorSet w[2]{};
        w[0].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
        w[0].dstSet = slot.set;
        w[0].dstBinding = 0;
        w[0].descriptorCount = 1;
        w[0].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        w[0].pBufferInfo = &bi;
        w[1] = w[0];
        w[1].dstBinding = 1;
        w[1].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
        w[1].pBufferInfo = nullptr;
        w[1].pImageInfo = &ii;
        // Fragment frames leave binding 1 as it was (possibly a view since destroyed): the
        // fragment pipeline does not use it.
        vkUpdateDescriptorSets(device_, slot.compute ? 2 : 1, w, 0, nullptr);

        const Rect r = letterbox_rect(extent_.width, extent_.height, f->width, f->height,
                                      f->sar_num, f->sar_den, f->rotation);
        const bool sideways = f->rotation % 180 == 90;
        pc.width = f->width;
        pc.height = f->height;
        pc.pitch_words = static_cast<uint32_t>(f->pitch / 4);
        pc.format = f->format == WorkFormat::rgba16 ? 1u : 0u;
        pc.base_word = static_cast<uint32_t>((f->offset - bind_offset) / 4);
        pc.rotation = f->rotation / 90;
        pc.dst_x = static_cast<float>(r.x);
        pc.dst_y = static_cast<float>(r.y);
        pc.dst_width = r.width;
        pc.dst_height = r.height;
        if (r.width > 0 && r.height > 0) {
            // Source pixels per destination pixel along the source's own x and y axes (on
            // their side, the source's x runs down the rectangle and its y across).
            pc.scale_x =
                static_cast<float>(static_cast<double>(f->width) / (sideways ? r.height : r.width));
            pc.scale_y = static_cast<float>(static_cast<double>(f->height) /
                                            (sideways ? r.width : r.height));
        }
    }

    VFX_VK(vkResetCommandPool(device_, slot.pool.get(), 0));
    VkCommandBuffer cmd = slot.cmd;
    VkCommandBufferBeginInfo begin{};
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VFX_VK(vkBeginCommandBuffer(cmd, &begin));

    if (timestamps_) {
        vkCmdResetQueryPool(cmd, query_pool_.get(), kStamps * slot.index, kStamps);
        // The commands' start: after the frame's semaphores. Up to the video pass's start the
        // GPU mostly changes over from the other API's context (FrameTiming::switch_ms).
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, query_pool_.get(),
                            kStamps * slot.index);
    }

    const bool external = f && f->ownership == BufferOwnership::external;
    const VkPipelineStageFlags stage = stage_of(slot.compute);
    VkBufferMemoryBarrier qfo{};
    if (external) {
        // Acquire the frame's range from the external API. Its first scope chains with the
        // wait semaphores (ALL_COMMANDS), the second covers the pass's shader reads.
        qfo.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
        qfo.srcAccessMask = 0;
        qfo.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
        qfo.srcQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
        qfo.dstQueueFamilyIndex = ctx_.queue_family();
        qfo.buffer = bi.buffer;
        qfo.offset = bi.offset;
        qfo.size = bi.range;
        vkCmdPipelineBarrier(cmd, stage, stage, 0, 0, nullptr, 1, &qfo, 0, nullptr);
    }

    const VkViewport viewport{
        0.0f, 0.0f, static_cast<float>(extent_.width), static_cast<float>(extent_.height),
        0.0f, 1.0f};
    const VkRect2D full{{0, 0}, extent_};
    auto draw_overlay = [&] {
        // Leave the overlay a full-target viewport and scissor (ImGui sets its own anyway).
        vkCmdSetViewport(cmd, 0, 1, &viewport);
        vkCmdSetScissor(cmd, 0, 1, &full);
        submit.overlay(cmd);
    };
    if (slot.compute && f) {
        record_compute_pass(cmd, slot, target, pc);
        if (submit.overlay) {
            VkRenderPassBeginInfo rbi{};
            rbi.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO;
            rbi.renderPass = overlay_pass_.get();
            rbi.framebuffer = target.framebuffer.get();
            rbi.renderArea = {{0, 0}, extent_};
            vkCmdBeginRenderPass(cmd, &rbi, VK_SUBPASS_CONTENTS_INLINE);
            draw_overlay();
            vkCmdEndRenderPass(cmd);
        } else {
            // GENERAL -> the layout the read-back copy or presentation expects.
            transition(
                cmd, target.image, VK_IMAGE_LAYOUT_GENERAL,
                offscreen_ ? VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL : VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                offscreen_ ? VK_PIPELINE_STAGE_TRANSFER_BIT : VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                offscreen_ ? VK_ACCESS_TRANSFER_READ_BIT : 0);
        }
    } else {
        // The fragment pass, or no frame (either pass): a render pass that clears the target.
        VkClearValue clear{};
        clear.color = {{0.0f, 0.0f, 0.0f, 1.0f}};
        VkRenderPassBeginInfo rbi{};
        rbi.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO;
        rbi.renderPass = render_pass_.get();
        rbi.framebuffer = target.framebuffer.get();
        rbi.renderArea = {{0, 0}, extent_};
        rbi.clearValueCount = 1;
        rbi.pClearValues = &clear;
        vkCmdBeginRenderPass(cmd, &rbi, VK_SUBPASS_CONTENTS_INLINE);
        if (timestamps_) {
            // The video pass's start, inside the render pass (after its clear).
            vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, query_pool_.get(),
                                kStamps * slot.index + 1);
        }
        if (f && pc.dst_width > 0 && pc.dst_height > 0) {
            const VkRect2D scissor{{static_cast<int32_t>(pc.dst_x), static_cast<int32_t>(pc.dst_y)},
                                   {pc.dst_width, pc.dst_height}};
            vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, fragment_pipeline_.get());
            vkCmdSetViewport(cmd, 0, 1, &viewport);
            vkCmdSetScissor(cmd, 0, 1, &scissor);
            vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline_layout_.get(), 0,
                                    1, &slot.set, 0, nullptr);
            vkCmdPushConstants(cmd, pipeline_layout_.get(), push_stages_, 0, sizeof(pc), &pc);
            vkCmdDraw(cmd, 3, 1, 0, 0);
        }
        if (submit.overlay) draw_overlay();
        vkCmdEndRenderPass(cmd);
    }

    if (external) {
        // Release the range back to the external API (we only read: nothing to make
        // available); the caller's signal semaphores order the other API after it.
        qfo.srcAccessMask = 0;
        qfo.dstAccessMask = 0;
        qfo.srcQueueFamilyIndex = ctx_.queue_family();
        qfo.dstQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
        vkCmdPipelineBarrier(cmd, stage, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, nullptr, 1,
                             &qfo, 0, nullptr);
    }
    if (timestamps_) {
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, query_pool_.get(),
                            kStamps * slot.index + 2);
    }
    VFX_VK(vkEndCommandBuffer(cmd));
    slot.timed = timestamps_;
}

void Renderer::record_compute_pass(VkCommandBuffer cmd, const Slot& slot, const TargetImage& target,
                                   const VideoPush& pc) {
    // The target to GENERAL for the shader's writes (every pixel is written: its old contents
    // go), after its previous use: the acquire semaphore's wait (swapchain), or the last
    // frame's writes and read-back copy (offscreen).
    VkPipelineStageFlags src =
        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    if (offscreen_) src |= VK_PIPELINE_STAGE_TRANSFER_BIT;
    transition(cmd, target.image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, src,
               offscreen_ ? VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT : 0,
               VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, compute_pipeline_.get());
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout_.get(), 0, 1,
                            &slot.set, 0, nullptr);
    vkCmdPushConstants(cmd, pipeline_layout_.get(), push_stages_, 0, sizeof(pc), &pc);
    if (timestamps_) {
        // As the fragment pass's, after the state it needs is bound: on an H100 next to an
        // OpenCL context, stamped before the binds this took 0.155 ms more a frame (the change
        // of context, which the fragment pass's stamp inside its render pass never counted;
        // both passes now leave it to FrameTiming::switch_ms).
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, query_pool_.get(),
                            kStamps * slot.index + 1);
    }
    vkCmdDispatch(cmd, (extent_.width + kComputeGroupX - 1) / kComputeGroupX,
                  (extent_.height + kComputeGroupY - 1) / kComputeGroupY, 1);
}

void Renderer::submit(Slot& slot, const FrameSubmit& s, std::optional<uint32_t> image_index) {
    const bool present = image_index && !offscreen_;
    wait_sems_.clear();
    wait_stages_.clear();
    wait_vals_.clear();
    signal_sems_.clear();
    signal_vals_.clear();
    if (present) {
        wait_sems_.push_back(slot.acquired.get());
        // At every stage, so the frame's first timestamp comes after the image is ours (and
        // every first use of it, the clearing render pass or the compute pass's layout
        // transition, chains with the wait).
        wait_stages_.push_back(VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
        wait_vals_.push_back(0);
    }
    // Before every command of the frame (its first timestamp included: the renderer's GPU
    // times never count the wait for OpenCL). Nothing recorded (no image): an empty batch
    // still waits and signals.
    for (size_t i = 0; i < s.wait_semaphores.size(); ++i) {
        wait_sems_.push_back(s.wait_semaphores[i]);
        wait_stages_.push_back(VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
        wait_vals_.push_back(s.wait_values.empty() ? 0 : s.wait_values[i]);
    }
    for (size_t i = 0; i < s.signal_semaphores.size(); ++i) {
        signal_sems_.push_back(s.signal_semaphores[i]);
        signal_vals_.push_back(s.signal_values.empty() ? 0 : s.signal_values[i]);
    }
    if (present) {
        signal_sems_.push_back(images_[*image_index].rendered.get());
        signal_vals_.push_back(0);
    }

    VkTimelineSemaphoreSubmitInfo tl{};
    tl.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
    tl.waitSemaphoreValueCount = static_cast<uint32_t>(wait_vals_.size());
    tl.pWaitSemaphoreValues = wait_vals_.data();
    tl.signalSemaphoreValueCount = static_cast<uint32_t>(signal_vals_.size());
    tl.pSignalSemaphoreValues = signal_vals_.data();

    VkSubmitInfo si{};
    si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    if (!s.wait_values.empty() || !s.signal_values.empty()) si.pNext = &tl;
    si.waitSemaphoreCount = static_cast<uint32_t>(wait_sems_.size());
    si.pWaitSemaphores = wait_sems_.data();
    si.pWaitDstStageMask = wait_stages_.data();
    si.commandBufferCount = image_index ? 1 : 0;
    si.pCommandBuffers = &slot.cmd;
    si.signalSemaphoreCount = static_cast<uint32_t>(signal_sems_.size());
    si.pSignalSemaphores = signal_sems_.data();

    VkFence fence = slot.fence.get();
    VFX_VK(vkResetFences(device_, 1, &fence));
    VFX_VK(vkQueueSubmit(ctx_.queue(), 1, &si, fence));
    slot.serial = ++submitted_;
}

bool Renderer::choose_pass(Slot& slot, bool video) {
    slot.trial = 0;
    if (!choose_by_time_ || !video) return use_compute_;
    const bool same_size =
        trial_.extent.width == extent_.width && trial_.extent.height == extent_.height;
    if (!trial_.active && same_size) return use_compute_;  // chosen for this size
    if (!same_size) {  // a new size (the first frame, a resize): measure both again
        trial_.active = true;
        trial_.extent = extent_;
        ++trial_.generation;
        for (int k = 0; k < 2; ++k) {
            trial_.submitted[k] = 0;
            trial_.ms[k].clear();
        }
    }
    // Frames alternate between the passes (compute first), so clock ramps and first touches
    // fall on both; the median of each pass's timed frames decides.
    constexpr uint32_t kFrames = 8;  // of each pass
    if (trial_.submitted[0] < kFrames || trial_.submitted[1] < kFrames) {
        const int k = trial_.submitted[1] <= trial_.submitted[0] ? 1 : 0;  // 1: compute
        ++trial_.submitted[k];
        slot.trial = trial_.generation;
        return k == 1;
    }
    if (trial_.ms[0].size() >= kFrames / 2 && trial_.ms[1].size() >= kFrames / 2) {
        auto median = [](std::vector<double> v) {
            std::nth_element(v.begin(), v.begin() + static_cast<ptrdiff_t>(v.size() / 2), v.end());
            return v[v.size() / 2];
        };
        const double fragment_ms = median(trial_.ms[0]), compute_ms = median(trial_.ms[1]);
        use_compute_ = compute_ms <= fragment_ms;
        trial_.active = false;
        choice_ = VideoPassChoice{extent_, compute_ms, fragment_ms};
        spdlog::info(
            "Vulkan: {} video pass at {}x{} (the renderer's GPU time p50: compute {:.4f} ms, "
            "fragment {:.4f} ms)",
            use_compute_ ? "compute" : "fragment", extent_.width, extent_.height, compute_ms,
            fragment_ms);
    }
    return use_compute_;  // until the trial frames' times are in
}

FrameResult Renderer::render(const FrameSubmit& s) {
    if (!s.wait_values.empty() && s.wait_values.size() != s.wait_semaphores.size()) {
        throw std::invalid_argument("FrameSubmit: wait_values must match wait_semaphores");
    }
    if (!s.signal_values.empty() && s.signal_values.size() != s.signal_semaphores.size()) {
        throw std::invalid_argument("FrameSubmit: signal_values must match signal_semaphores");
    }
    if ((!s.wait_values.empty() || !s.signal_values.empty()) && !ctx_.timeline_semaphores()) {
        throw std::invalid_argument("FrameSubmit: timeline values without timeline semaphores");
    }
    if (s.frame && s.frame->width > 0 && s.frame->height > 0) check_frame(*s.frame);

    // The slot this serial uses; its previous frame (frames_in_flight() ago) must be done.
    Slot& slot = slots_[submitted_ % slots_.size()];
    if (slot.serial != 0) {
        if (slot.serial > completed_) {
            VkFence fence = slot.fence.get();
            VFX_VK(vkWaitForFences(device_, 1, &fence, VK_TRUE, UINT64_MAX));
        }
        harvest(slot);
    }
    completed_serial();
    deferred_.collect(completed_);

    std::optional<uint32_t> image;
    bool suboptimal = false;
    if (offscreen_) {
        image = slot.index;
    } else {
        image = acquire_image(slot, &suboptimal);
    }
    if (image) {
        slot.compute = choose_pass(slot, s.frame && s.frame->width > 0 && s.frame->height > 0);
        record(slot, s, *image);
    } else {
        slot.timed = false;
    }
    submit(slot, s, image);

    FrameResult result;
    result.serial = slot.serial;
    result.drawn = image.has_value();
    if (image) {
        last_drawn_image_ = *image;
        last_drawn_serial_ = slot.serial;
    }
    if (image && !offscreen_) {
        VkSemaphore wait = images_[*image].rendered.get();
        VkSwapchainKHR sc = swapchain_.get();
        const uint32_t index = *image;
        VkPresentInfoKHR pi{};
        pi.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR;
        pi.waitSemaphoreCount = 1;
        pi.pWaitSemaphores = &wait;
        pi.swapchainCount = 1;
        pi.pSwapchains = &sc;
        pi.pImageIndices = &index;
        const VkResult r = vkQueuePresentKHR(ctx_.queue(), &pi);
        if (r == VK_SUCCESS || r == VK_SUBOPTIMAL_KHR) {
            result.presented = true;
            if (r == VK_SUBOPTIMAL_KHR) swapchain_dirty_ = true;
        } else if (r == VK_ERROR_OUT_OF_DATE_KHR) {
            swapchain_dirty_ = true;  // the semaphore wait still happens
        } else {
            VFX_VK(r);
        }
        if (suboptimal) swapchain_dirty_ = true;
    }
    return result;
}

RgbaImage Renderer::read_back() {
    if (!offscreen_) throw std::logic_error("Renderer::read_back: not an offscreen target");
    if (!last_drawn_image_) throw std::logic_error("Renderer::read_back: nothing drawn yet");
    const VkDeviceSize size = VkDeviceSize{extent_.width} * extent_.height * 4;

    if (!readback_pool_) {
        VkCommandPoolCreateInfo pci{};
        pci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
        pci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
        pci.queueFamilyIndex = ctx_.queue_family();
        VkCommandPool pool = VK_NULL_HANDLE;
        VFX_VK(vkCreateCommandPool(device_, &pci, nullptr, &pool));
        readback_pool_ = CommandPoolHandle(device_, pool);
        ctx_.set_name(pool, VK_OBJECT_TYPE_COMMAND_POOL, name("read-back pool").c_str());
        VkCommandBufferAllocateInfo cai{};
        cai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
        cai.commandPool = pool;
        cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        cai.commandBufferCount = 1;
        VFX_VK(vkAllocateCommandBuffers(device_, &cai, &readback_cmd_));
        ctx_.set_name(readback_cmd_, VK_OBJECT_TYPE_COMMAND_BUFFER,
                      name("read-back commands").c_str());
        VkFenceCreateInfo fci{};
        fci.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
        VkFence fence = VK_NULL_HANDLE;
        VFX_VK(vkCreateFence(device_, &fci, nullptr, &fence));
        readback_fence_ = FenceHandle(device_, fence);
        ctx_.set_name(fence, VK_OBJECT_TYPE_FENCE, name("read-back fence").c_str());
    }
    if (readback_size_ != size) {
        readback_buffer_.reset();
        readback_memory_.reset();
        VkBufferCreateInfo bci{};
        bci.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
        bci.size = size;
        bci.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
        bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
        VkBuffer buf = VK_NULL_HANDLE;
        VFX_VK(vkCreateBuffer(device_, &bci, nullptr, &buf));
        readback_buffer_ = BufferHandle(device_, buf);
        ctx_.set_name(buf, VK_OBJECT_TYPE_BUFFER, name("read-back buffer").c_str());
        VkMemoryRequirements req{};
        vkGetBufferMemoryRequirements(device_, buf, &req);
        const VkMemoryPropertyFlags cached =
            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
        std::optional<uint32_t> type =
            find_memory_type(ctx_.memory_properties(), req.memoryTypeBits, cached);
        if (!type) type = ctx_.memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
        readback_coherent_ = (ctx_.memory_properties().memoryTypes[*type].propertyFlags &
                              VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
        VkMemoryAllocateInfo mai{};
        mai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
        mai.allocationSize = req.size;
        mai.memoryTypeIndex = *type;
        VkDeviceMemory mem = VK_NULL_HANDLE;
        VFX_VK(vkAllocateMemory(device_, &mai, nullptr, &mem));
        readback_memory_ = MemoryHandle(device_, mem);
        ctx_.set_name(mem, VK_OBJECT_TYPE_DEVICE_MEMORY, name("read-back memory").c_str());
        VFX_VK(vkBindBufferMemory(device_, buf, mem, 0));
        readback_size_ = size;
    }

    VFX_VK(vkResetCommandPool(device_, readback_pool_.get(), 0));
    VkCommandBufferBeginInfo begin{};
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VFX_VK(vkBeginCommandBuffer(readback_cmd_, &begin));
    // The render pass's outgoing dependency (or, for a compute pass without overlay, its last
    // barrier) orders the frame's writes before this copy and leaves the image in
    // TRANSFER_SRC_OPTIMAL.
    VkBufferImageCopy copy{};
    copy.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    copy.imageExtent = {extent_.width, extent_.height, 1};
    vkCmdCopyImageToBuffer(readback_cmd_, images_[*last_drawn_image_].image,
                           VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback_buffer_.get(), 1, &copy);
    VkBufferMemoryBarrier to_host{};
    to_host.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
    to_host.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    to_host.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    to_host.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    to_host.buffer = readback_buffer_.get();
    to_host.offset = 0;
    to_host.size = VK_WHOLE_SIZE;
    vkCmdPipelineBarrier(readback_cmd_, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                         0, 0, nullptr, 1, &to_host, 0, nullptr);
    VFX_VK(vkEndCommandBuffer(readback_cmd_));

    VkSubmitInfo si{};
    si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &readback_cmd_;
    VkFence fence = readback_fence_.get();
    VFX_VK(vkResetFences(device_, 1, &fence));
    VFX_VK(vkQueueSubmit(ctx_.queue(), 1, &si, fence));
    VFX_VK(vkWaitForFences(device_, 1, &fence, VK_TRUE, UINT64_MAX));
    // Everything submitted before the copy has completed too.
    completed_serial();

    void* mapped = nullptr;
    VFX_VK(vkMapMemory(device_, readback_memory_.get(), 0, VK_WHOLE_SIZE, 0, &mapped));
    if (!readback_coherent_) {
        VkMappedMemoryRange range{};
        range.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE;
        range.memory = readback_memory_.get();
        range.offset = 0;
        range.size = VK_WHOLE_SIZE;
        VFX_VK(vkInvalidateMappedMemoryRanges(device_, 1, &range));
    }
    RgbaImage out;
    out.width = extent_.width;
    out.height = extent_.height;
    out.pixels.resize(static_cast<size_t>(size));
    std::memcpy(out.pixels.data(), mapped, out.pixels.size());
    vkUnmapMemory(device_, readback_memory_.get());
    return out;
}

}  // namespace vfx
