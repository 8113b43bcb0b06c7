#include "overlay.hpp"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_vulkan.h>
#include <imgui_internal.h>  // ClosePopupsOverWindow, ClearActiveID

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>

#include "core/error.hpp"
#include "core/log.hpp"
#include "render/renderer.hpp"
#include "render/vk_check.hpp"
#include "render/vk_context.hpp"
#include "session/overlay_view.hpp"
#include "session/player.hpp"
#include "transport.hpp"

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
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VFX_VK(vkCreateDescriptorPool(dev, &pi, nullptr, &pool));
    pool_ = DescriptorPoolHandle(dev, pool);
    vk.set_name(pool, VK_OBJECT_TYPE_DESCRIPTOR_POOL, "overlay.descriptors");

    imgui_.device = dev;
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    imgui_.context = true;
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // no imgui.ini litter in the user's folder
    ImGui::StyleColorsDark();
    if (!ImGui_ImplGlfw_InitForVulkan(window, true)) fail("the overlay's GLFW backend failed");
    window_ = window;
    imgui_.glfw = true;

    ImGui_ImplVulkan_InitInfo info{};
    info.Instance = vk.instance();
    info.PhysicalDevice = vk.physical();
    info.Device = dev;
    info.QueueFamily = vk.queue_family();
    info.Queue = vk.queue();
    info.DescriptorPool = pool;
    info.Subpass = 0;
    info.MinImageCount = std::max(2u, min_image_count);
    info.ImageCount = std::max(info.MinImageCount, buffer_count);
    info.MSAASamples = VK_SAMPLE_COUNT_1_BIT;
    info.CheckVkResultFn = check_imgui_vk;
    if (!ImGui_ImplVulkan_Init(&info, render_pass)) fail("the overlay's Vulkan backend failed");
    imgui_.vulkan = true;

    // Upload the font atlas once, with a one-shot command buffer (start-up only; the queue is
    // idle before the pool goes).
    VkCommandPool raw_pool = VK_NULL_HANDLE;
    VkCommandPoolCreateInfo cpi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    cpi.queueFamilyIndex = vk.queue_family();
    VFX_VK(vkCreateCommandPool(dev, &cpi, nullptr, &raw_pool));
    const CommandPoolHandle cmd_pool(dev, raw_pool);
    vk.set_name(raw_pool, VK_OBJECT_TYPE_COMMAND_POOL, "overlay.font_upload");
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cai.commandPool = raw_pool;
    cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cai.commandBufferCount = 1;
    VFX_VK(vkAllocateCommandBuffers(dev, &cai, &cmd));
    vk.set_name(cmd, VK_OBJECT_TYPE_COMMAND_BUFFER, "overlay.font_upload");
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
}

Overlay::~Overlay() = default;

Overlay::ImGuiSession::~ImGuiSession() {
    if (device) vkDeviceWaitIdle(device);
    if (vulkan) ImGui_ImplVulkan_Shutdown();
    if (glfw) ImGui_ImplGlfw_Shutdown();
    if (context) ImGui::DestroyContext();
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

namespace {

const ImVec4 kErrorColour{1.0f, 0.45f, 0.4f, 1.0f};
const ImVec4 kBusyColour{1.0f, 0.85f, 0.3f, 1.0f};

// A one-line message, or the first line with the whole text (a compiler's log) in a
// scrollable box below it.
void error_box(const char* id, const std::string& text, float scale) {
    const size_t nl = text.find('\n');
    ImGui::PushStyleColor(ImGuiCol_Text, kErrorColour);
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + 420 * scale);
    ImGui::TextUnformatted(text.c_str(), nl == std::string::npos ? nullptr : text.c_str() + nl);
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
    if (nl == std::string::npos) return;
    ImGui::BeginChild(id, ImVec2(420 * scale, 140 * scale), true,
                      ImGuiWindowFlags_HorizontalScrollbar);
    ImGui::TextUnformatted(text.c_str() + nl + 1);
    ImGui::EndChild();
}

// One colour per stage of the timeline (and its legend), by index.
ImU32 stage_colour(size_t i) {
    const float hue = std::fmod(0.07f + 0.137f * static_cast<float>(i), 1.0f);
    return ImColor::HSV(hue, 0.6f, 0.95f);
}

}  // namespace

