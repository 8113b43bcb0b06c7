#pragma once
// A test clip whose frames say which frame they are: frame N is flat grey with luma 16 + 2N
// (limited range, N < 110), so a test can tell the frame it got from its pixels as well as
// from its timestamp. H.264 at 25 fps with B-frames and a keyframe every 10 frames, so seeks
// land between keyframes and decoding reorders.
#include <cmath>
#include <cstdint>
#include <string>

#include "decode/host_frame.hpp"
#include "support/media.hpp"

namespace vfx::test {

inline std::string numbered_clip(int frames = 100) {
    return make_media(
        "numbered" + std::to_string(frames) + ".mp4",
        "-f lavfi -i \"color=c=black:s=64x48:r=25,format=yuv420p,geq=lum='16+2*N':cb=128:cr=128\" "
        "-frames:v " +
            std::to_string(frames) +
            " -c:v libx264 -qp 2 -preset veryfast "
            "-x264-params bframes=2:b-adapt=0:keyint=10:min-keyint=10:scenecut=0 -pix_fmt yuv420p");
}

// The frame number a numbered_clip() frame carries (its centre's luma).
inline int frame_number(const HostFrame& f) {
    const Plane y = f.plane(0);
    const int v = y.data[(f.height / 2) * y.stride + f.width / 2];
    return static_cast<int>(std::lround((v - 16) / 2.0));
}

// The frame number from a displayed grey level (limited-range luma shown full range).
inline int frame_number_of_grey(uint8_t grey) {
    const double luma = 16.0 + grey * 219.0 / 255.0;
    return static_cast<int>(std::lround((luma - 16.0) / 2.0));
}

}  // namespace vfx::test
