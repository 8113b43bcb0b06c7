#include "overlay.hpp"

#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_vulkan.h>

#include <algorithm>
#include <array>

#include "core/log.hpp"
#include "render/vk_check.hpp"
#include "render/vk_context.hpp"

namespace vfx::ui {

namespace {
void check_imgui_vk(VkResult r) {
    if (r != VK_SUCCESS) vk_fail(r, "ImGui Vulkan backend", __FILE__, __LINE__);
}
}  // namespace

Overlay::Overlay(VkContext& vk, GLFWwindow* window, VkRenderPass render_pass,
                 uint32_t min_image_count, uint32_t buffer_count)
    : vk_(vk) {
    VkDevice dev = vk.device();
    std::array<VkDescriptorPoolSize, 1> sizes{{{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 16}}};
    VkDescriptorPoolCreateInfo pi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pi.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
    pi.maxSets = 16;
    pi.poolSizeCount = static_cast<uint32_t>(sizes.size());
    pi.pPoolSizes = sizes.data();
    VFX_VK(vkCreateDescriptorPool(dev, &pi, nullptr, &pool_));
    vk.set_name(pool_, VK_OBJECT_TYPE_DESCRIPTOR_POOL, "overlay.descriptors");

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // no imgui.ini litter in the user's folder
    ImGui::StyleColorsDark();
    ImGui_ImplGlfw_InitForVulkan(window, true);

    ImGui_ImplVulkan_InitInfo info{};
    info.Instance = vk.instance();
    info.PhysicalDevice = vk.physical();
    info.Device = dev;
    info.QueueFamily = vk.queue_family();
    info.Queue = vk.queue();
    info.DescriptorPool = pool_;
    info.Subpass = 0;
    info.MinImageCount = std::max(2u, min_image_count);
    info.ImageCount = std::max(info.MinImageCount, buffer_count);
    info.MSAASamples = VK_SAMPLE_COUNT_1_BIT;
    info.CheckVkResultFn = check_imgui_vk;
    ImGui_ImplVulkan_Init(&info, render_pass);

    // Upload the font atlas once, with a one-shot command buffer (start-up only).
    VkCommandPool cmd_pool = VK_NULL_HANDLE;
    VkCommandPoolCreateInfo cpi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    cpi.queueFamilyIndex = vk.queue_family();
    VFX_VK(vkCreateCommandPool(dev, &cpi, nullptr, &cmd_pool));
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cai.commandPool = cmd_pool;
    cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cai.commandBufferCount = 1;
    VFX_VK(vkAllocateCommandBuffers(dev, &cai, &cmd));
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VFX_VK(vkBeginCommandBuffer(cmd, &bi));
    ImGui_ImplVulkan_CreateFontsTexture(cmd);
    VFX_VK(vkEndCommandBuffer(cmd));
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    VFX_VK(vkQueueSubmit(vk.queue(), 1, &si, VK_NULL_HANDLE));
    VFX_VK(vkQueueWaitIdle(vk.queue()));
    ImGui_ImplVulkan_DestroyFontUploadObjects();
    vkDestroyCommandPool(dev, cmd_pool, nullptr);
}

Overlay::~Overlay() {
    vkDeviceWaitIdle(vk_.device());
    ImGui_ImplVulkan_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    vkDestroyDescriptorPool(vk_.device(), pool_, nullptr);
}

void Overlay::set_min_image_count(uint32_t n) {
    ImGui_ImplVulkan_SetMinImageCount(std::max(2u, n));
}

namespace {

// One widget per parameter, from the filter's registration: type, range, allowed values, and
// the help as a tooltip. Returns true when the user changed `value`.
bool edit_param(const ParamSpec& p, ParamValue& value) {
    bool changed = false;
    const char* label = p.name.c_str();
    switch (p.type) {
        case ParamType::float_value: {
            auto v = static_cast<float>(std::get<double>(value));
            // Wide positive ranges (sigma 0.1..32) are easier on a logarithmic slider.
            const ImGuiSliderFlags flags = p.min > 0 && p.max / p.min >= 100
                                               ? ImGuiSliderFlags_Logarithmic
                                               : ImGuiSliderFlags_None;
            if (ImGui::SliderFloat(label, &v, static_cast<float>(p.min), static_cast<float>(p.max),
                                   "%.3g", flags | ImGuiSliderFlags_AlwaysClamp)) {
                value = static_cast<double>(v);
                changed = true;
            }
            break;
        }
        case ParamType::int_value: {
            auto v = static_cast<int>(std::get<int64_t>(value));
            if (ImGui::SliderInt(label, &v, static_cast<int>(p.min), static_cast<int>(p.max), "%d",
                                 ImGuiSliderFlags_AlwaysClamp)) {
                value = int64_t{v};
                changed = true;
            }
            break;
        }
        case ParamType::enum_value: {
            const std::string& cur = std::get<std::string>(value);
            if (ImGui::BeginCombo(label, cur.c_str())) {
                for (const std::string& a : p.allowed)
                    if (ImGui::Selectable(a.c_str(), a == cur) && a != cur) {
                        value = a;
                        changed = true;
                    }
                ImGui::EndCombo();
            }
            break;
        }
        case ParamType::bool_value: {
            bool v = std::get<bool>(value);
            if (ImGui::Checkbox(label, &v)) {
                value = v;
                changed = true;
            }
            break;
        }
        case ParamType::float_list: {
            auto& list = std::get<std::vector<double>>(value);
            ImGui::TextUnformatted(label);
            for (size_t i = 0; i < list.size(); ++i) {
                auto v = static_cast<float>(list[i]);
                ImGui::PushID(static_cast<int>(i));
                if (i % 3 != 0) ImGui::SameLine();
                ImGui::SetNextItemWidth(70 * ImGui::GetIO().FontGlobalScale);
                if (ImGui::DragFloat("##v", &v, 0.01f, static_cast<float>(p.min),
                                     static_cast<float>(p.max), "%.3f",
                                     ImGuiSliderFlags_AlwaysClamp)) {
                    list[i] = static_cast<double>(v);
                    changed = true;
                }
                ImGui::PopID();
            }
            break;
        }
    }
    if (ImGui::IsItemHovered() && !p.help.empty()) ImGui::SetTooltip("%s", p.help.c_str());
    return changed;
}

}  // namespace

std::optional<Chain> Overlay::build(const OverlayState& s, float content_scale) {
    std::optional<Chain> edited;
    ImGui_ImplVulkan_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    if (content_scale != scale_) {
        ImGui::GetIO().FontGlobalScale = content_scale;
        scale_ = content_scale;
    }
    if (visible_) {
        ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
        ImGui::SetNextWindowBgAlpha(0.8f);
        ImGui::Begin("vfx", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
        ImGui::Text("%.1f fps   frame %lld   dropped %lld   corrupt %lld", s.fps,
                    static_cast<long long>(s.frames), static_cast<long long>(s.dropped),
                    static_cast<long long>(s.corrupt));
        ImGui::Text("%s", s.source.c_str());
        if (s.chain && ImGui::CollapsingHeader("Chain", ImGuiTreeNodeFlags_DefaultOpen)) {
            if (s.chain->empty()) ImGui::TextUnformatted("(no filters)");
            Chain work = *s.chain;
            bool changed = false;
            for (size_t i = 0; i < work.filters.size(); ++i) {
                FilterInstance& f = work.filters[i];
                ImGui::PushID(static_cast<int>(i));
                const bool open = ImGui::TreeNodeEx("stage", ImGuiTreeNodeFlags_DefaultOpen,
                                                    "%zu %s", i + 1, f.name().c_str());
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", f.info->help.c_str());
                if (open) {
                    for (size_t k = 0; k < f.info->params.size(); ++k)
                        changed |= edit_param(f.info->params[k], f.values[k]);
                    ImGui::TreePop();
                }
                ImGui::PopID();
            }
            if (changed) edited = std::move(work);
        }
        ImGui::Separator();
        ImGui::Text("%s", s.cl_device.c_str());
        ImGui::Text("%s", s.vk_device.c_str());
        ImGui::Text("interop: %s", s.interop.c_str());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", s.interop_reason.c_str());
        ImGui::Text("decode queue: %zu / %zu", s.queue_depth, s.queue_capacity);
        if (s.extra_ui) s.extra_ui();
        if (s.timing && !s.timing->records().empty()) {
            ImGui::Separator();
            std::vector<float> frame_ms;
            frame_ms.reserve(s.timing->records().size());
            for (const auto& r : s.timing->records())
                frame_ms.push_back(static_cast<float>(r.frame_ms));
            const float top = std::max(20.0f, *std::max_element(frame_ms.begin(), frame_ms.end()));
            ImGui::PlotLines("##frame", frame_ms.data(), static_cast<int>(frame_ms.size()), 0,
                             "frame time (ms)", 0.0f, top, ImVec2(360 * scale_, 80 * scale_));
            if (ImGui::BeginTable("stages", 5, ImGuiTableFlags_SizingFixedFit)) {
                for (const char* h : {"stage", "mean", "p50", "p95", "p99"})
                    ImGui::TableSetupColumn(h);
                ImGui::TableHeadersRow();
                for (const auto& name : s.timing->stage_names()) {
                    Summary sm = s.timing->summary(name);
                    ImGui::TableNextRow();
                    ImGui::TableNextColumn();
                    ImGui::TextUnformatted(name.c_str());
                    for (double v : {sm.mean, sm.p50, sm.p95, sm.p99}) {
                        ImGui::TableNextColumn();
                        ImGui::Text("%.3f", v);
                    }
                }
                ImGui::EndTable();
            }
        }
        if (s.histogram) {
            ImGui::Separator();
            ImGui::TextUnformatted("histogram (R, G, B, luma)");
            static const char* names[] = {"##r", "##g", "##b", "##luma"};
            static const ImVec4 colours[] = {
                {1, 0.3f, 0.3f, 1}, {0.3f, 1, 0.3f, 1}, {0.4f, 0.5f, 1, 1}, {0.9f, 0.9f, 0.9f, 1}};
            std::array<float, 256> bins{};
            for (int c = 0; c < 4; ++c) {
                float top = 1;
                for (int i = 0; i < 256; ++i) {
                    bins[static_cast<size_t>(i)] = static_cast<float>(s.histogram->at(c, i));
                    top = std::max(top, bins[static_cast<size_t>(i)]);
                }
                ImGui::PushStyleColor(ImGuiCol_PlotHistogram, colours[c]);
                ImGui::PlotHistogram(names[c], bins.data(), 256, 0, nullptr, 0.0f, top,
                                     ImVec2(360 * scale_, 40 * scale_));
                ImGui::PopStyleColor();
            }
        }
        ImGui::End();
    }
    ImGui::Render();
    have_frame_ = true;
    return edited;
}

void Overlay::record(VkCommandBuffer cmd) {
    if (!have_frame_) return;
    ImGui_ImplVulkan_RenderDrawData(ImGui::GetDrawData(), cmd);
}

}  // namespace vfx::ui
