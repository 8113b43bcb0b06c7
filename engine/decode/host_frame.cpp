#include "decode/host_frame.hpp"

#include <cstdint>

extern "C" {
#include <libavutil/frame.h>
}

namespace vfx {

int HostFrame::plane_count() const {
    switch (format.layout) {
        case PlaneLayout::yuv_planar:
            return 3;
        case PlaneLayout::yuv_semiplanar:
            return 2;
        case PlaneLayout::yuyv:
        case PlaneLayout::rgba:
        case PlaneLayout::gray:
            return 1;
    }
    return 1;
}

Plane HostFrame::plane(int i) const {
    if (!av || i < 0 || i >= plane_count()) return {};
    return {av->data[i], av->linesize[i]};
}

}  // namespace vfx