void update_overlay_state(OverlayState& s, const Player& player) {
    s.build = player.build_status();
    s.view_histograms = player.view_histograms() ? &*player.view_histograms() : nullptr;
    const Player::VideoSize& v = player.video_size();
    s.video_width = v.width;
    s.video_height = v.height;
    s.sar_num = v.sar_num;
    s.sar_den = v.sar_den;
    s.kernels_dir = player.kernels_dir();
}

bool Overlay::keyboard_busy() const {
    // (io.WantTextInput is the previous frame's: an active text field is an active item now.)
    return ImGui::GetCurrentContext() &&
           (ImGui::IsAnyItemActive() || ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId));
}

ViewOptions Overlay::view() const {
    ViewOptions v;
    v.histograms = visible_ && histograms_shown_;
    v.split = split_;
    v.split_position = split_position_;
    return v;
}

std::optional<Chain> Overlay::chain_panel(const OverlayState& s) {
    if (!editor_ready_ && s.chain) {
        editor_ = ChainEditor(*s.chain);
        sent_ = *s.chain;
        editor_ready_ = true;
    }
    if (s.build.building) ImGui::TextColored(kBusyColour, "building in the background...");
    if (!s.build.chain_error.empty()) {
        ImGui::TextColored(kErrorColour, "not applied, the previous chain keeps running:");
        error_box("chain_error", s.build.chain_error, scale_);
    }
    if (editor_.size() == 0) ImGui::TextUnformatted("(no filters)");

    // One action per frame, applied after the loop (indices stay valid while drawing).
    std::function<void()> action;
    auto guarded = [&](std::function<void()> f) {
        action = [this, f = std::move(f)] {
            try {
                f();
            } catch (const std::exception& e) {
                message_ = e.what();
                message_is_error_ = true;
            }
        };
    };
    for (size_t i = 0; i < editor_.size(); ++i) {
        const PresetStage& st = editor_.stages()[i];
        ImGui::PushID(static_cast<int>(i));
        if (ImGui::ArrowButton("##up", ImGuiDir_Up) && i > 0)
            guarded([this, i] { editor_.move(i, i - 1); });
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("move up");
        ImGui::SameLine();
        if (ImGui::ArrowButton("##down", ImGuiDir_Down) && i + 1 < editor_.size())
            guarded([this, i] { editor_.move(i, i + 1); });
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("move down");
        ImGui::SameLine();
        if (ImGui::Button("x")) guarded([this, i] { editor_.remove(i); });
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("remove");
        ImGui::SameLine();
        bool enabled = st.enabled;
        if (ImGui::Checkbox("##on", &enabled))
            guarded([this, i, enabled] { editor_.set_enabled(i, enabled); });
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", enabled ? "enabled" : "disabled");
        ImGui::SameLine();
        if (!st.enabled)
            ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
        const bool open = ImGui::TreeNodeEx("stage", ImGuiTreeNodeFlags_DefaultOpen, "%zu %s",
                                            i + 1, st.filter.name().c_str());
        if (!st.enabled) ImGui::PopStyleColor();
        if (ImGui::IsItemHovered() && !ImGui::IsMouseDragging(ImGuiMouseButton_Left))
            ImGui::SetTooltip("%s\n(drag to reorder)", st.filter.info->help.c_str());
        // Reorder by drag and drop of the stage's name onto another stage.
        if (ImGui::BeginDragDropSource()) {
            const int from = static_cast<int>(i);
            ImGui::SetDragDropPayload("VFX_STAGE", &from, sizeof(from));
            ImGui::Text("move %s", st.filter.name().c_str());
            ImGui::EndDragDropSource();
        }
        if (ImGui::BeginDragDropTarget()) {
            if (const ImGuiPayload* p = ImGui::AcceptDragDropPayload("VFX_STAGE")) {
                const auto from = static_cast<size_t>(*static_cast<const int*>(p->Data));
                guarded([this, from, i] { editor_.move(from, i); });
            }
            ImGui::EndDragDropTarget();
        }
        if (open) {
            const FilterInstance& f = st.filter;
            for (size_t k = 0; k < f.info->params.size(); ++k) {
                ParamValue v = f.values[k];
                if (edit_param(f.info->params[k], v)) {
                    const std::string name = f.info->params[k].name;
                    guarded([this, i, name, v] { editor_.set_param(i, name, v); });
                }
            }
            ImGui::TreePop();
        }
        ImGui::PopID();
    }

    // Add a filter (any registered one, with its defaults).
    const std::vector<const FilterInfo*> filters = registered_filters();
    if (!filters.empty())
        add_choice_ = std::clamp(add_choice_, 0, static_cast<int>(filters.size()) - 1);
    ImGui::SetNextItemWidth(160 * scale_);
    if (!filters.empty() &&
        ImGui::BeginCombo("##add", filters[static_cast<size_t>(add_choice_)]->name.c_str())) {
        for (size_t k = 0; k < filters.size(); ++k) {
            if (ImGui::Selectable(filters[k]->name.c_str(), static_cast<int>(k) == add_choice_))
                add_choice_ = static_cast<int>(k);
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", filters[k]->help.c_str());
        }
        ImGui::EndCombo();
    }
    ImGui::SameLine();
    if (ImGui::Button("add") && !filters.empty()) {
        const std::string name = filters[static_cast<size_t>(add_choice_)]->name;
        guarded([this, name] { editor_.add(name); });
    }

    // Presets.
    ImGui::SetNextItemWidth(220 * scale_);
    ImGui::InputTextWithHint("##preset", "preset file (.json)", preset_path_.data(),
                             preset_path_.size());
    ImGui::SameLine();
    if (ImGui::Button("load")) {
        const std::string path = preset_path_.data();
        guarded([this, path] {
            editor_.load_preset(path);
            message_ = fmt::format("loaded {}", path);
            message_is_error_ = false;
        });
    }
    ImGui::SameLine();
    if (ImGui::Button("save")) {
        const std::string path = preset_path_.data();
        guarded([this, path] {
            editor_.save_preset(path);
            message_ = fmt::format("saved {}", path);
            message_is_error_ = false;
        });
    }
    if (!message_.empty()) {
        if (message_is_error_)
            error_box("editor_error", message_, scale_);
        else
            ImGui::TextUnformatted(message_.c_str());
    }

    if (action) action();
    Chain now = editor_.chain();
    if (now == sent_) return std::nullopt;
    sent_ = now;
    return now;
}

