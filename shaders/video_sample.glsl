// The video pass's sampling, shared by video.frag (the fragment pass) and video.comp (the
// compute pass): reads the frame straight from a storage buffer in the working format (the
// zero-copy path: the buffer is memory OpenCL writes) and filters it bilinearly.
//
//   rgba8  (format 0): one uint per pixel, R in the low byte (unpackUnorm4x8)
//   rgba16 (format 1): two uints per pixel, (R | G << 16), (B | A << 16) (unpackUnorm2x16)
//   rows are pitch_words uints apart; pixel (0, 0) is word base_word.
//
// Rotation (a stream's display matrix): the picture is shown turned `rotation` quarter turns
// clockwise. A destination pixel d inside the rectangle maps to the source position
//   0: (d.x, d.y) * scale        1 (90 cw):  (d.y * scale.x, H - d.x * scale.y)
//   2: (W, H) - d * scale        3 (270 cw): (W - d.y * scale.x, d.x * scale.y)
// where scale is in source pixels per destination pixel along the source's x and y.
layout(std430, set = 0, binding = 0) readonly buffer Frame {
    uint words[];
} frame;

// Matches Renderer::VideoPush in engine/render/renderer.cpp (std430 offsets).
layout(push_constant) uniform Push {
    uint width;        // source size in pixels
    uint height;
    uint pitch_words;  // row pitch in uints
    uint format;       // 0 rgba8, 1 rgba16
    uint base_word;    // first word of the frame inside the bound range
    uint rotation;     // quarter turns clockwise, 0..3
    vec2 dst_origin;   // destination rectangle origin, framebuffer pixels (whole numbers)
    vec2 scale;        // source pixels per destination pixel (x, y)
    uvec2 dst_size;    // destination rectangle size in pixels
} pc;

vec4 fetch(uint x, uint y) {
    uint row = pc.base_word + y * pc.pitch_words;
    if (pc.format == 0u) return unpackUnorm4x8(frame.words[row + x]);
    uint i = row + 2u * x;
    return vec4(unpackUnorm2x16(frame.words[i]), unpackUnorm2x16(frame.words[i + 1u]));
}

// The colour of the destination pixel whose centre is at d, relative to the rectangle's
// origin (a pixel centre: whole numbers + 0.5). Opaque: the display shows no alpha.
vec4 video_color(vec2 d) {
    // Source position in texel units with texel centres at integers: a 1:1 mapping lands
    // exactly on texel centres (weight 0), so an unscaled frame is reproduced exactly.
    vec2 size = vec2(float(pc.width), float(pc.height));
    vec2 src;
    if (pc.rotation == 0u) {
        src = d * pc.scale;
    } else if (pc.rotation == 1u) {
        src = vec2(d.y * pc.scale.x, size.y - d.x * pc.scale.y);
    } else if (pc.rotation == 2u) {
        src = size - d * pc.scale;
    } else {
        src = vec2(size.x - d.y * pc.scale.x, d.x * pc.scale.y);
    }
    vec2 s = src - 0.5;
    vec2 f = floor(s);
    vec2 t = s - f;
    ivec2 hi = ivec2(int(pc.width) - 1, int(pc.height) - 1);
    ivec2 p0 = clamp(ivec2(f), ivec2(0), hi);  // clamp to edge
    ivec2 p1 = clamp(ivec2(f) + 1, ivec2(0), hi);
    vec4 c00 = fetch(uint(p0.x), uint(p0.y));
    vec4 c10 = fetch(uint(p1.x), uint(p0.y));
    vec4 c01 = fetch(uint(p0.x), uint(p1.y));
    vec4 c11 = fetch(uint(p1.x), uint(p1.y));
    vec4 c = mix(mix(c00, c10, t.x), mix(c01, c11, t.x), t.y);
    return vec4(c.rgb, 1.0);
}
