#pragma once
// A decoded frame in host memory, as the source thread hands it to compute.
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/format.hpp"
#include "decode/frame_allocator.hpp"

struct AVFrame;

namespace vfx {

struct Plane {
    const uint8_t* data = nullptr;
    int stride = 0;  // bytes per row
};

struct HostFrame {
    std::shared_ptr<AVFrame> av;  // owns the pixels (decoder output or the swscale fallback's)
    SourceFormat format;          // layout of the planes below
    ColorInfo color;              // matrix and range the conversion must use
    int width = 0;
    int height = 0;
    int sar_num = 1, sar_den = 1;  // sample aspect ratio (1:1 when unknown)
    int rotation = 0;              // degrees clockwise from the stream's display matrix

    int64_t index = 0;        // 0, 1, 2 ... in decode order of output
    int64_t pts = 0;          // in the stream's time base; AV_NOPTS_VALUE replaced by a count
    double time_s = 0.0;      // pts in seconds from the stream's start; keeps growing across loops
                              // (within one seek generation)
    double position_s = 0.0;  // where it is in the input, seconds from its start: time_s less
                              // the loops (what a seek bar shows and Source::seek() takes)
    uint64_t generation = 0;  // Source::seek() calls made before it was decoded
    double decode_ms = 0;     // host time spent demuxing + decoding this frame (incl. fallback)
    std::chrono::steady_clock::time_point captured_at;  // when its packet left the demuxer (a
                                                        // live source's capture time)
    std::chrono::steady_clock::time_point ready_at;     // when it entered the queue

    std::string pixel_format;       // the decoder's pixel format name, e.g. "yuv420p10le"
    bool swscale_fallback = false;  // true when libswscale brought it to `rgba`

    // Direct decode (SourceOptions::allocator, decode/frame_allocator.hpp): the allocator's
    // block every plane of this frame lives in, and plane(i)'s byte offset from block->data().
    // Null when the planes are elsewhere (FFmpeg's own buffers, the swscale fallback's, a copy
    // made for byte order or orientation). `av`'s buffer holds the block too; the planes are
    // read-only (see the contract in decode/frame_allocator.hpp).
    std::shared_ptr<const FrameBlock> block;
    std::array<size_t, 3> block_offset{};

    Plane plane(int i) const;  // i < 3; layout-dependent planes, unused ones are null
    int plane_count() const;   // planes the layout uses (1 to 3)
};

}  // namespace vfx