void Overlay::status_panel(const OverlayState& s) {
    ImGui::Text("%s", s.source.c_str());
    ImGui::Text("%.1f fps   frame %lld   dropped %lld", s.fps, static_cast<long long>(s.frames),
                static_cast<long long>(s.dropped));
    if (s.corrupt || s.concealed)
        ImGui::Text("damaged input: %lld packets, %lld frames concealed",
                    static_cast<long long>(s.corrupt), static_cast<long long>(s.concealed));
    const std::string pos = s.duration_s > 0
                                ? format_time(s.position_s) + " / " + format_time(s.duration_s)
                                : format_time(s.position_s);
    ImGui::Text("%s   %s   speed %.3gx%s", pos.c_str(), s.paused ? "paused" : "playing", s.speed,
                s.loop ? "   loop" : "");
    if (s.latency_ms >= 0) ImGui::Text("latency (capture to present): %.1f ms", s.latency_ms);
    ImGui::Text("decode queue: %zu / %zu", s.queue_depth, s.queue_capacity);
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + 440 * scale_);
    ImGui::TextUnformatted(s.cl_device.c_str());
    ImGui::TextUnformatted(s.vk_device.c_str());
    ImGui::PopTextWrapPos();
    ImGui::Text("interop: %s", s.interop.c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", s.interop_reason.c_str());
    ImGui::Text("split view (V): %s", split_ ? "on, drag on the video" : "off");
    if (!s.screenshot.empty()) {
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + 440 * scale_);
        if (s.screenshot_failed)
            ImGui::TextColored(kErrorColour, "%s", s.screenshot.c_str());
        else
            ImGui::TextUnformatted(s.screenshot.c_str());
        ImGui::PopTextWrapPos();
    }
    if (!s.kernels_dir.empty()) {
        ImGui::Text("kernels: %s (watched)", s.kernels_dir.c_str());
        if (s.build.reloads > 0)
            ImGui::Text("reloaded %llu times, last: %s",
                        static_cast<unsigned long long>(s.build.reloads),
                        s.build.last_reload.c_str());
    }
}

