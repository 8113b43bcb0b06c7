#version 450
// The video pass as a compute shader: one invocation per target pixel, the video inside the
// destination rectangle, opaque black outside it (the bars). A compute pass runs on every
// multiprocessor of the GPU, where a fragment pass runs where the raster hardware is: on a
// data-centre part (an H100 rasterises on a few of its 132 SMs) a full-screen fragment pass
// costs a millisecond and more at 4K.
#include "video_sample.glsl"

layout(local_size_x = 32, local_size_y = 8) in;

// The target (a swapchain or offscreen image, layout GENERAL). No format qualifier: the
// renderer enables shaderStorageImageWriteWithoutFormat (swapchains are often BGRA).
layout(set = 0, binding = 1) writeonly uniform image2D target;

void main() {
    uvec2 p = gl_GlobalInvocationID.xy;
    if (any(greaterThanEqual(p, uvec2(imageSize(target))))) return;
    // Inside the rectangle when p - origin (wrapping below it) is under its size.
    uvec2 q = p - uvec2(pc.dst_origin);
    vec4 c = vec4(0.0, 0.0, 0.0, 1.0);
    if (all(lessThan(q, pc.dst_size))) c = video_color(vec2(p) + 0.5 - pc.dst_origin);
    imageStore(target, ivec2(p), c);
}
