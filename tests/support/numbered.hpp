#pragma once
// A test clip whose frames say which frame they are: frame N is flat grey with luma
// 16 + step * N (limited range, step * N <= 219), so a test can tell the frame it got from its
// pixels as well as from its timestamp. H.264 (default 25 fps) with B-frames and a keyframe
// every 10 frames, so seeks land between keyframes and decoding reorders.
#include <cmath>
#include <cstdint>
#include <string>

#include "decode/host_frame.hpp"
#include "support/media.hpp"

namespace vfx::test {

inline std::string numbered_clip(int frames = 100, int fps = 25, int step = 2,
                                 const std::string& size = "64x48") {
    return make_media(
        "numbered" + std::to_string(frames) + "_" + std::to_string(fps) + "_" +
            std::to_string(step) + "_" + size + ".mp4",
        "-f lavfi -i \"color=c=black:s=" + size + ":r=" + std::to_string(fps) +
            ",format=yuv420p,geq=lum='16+" + std::to_string(step) +
            "*N':cb=128:cr=128\" -frames:v " + std::to_string(frames) +
            " -c:v libx264 -qp 2 -preset veryfast "
            "-x264-params bframes=2:b-adapt=0:keyint=10:min-keyint=10:scenecut=0 -pix_fmt yuv420p");
}

// The frame number a numbered_clip() frame carries (its centre's luma).
inline int frame_number(const HostFrame& f, int step = 2) {
    const Plane y = f.plane(0);
    const int v = y.data[(f.height / 2) * y.stride + f.width / 2];
    return static_cast<int>(std::lround((v - 16) / static_cast<double>(step)));
}

// The frame number from a displayed grey level (limited-range luma shown full range).
inline int frame_number_of_grey(int grey, int step = 2) {
    return static_cast<int>(std::lround(grey * 219.0 / 255.0 / step));
}

}  // namespace vfx::test
