#include "transport.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "core/log.hpp"

namespace vfx::ui {

std::string format_time(double seconds) {
    if (!(seconds >= 0)) seconds = 0;
    const auto tenths = static_cast<long long>(std::floor(seconds * 10));
    const long long s = tenths / 10, h = s / 3600, m = (s / 60) % 60;
    if (h > 0) return fmt::format("{}:{:02}:{:02}.{}", h, m, s % 60, tenths % 10);
    return fmt::format("{}:{:02}.{}", m, s % 60, tenths % 10);
}

std::optional<double> TransportBar::draw(const OverlayState& s) {
    using Clock = std::chrono::steady_clock;
    const ImGuiIO& io = ImGui::GetIO();
    const float scale = io.FontGlobalScale > 0 ? io.FontGlobalScale : 1.0f;
    // Full width along the bottom edge; the height fits the contents.
    ImGui::SetNextWindowPos(ImVec2(0, io.DisplaySize.y), ImGuiCond_Always, ImVec2(0, 1));
    ImGui::SetNextWindowSize(ImVec2(io.DisplaySize.x, 0), ImGuiCond_Always);
    ImGui::SetNextWindowBgAlpha(0.6f);
    constexpr ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                       ImGuiWindowFlags_NoSavedSettings |
                                       ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav;
    std::optional<double> seek;
    if (!ImGui::Begin("transport", nullptr, flags)) {
        ImGui::End();
        return seek;
    }
    const bool seekable = s.duration_s > 0;
    // While the bar is dragged, the text shows where it is being dragged to.
    const double shown = dragging_ ? *dragging_ : s.position_s;
    std::string text = seekable ? format_time(shown) + " / " + format_time(s.duration_s)
                                : format_time(shown) + (s.latency_ms >= 0 ? "  live" : "");
    text += s.paused ? "   paused" : "   playing";
    if (s.speed != 1) text += fmt::format("   x{:g}", s.speed);
    if (s.loop) text += "   loop";
    if (s.latency_ms >= 0) text += fmt::format("   latency {:.1f} ms", s.latency_ms);
    ImGui::TextUnformatted(text.c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("   Space pause  . , step  arrows seek  [ ] speed  L loop  S shot");

    // The bar, last: its centre is WindowPadding.y + h / 2 above the window's bottom edge.
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float w = std::max(1.0f, ImGui::GetContentRegionAvail().x);
    const float h = 14 * scale;
    ImGui::InvisibleButton("seekbar", ImVec2(w, h));
    const double frac_at_mouse = std::clamp((io.MousePos.x - p.x) / w, 0.0f, 1.0f);
    const double at_mouse = frac_at_mouse * s.duration_s;
    dragging_.reset();
    if (seekable && ImGui::IsItemActive()) {
        dragging_ = at_mouse;
        const auto now = Clock::now();
        const bool moved = !last_sent_ || std::abs(*last_sent_ - at_mouse) > 1e-3;
        if (ImGui::IsItemActivated() ||
            (moved &&
             std::chrono::duration<double>(now - last_sent_at_).count() >= kDragSeekInterval)) {
            seek = at_mouse;
            last_sent_ = at_mouse;
            last_sent_at_ = now;
        }
    }
    if (seekable && ImGui::IsItemDeactivated()) {
        if (!last_sent_ || std::abs(*last_sent_ - at_mouse) > 1e-3) seek = at_mouse;
        last_sent_.reset();
    }
    if (seekable && ImGui::IsItemHovered() && !ImGui::IsItemActive())
        ImGui::SetTooltip("%s", format_time(at_mouse).c_str());
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 q(p.x + w, p.y + h);
    dl->AddRectFilled(p, q, IM_COL32(60, 60, 60, 220), 3 * scale);
    if (seekable) {
        const double pos = dragging_ ? *dragging_ : s.position_s;
        const float frac = static_cast<float>(std::clamp(pos / s.duration_s, 0.0, 1.0));
        const float x = p.x + frac * w;
        dl->AddRectFilled(p, ImVec2(x, q.y), IM_COL32(70, 140, 230, 230), 3 * scale);
        dl->AddCircleFilled(ImVec2(x, p.y + h / 2), h * 0.6f, IM_COL32(235, 235, 235, 255));
    }
    ImGui::End();
    return seek;
}

}  // namespace vfx::ui
