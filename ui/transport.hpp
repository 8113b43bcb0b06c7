#pragma once
// The transport bar: position / duration, paused, speed, loop (live sources: the measured
// latency) and a seek bar, in an ImGui window of its own along the bottom of the player window.
// Drawn through OverlayState::extra_ui, so it shows and hides with the overlay and never
// touches the video's own pixels. Clicking the bar seeks there; dragging seeks as it goes (at
// most every kDragSeekInterval) and once more where the button is released.
#include <chrono>
#include <optional>
#include <string>

#include "overlay.hpp"

namespace vfx::ui {

// "1:02.5" (or "1:02:03.0" past an hour).
std::string format_time(double seconds);

class TransportBar {
public:
    static constexpr double kDragSeekInterval = 0.1;  // seconds

    // Call inside the overlay's ImGui frame. Returns a seek target in seconds when the user
    // clicked or dragged on the bar this frame.
    std::optional<double> draw(const OverlayState& s);

private:
    std::optional<double> dragging_;   // where the bar is being dragged to
    std::optional<double> last_sent_;  // the drag's last seek target
    std::chrono::steady_clock::time_point last_sent_at_;
};

}  // namespace vfx::ui
