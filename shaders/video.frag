#version 450
// The video pass as a fragment shader (the renderer's fallback where its target cannot be a
// storage image; see video.comp): one full-screen triangle, and only fragments inside the
// destination rectangle run (the renderer sets the scissor to it); the rest of the target keeps
// the clear colour (black bars).
#include "video_sample.glsl"

layout(location = 0) out vec4 out_color;

void main() {
    out_color = video_color(gl_FragCoord.xy - pc.dst_origin);
}