void Overlay::timing_panel(const OverlayState& s) {
    if (!s.timing) return;
    if (!timeline_.frozen()) timeline_.update(*s.timing);
    bool paused = timeline_.frozen();
    if (ImGui::Checkbox("pause", &paused)) timeline_.set_frozen(paused);
    ImGui::SameLine();
    ImGui::TextDisabled("last %zu frames, stacked by stage", timeline_.frames());
    if (timeline_.frames() == 0) return;

    // Stacked bars, one per frame, oldest on the left; budget lines for 60 and 120 fps.
    const ImVec2 size(400 * scale_, 120 * scale_);
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("timeline", size);
    const bool hovered = ImGui::IsItemHovered();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(p0, ImVec2(p0.x + size.x, p0.y + size.y), IM_COL32(20, 20, 24, 220));
    const double top = std::max(timeline_.max_stacked_ms(), 1000.0 / 60.0) * 1.1;
    const auto y_of = [&](double ms) {
        return p0.y + size.y - static_cast<float>(ms / top) * size.y;
    };
    const float bar = size.x / static_cast<float>(timeline_.capacity());
    const size_t n = timeline_.frames();
    const size_t ns = timeline_.stages().size();
    const float x_start = p0.x + size.x - bar * static_cast<float>(n);
    for (size_t f = 0; f < n; ++f) {
        const float x0 = x_start + bar * static_cast<float>(f);
        const float x1 = x0 + std::max(1.0f, bar - (bar > 3 ? 1.0f : 0.0f));
        double acc = 0;
        for (size_t st = 0; st < ns; ++st) {
            const double ms = timeline_.ms(f, st);
            if (ms <= 0) continue;
            dl->AddRectFilled(ImVec2(x0, y_of(acc + ms)), ImVec2(x1, y_of(acc)), stage_colour(st));
            acc += ms;
        }
    }
    for (const auto& [fps, label] : {std::pair{60.0, "60 fps"}, std::pair{120.0, "120 fps"}}) {
        const float y = y_of(1000.0 / fps);
        dl->AddLine(ImVec2(p0.x, y), ImVec2(p0.x + size.x, y), IM_COL32(255, 255, 255, 150));
        // 60 fps labelled on the left, 120 fps on the right: they never overlap.
        const float x = fps < 100 ? p0.x + 3 : p0.x + size.x - ImGui::CalcTextSize(label).x - 3;
        dl->AddText(ImVec2(x, y - ImGui::GetTextLineHeight()), IM_COL32(255, 255, 255, 200), label);
    }
    if (hovered) {
        const float mx = ImGui::GetIO().MousePos.x;
        if (mx >= x_start) {
            const auto f = std::min(n - 1, static_cast<size_t>((mx - x_start) / bar));
            std::string tip = fmt::format("{:.2f} ms stacked, {:.2f} ms frame interval",
                                          timeline_.stacked_ms(f), timeline_.frame_ms(f));
            for (size_t st = 0; st < ns; ++st)
                if (timeline_.ms(f, st) > 0)
                    tip +=
                        fmt::format("\n{}: {:.3f} ms", timeline_.stages()[st], timeline_.ms(f, st));
            ImGui::SetTooltip("%s", tip.c_str());
        }
    }

    // The legend and the statistics of the window, per stage.
    if (ImGui::BeginTable("stages", 5, ImGuiTableFlags_SizingFixedFit)) {
        for (const char* h : {"stage (ms)", "mean", "p50", "p95", "p99"})
            ImGui::TableSetupColumn(h);
        ImGui::TableHeadersRow();
        auto row = [](const Summary& sm) {
            for (double v : {sm.mean, sm.p50, sm.p95, sm.p99}) {
                ImGui::TableNextColumn();
                ImGui::Text("%.3f", v);
            }
        };
        for (size_t st = 0; st < ns; ++st) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            const ImVec4 c = ImGui::ColorConvertU32ToFloat4(stage_colour(st));
            ImGui::ColorButton("##c", c, ImGuiColorEditFlags_NoTooltip,
                               ImVec2(ImGui::GetTextLineHeight(), ImGui::GetTextLineHeight()));
            ImGui::SameLine();
            ImGui::TextUnformatted(timeline_.stages()[st].c_str());
            row(timeline_.summaries()[st]);
        }
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted("frame interval");
        row(timeline_.frame_summary());
        ImGui::EndTable();
    }
}

