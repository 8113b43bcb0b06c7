#pragma once
// Window-free pieces of the overlay's view: where the mouse puts the split view's divider.
#include "render/renderer.hpp"

namespace vfx {

// The split view's divider position (ViewOptions::split_position) for a pointer at
// framebuffer column `framebuffer_x` over a video drawn in `video_rect` (the renderer's
// letterbox_rect): the fraction of the video's width left of the pointer, clamped to [0, 1].
// 0.5 for an empty rect.
double split_position_at(double framebuffer_x, const Rect& video_rect);

}  // namespace vfx
