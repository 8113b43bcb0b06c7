#version 450
// Full-screen triangle: three vertices from gl_VertexIndex, no vertex buffer. The fragment
// shader works in framebuffer pixels (gl_FragCoord), so no varyings are needed.
void main() {
    vec2 p = vec2(float((gl_VertexIndex << 1) & 2), float(gl_VertexIndex & 2));
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