void Overlay::histogram_panel(const OverlayState& s) {
    static const char* channel[] = {"R", "G", "B", "luma"};
    static const ImVec4 colours[] = {
        {1, 0.3f, 0.3f, 1}, {0.3f, 1, 0.3f, 1}, {0.4f, 0.5f, 1, 1}, {0.9f, 0.9f, 0.9f, 1}};
    // ImGui draws at most one bar per pixel of the plot's width and skips the values between
    // (at 195 px, 61 of 256 bins: a flat frame's one full bin could vanish), so the 256 bins
    // are summed into as many as the width holds: 256, 128, 64 or 32.
    const float width = 195 * scale_;
    int shown = 256;
    while (shown > 32 && static_cast<float>(shown) > width)
        shown /= 2;
    auto plot = [&](const char* id, const Histogram& h, int c) {
        std::array<float, 256> bins{};
        float top = 1;
        const int fold = 256 / shown;
        for (int i = 0; i < 256; ++i)
            bins[static_cast<size_t>(i / fold)] += static_cast<float>(h.at(c, i));
        for (int i = 0; i < shown; ++i)
            top = std::max(top, bins[static_cast<size_t>(i)]);
        ImGui::PushStyleColor(ImGuiCol_PlotHistogram, colours[c]);
        ImGui::PlotHistogram(id, bins.data(), shown, 0, channel[c], 0.0f, top,
                             ImVec2(width, 36 * scale_));
        ImGui::PopStyleColor();
    };
    if (s.view_histograms) {
        if (ImGui::BeginTable("before_after", 2, ImGuiTableFlags_SizingFixedFit)) {
            ImGui::TableSetupColumn("before (chain input)");
            ImGui::TableSetupColumn("after (chain output)");
            ImGui::TableHeadersRow();
            for (int c = 0; c < 4; ++c) {
                ImGui::PushID(c);
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                plot("##before", s.view_histograms->before, c);
                ImGui::TableNextColumn();
                plot("##after", s.view_histograms->after, c);
                ImGui::PopID();
            }
            ImGui::EndTable();
        }
    } else {
        ImGui::TextDisabled("(waiting for the first counted frame)");
    }
    if (s.histogram) {
        ImGui::TextUnformatted("the chain's histogram filter:");
        for (int c = 0; c < 4; ++c) {
            ImGui::PushID(10 + c);
            plot("##filter", *s.histogram, c);
            ImGui::PopID();
        }
    }
}

void Overlay::drag_split(const OverlayState& s) {
    const ImGuiIO& io = ImGui::GetIO();
    if (!split_ || io.WantCaptureMouse || !ImGui::IsMouseDown(ImGuiMouseButton_Left)) return;
    const auto fb_w = static_cast<uint32_t>(io.DisplaySize.x * io.DisplayFramebufferScale.x);
    const auto fb_h = static_cast<uint32_t>(io.DisplaySize.y * io.DisplayFramebufferScale.y);
    const Rect r = letterbox_rect(fb_w, fb_h, s.video_width, s.video_height, s.sar_num, s.sar_den);
    split_position_ = split_position_at(io.MousePos.x * io.DisplayFramebufferScale.x, r);
}

