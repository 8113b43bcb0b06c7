#pragma once
// Direct decode: the decoder writes a frame's planes straight into memory its consumer chose
// (e.g. pinned blocks the OpenCL upload reads by DMA, compute/pinned_pool.hpp), instead of
// FFmpeg's own buffers that the consumer would copy. No OpenCL here: the decoder sees host
// memory only.
//
// How the source uses it (SourceOptions::allocator, decode/source.cpp): it installs an
// AVCodecContext::get_buffer2 callback. For a frame format the conversion reads directly (the
// planar, semi-planar and packed layouts of core/format.hpp that the source does not byte-swap,
// software frames only) the callback asks allocate() for ONE block per frame and lays every
// plane out in it the way avcodec_default_get_buffer2 would: the same linesizes (from
// avcodec_align_dimensions2, multiples of FFmpeg's STRIDE_ALIGN), each plane starting at a
// multiple of A = max(64, STRIDE_ALIGN, av_cpu_max_align()) bytes, 16 + A - 1 bytes of slack
// after each plane. Plane offsets and pitches vary with the codec: consumers read them from
// the frame (HostFrame::block_offset, Plane::stride), never assume them.
// Anything else (another format, hardware frames, a decoder without AV_CODEC_CAP_DR1, a
// refused or failed allocation) goes to avcodec_default_get_buffer2: such frames keep
// HostFrame::block null and take the consumer's copy path.
//
// Ownership and synchronisation contract (crossed by the decoder threads, the source thread,
// the consumer's threads and the device):
//  - allocate() and the release of a block (the last shared_ptr to it going away) may run on
//    any thread, concurrently: FFmpeg's frame threading calls get_buffer2 from its decoder
//    threads, and frames are released wherever their last holder drops them.
//  - A block handed out belongs to one AVFrame buffer (AVBufferRef) until that buffer's last
//    reference is gone, and to every holder of a shared_ptr to it (HostFrame::block, a
//    consumer's in-flight upload). Only the decoder writes it, and only while decoding that
//    frame; once the frame left the decoder (avcodec_receive_frame) its planes are read-only
//    for everyone, the decoder included (it may still read them as a reference frame).
//  - The allocator may hand the block out again only after every shared_ptr to it is gone, so
//    a consumer that reads the planes asynchronously (a DMA) keeps a shared_ptr (or the
//    frame's AVFrame reference, which holds one) until that read completed.
//  - The allocator must stay valid while any block it handed out is alive: blocks are
//    released after the source, and after the allocator's other owners, in any order. An
//    implementation keeps itself alive from its blocks (shared ownership).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace vfx {

// One allocation: `size()` bytes of host memory at `data()`, valid while the block is alive.
class FrameBlock {
public:
    virtual ~FrameBlock() = default;
    virtual uint8_t* data() const = 0;
    virtual size_t size() const = 0;
};

class FrameAllocator {
public:
    virtual ~FrameAllocator() = default;
    // A block of at least `bytes` bytes (any alignment: the source asks for room to align
    // the planes itself), or nullptr when the allocator will not (a bound reached, an
    // allocation failure): the caller falls back to its own buffers. Thread-safe; must not
    // throw. The block goes back to the allocator when its last shared_ptr is released. The
    // decoder reads the block as much as it writes it (reference frames): it must be ordinary
    // cached memory, not write-combined.
    virtual std::shared_ptr<FrameBlock> allocate(size_t bytes) = 0;
    // For the log, e.g. "pinned OpenCL blocks (at most 2048 MiB)".
    virtual std::string describe() const = 0;
};

}  // namespace vfx
