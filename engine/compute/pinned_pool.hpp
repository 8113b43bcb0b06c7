#pragma once
// Pinned host blocks for direct decode: the FrameAllocator (decode/frame_allocator.hpp) that
// lets the decoder write its planes straight into memory the OpenCL upload reads by DMA, so
// FrameProcessor copies nothing on the CPU (compute/processor.hpp).
//
// Each block is an OpenCL buffer made with CL_MEM_ALLOC_HOST_PTR (page-locked host memory on
// discrete GPUs) and mapped once, for reading and writing, for its whole life; the decoder
// writes through the mapped pointer and the processor hands that pointer to
// clEnqueueWriteBuffer. No device command ever uses the block's own cl_mem (it stays mapped,
// and a command on a buffer mapped for writing is undefined in OpenCL); the mapping is
// undone only when the block is released.
//
// Ownership:
//  - The pool is shared (create() returns a shared_ptr): whoever owns the ClContext and the
//    Source makes it and passes it in SourceOptions::allocator. Every block handed out holds a
//    reference to the pool, so the pool outlives every frame decoded into it, whatever the
//    order in which the owners, the source, the processor and the frames go away. It needs
//    nothing of the ClContext object after create() (it holds its own references to the
//    context and a queue of its own), so it may outlive that too.
//  - A block handed out is the decoder's (while decoding the frame) and then read-only for
//    everyone until its last shared_ptr goes away (HostFrame::block, the frame's AVBufferRef,
//    a PendingFrame whose upload reads it); only then does it go back to the free list, to be
//    handed out again (the contract in decode/frame_allocator.hpp).
//  - Blocks are released (unmapped, then their buffer released) only from the free list: when
//    the pool is at its bound and a request needs room the free blocks take (they are too
//    small for it), or with the pool itself.
//
// Growth: on demand, best fit from the free list first; a request that would take the pool
// past max_bytes (in use + free) is refused (nullptr: the source falls back to FFmpeg's own
// buffers for that frame, and the pool logs it once).
//
// Threading: allocate(), the release of a block and stats() may run on any thread at once.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "compute/cl_context.hpp"
#include "decode/frame_allocator.hpp"

namespace vfx {

class PinnedFramePool;

// One block of the pool: `size()` bytes of pinned host memory at `data()` (the mapped pointer
// of `buffer()`, an OpenCL buffer of `context()`).
class PinnedBlock final : public FrameBlock {
public:
    ~PinnedBlock() override;  // unmaps and releases the buffer (no device command uses it)
    PinnedBlock(const PinnedBlock&) = delete;
    PinnedBlock& operator=(const PinnedBlock&) = delete;

    uint8_t* data() const override { return host_; }
    size_t size() const override { return size_; }
    cl_mem buffer() const { return buffer_.get(); }
    cl_context context() const { return context_; }

private:
    friend class PinnedFramePool;
    PinnedBlock() = default;
    ClMem buffer_;
    ClQueue queue_;  // the pool's queue, which mapped it and unmaps it
    cl_context context_ = nullptr;
    uint8_t* host_ = nullptr;
    size_t size_ = 0;
};

class PinnedFramePool final : public FrameAllocator,
                              public std::enable_shared_from_this<PinnedFramePool> {
public:
    // Enough for 4K frames held by the player's step-back cache, the decode queue, the frames
    // in flight and the decoder's reference frames.
    static constexpr size_t kDefaultMaxBytes = size_t{2} << 30;
    // Blocks are sized in multiples of this (frames of one stream share a size anyway).
    static constexpr size_t kGranule = size_t{64} << 10;

    static std::shared_ptr<PinnedFramePool> create(const ClContext& cl,
                                                   size_t max_bytes = kDefaultMaxBytes);
    ~PinnedFramePool() override;  // releases the free blocks (every block is free by then)
    PinnedFramePool(const PinnedFramePool&) = delete;
    PinnedFramePool& operator=(const PinnedFramePool&) = delete;

    // FrameAllocator: a PinnedBlock, or nullptr (bound reached, OpenCL refused). Never throws.
    std::shared_ptr<FrameBlock> allocate(size_t bytes) override;
    std::string describe() const override;

    cl_context context() const { return context_.get(); }
    size_t max_bytes() const { return max_bytes_; }

    struct Stats {
        size_t blocks = 0;         // alive now (in use + free)
        size_t blocks_in_use = 0;  // handed out and not back yet
        size_t bytes = 0;          // of all blocks alive now
        uint64_t created = 0;      // blocks made so far
        uint64_t reused = 0;       // requests served from the free list
        uint64_t refused = 0;      // requests answered with nullptr
        uint64_t released = 0;     // blocks released to make room
    };
    Stats stats() const;

private:
    PinnedFramePool(const ClContext& cl, size_t max_bytes);
    std::unique_ptr<PinnedBlock> make_block(size_t bytes);  // throws GpuError
    void give_back(PinnedBlock* b);                         // a block's last shared_ptr went away
    void note_refusal(const std::string& why);

    ClContextHandle context_;
    ClQueue queue_;  // maps and unmaps of the blocks
    size_t max_bytes_;
    mutable std::mutex mu_;  // guards everything below
    std::vector<std::unique_ptr<PinnedBlock>> free_;
    Stats stats_;
    bool warned_ = false;
};

}  // namespace vfx