std::optional<Chain> Overlay::build(const OverlayState& s, float content_scale) {
    std::optional<Chain> edited;
    ImGui_ImplVulkan_NewFrame();
    ImGui_ImplGlfw_NewFrame();
#if IMGUI_VERSION_NUM < 18700  // from 1.87 its input queue keeps every key event itself
    {
        // Quick taps (note_key_press): a key already released again is held down for this
        // frame and let go before the next, with its modifier flag. A key held for the last
        // frame is let go for this one and its new tap held for the next (Backspace twice
        // between two frames deletes two characters, one a frame).
        ImGuiIO& io = ImGui::GetIO();
        const auto down = [&](int k) { return glfwGetKey(window_, k) == GLFW_PRESS; };
        const std::vector<int> was_held = std::move(held_);
        held_.clear();
        for (int k : was_held)
            io.KeysDown[k] = down(k);
        std::vector<int> later;
        for (int k : taps_) {
            if (k < 0 || k >= IM_ARRAYSIZE(io.KeysDown) || down(k)) continue;
            if (std::ranges::count(was_held, k) || std::ranges::count(held_, k)) {
                later.push_back(k);
            } else {
                io.KeysDown[k] = true;
                held_.push_back(k);
            }
        }
        taps_ = std::move(later);
        io.KeyCtrl = io.KeysDown[GLFW_KEY_LEFT_CONTROL] || io.KeysDown[GLFW_KEY_RIGHT_CONTROL];
        io.KeyShift = io.KeysDown[GLFW_KEY_LEFT_SHIFT] || io.KeysDown[GLFW_KEY_RIGHT_SHIFT];
        io.KeyAlt = io.KeysDown[GLFW_KEY_LEFT_ALT] || io.KeysDown[GLFW_KEY_RIGHT_ALT];
        io.KeySuper = io.KeysDown[GLFW_KEY_LEFT_SUPER] || io.KeysDown[GLFW_KEY_RIGHT_SUPER];
    }
#endif
    ImGui::NewFrame();
    if (release_keyboard_) {
        ImGui::ClosePopupsOverWindow(nullptr, true);
        ImGui::ClearActiveID();
        release_keyboard_ = false;
    }
    if (content_scale != scale_) {
        ImGui::GetIO().FontGlobalScale = content_scale;
        ImGuiStyle& style = ImGui::GetStyle();
        style = ImGuiStyle();
        ImGui::StyleColorsDark();
        style.ScaleAllSizes(content_scale);
        scale_ = content_scale;
    }
    drag_split(s);
    if (visible_) {
        const ImVec2 display = ImGui::GetIO().DisplaySize;
        // The panels end above the transport bar (a line of text and the 14-pixel bar, in
        // its window's padding), scrolling what does not fit; when the window's size changes,
        // a panel at its default place (the timing panel against the right edge) stays there
        // and one the user moved is kept inside the window.
        const float margin = 10 * scale_;
        const float bar = ImGui::GetTextLineHeightWithSpacing() + 14 * scale_ +
                          2 * ImGui::GetStyle().WindowPadding.y;
        const float max_h = std::max(100.0f, display.y - bar - 2 * margin);
        const bool resized = display.x != last_display_.x || display.y != last_display_.y;
        auto keep_inside = [&](const Placement& p) {
            if (!resized || !p.known) return;
            ImVec2 pos = p.pos;
            pos.x = std::clamp(pos.x, 0.0f, std::max(0.0f, display.x - p.size.x));
            pos.y = std::clamp(pos.y, 0.0f, std::max(0.0f, display.y - bar - p.size.y));
            ImGui::SetNextWindowPos(pos, ImGuiCond_Always);
        };
        auto placement = [&]() {
            return Placement{ImGui::GetWindowPos(), ImGui::GetWindowSize(), true};
        };
        last_display_ = display;

        ImGui::SetNextWindowPos(ImVec2(margin, margin), ImGuiCond_FirstUseEver);
        keep_inside(vfx_panel_);
        ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(FLT_MAX, max_h));
        ImGui::SetNextWindowBgAlpha(0.8f);
        ImGui::Begin("vfx", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
        vfx_panel_ = placement();
        if (ImGui::CollapsingHeader("Chain", ImGuiTreeNodeFlags_DefaultOpen))
            edited = chain_panel(s);
        if (!s.build.kernel_error.empty()) {
            ImGui::TextColored(kErrorColour, "kernel reload failed, the last good kernels run:");
            error_box("kernel_error", s.build.kernel_error, scale_);
        }
        if (ImGui::CollapsingHeader("Status", ImGuiTreeNodeFlags_DefaultOpen)) status_panel(s);
        if (s.extra_ui) s.extra_ui();
        ImGui::End();

        // Right-aligned at first (a fixed width, so its place is known before its content
        // is), then where the user leaves it.
        const ImVec2 right(display.x - margin, margin);
        ImGui::SetNextWindowPos(right, ImGuiCond_FirstUseEver, ImVec2(1, 0));
        if (resized && timing_at_right_)
            ImGui::SetNextWindowPos(right, ImGuiCond_Always, ImVec2(1, 0));
        else
            keep_inside(timing_panel_);
        ImGui::SetNextWindowSizeConstraints(ImVec2(440 * scale_, 0), ImVec2(440 * scale_, max_h));
        ImGui::SetNextWindowBgAlpha(0.8f);
        ImGui::Begin("timing", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
        timing_panel_ = placement();
        timing_at_right_ = std::abs(timing_panel_.pos.x + timing_panel_.size.x - right.x) < 2 &&
                           std::abs(timing_panel_.pos.y - right.y) < 2;
        if (ImGui::CollapsingHeader("Frame timing", ImGuiTreeNodeFlags_DefaultOpen))
            timing_panel(s);
        histograms_shown_ = ImGui::CollapsingHeader("Histogram", ImGuiTreeNodeFlags_DefaultOpen);
        if (histograms_shown_) histogram_panel(s);
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
