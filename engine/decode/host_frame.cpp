#include "decode/host_frame.hpp"

#include <cstdint>

extern "C" {
#include <libavutil/frame.h>
}

namespace vfx {

Plane HostFrame::plane(int i) const {
    if (!av || i < 0 || i > 2) return {};
    int used = 1;
    switch (format.layout) {
        case PlaneLayout::yuv_planar:
            used = 3;
            break;
        case PlaneLayout::yuv_semiplanar:
            used = 2;
            break;
        case PlaneLayout::yuyv:
        case PlaneLayout::rgba:
        case PlaneLayout::gray:
            used = 1;
            break;
    }
    if (i >= used) return {};
    return {av->data[i], av->linesize[i]};
}

}  // namespace vfx
