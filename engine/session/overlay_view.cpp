#include "session/overlay_view.hpp"

#include <algorithm>

namespace vfx {

double split_position_at(double framebuffer_x, const Rect& video_rect) {
    if (video_rect.width == 0) return 0.5;
    const double f = (framebuffer_x - video_rect.x) / static_cast<double>(video_rect.width);
    return std::clamp(f, 0.0, 1.0);
}

}  // namespace vfx
