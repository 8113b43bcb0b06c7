#include "compute/pinned_pool.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstring>

#include "core/error.hpp"

namespace vfx {

namespace {

size_t round_up(size_t v, size_t a) {
    return (v + a - 1) / a * a;
}

double mib(size_t bytes) {
    return static_cast<double>(bytes) / (1 << 20);
}

}  // namespace

PinnedBlock::~PinnedBlock() {
    // No device command ever used the block's buffer: unmapping it is all there is to wait
    // for, and the runtime releases the buffer after that (queued) unmap.
    if (host_ && buffer_ && queue_) {
        const cl_int err =
            clEnqueueUnmapMemObject(queue_.get(), buffer_.get(), host_, 0, nullptr, nullptr);
        if (err != CL_SUCCESS)
            spdlog::warn("releasing a pinned frame block: clEnqueueUnmapMemObject: {}",
                         cl_error_name(err));
        clFlush(queue_.get());
    }
}

std::shared_ptr<PinnedFramePool> PinnedFramePool::create(const ClContext& cl, size_t max_bytes) {
    return std::shared_ptr<PinnedFramePool>(new PinnedFramePool(cl, max_bytes));
}

PinnedFramePool::PinnedFramePool(const ClContext& cl, size_t max_bytes)
    : queue_(cl.make_queue()), max_bytes_(max_bytes) {
    VFX_CL(clRetainContext(cl.context()));
    context_ = ClContextHandle(cl.context());
}

PinnedFramePool::~PinnedFramePool() {
    free_.clear();  // every block is back: each one held the pool
    if (queue_) clFinish(queue_.get());
}

std::unique_ptr<PinnedBlock> PinnedFramePool::make_block(size_t bytes) {
    std::unique_ptr<PinnedBlock> b(new PinnedBlock);
    cl_int err = CL_SUCCESS;
    // READ_WRITE, not READ_ONLY (no kernel uses the buffer anyway): some runtimes give a
    // read-only host-allocated buffer uncached write-combined memory, fine for streaming
    // writes but very slow for CPU reads, and the decoder reads its reference frames here.
    b->buffer_ = ClMem(clCreateBuffer(context_.get(), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                      bytes, nullptr, &err));
    VFX_CL_ERR(err, "clCreateBuffer(pinned frame block)");
    b->queue_ = queue_;
    b->context_ = context_.get();
    b->size_ = bytes;
    void* host =
        clEnqueueMapBuffer(queue_.get(), b->buffer_.get(), CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                           bytes, 0, nullptr, nullptr, &err);
    VFX_CL_ERR(err, "clEnqueueMapBuffer(pinned frame block)");
    b->host_ = static_cast<uint8_t*>(host);
    // As FFmpeg's own pools do (av_buffer_allocz): no stale bytes in a decoder's padding.
    std::memset(b->host_, 0, bytes);
    return b;
}

std::shared_ptr<FrameBlock> PinnedFramePool::allocate(size_t bytes) {
    if (bytes == 0) return nullptr;
    std::shared_ptr<PinnedFramePool> self = weak_from_this().lock();
    if (!self) return nullptr;  // not made by create()
    const size_t want = round_up(bytes, kGranule);
    std::unique_ptr<PinnedBlock> block;
    std::vector<std::unique_ptr<PinnedBlock>> evicted;  // released outside the lock
    bool make = false;
    std::string refusal;
    try {
        {
            std::lock_guard lk(mu_);
            auto best = free_.end();
            for (auto it = free_.begin(); it != free_.end(); ++it)
                if ((*it)->size() >= bytes &&
                    (best == free_.end() || (*it)->size() < (*best)->size()))
                    best = it;
            if (best != free_.end()) {
                block = std::move(*best);
                free_.erase(best);
                ++stats_.reused;
                ++stats_.blocks_in_use;
            } else {
                size_t free_bytes = 0;
                for (const auto& b : free_)
                    free_bytes += b->size();
                // Every free block is too small for this request: make room with them, but only
                // when that is enough (else they stay, for the frames they do fit).
                if (stats_.bytes + want > max_bytes_ &&
                    stats_.bytes - free_bytes + want <= max_bytes_) {
                    for (auto& b : free_) {
                        stats_.bytes -= b->size();
                        --stats_.blocks;
                        ++stats_.released;
                        evicted.push_back(std::move(b));
                    }
                    free_.clear();
                }
                if (stats_.bytes + want > max_bytes_) {
                    ++stats_.refused;
                    refusal = fmt::format("{:.1f} MiB in use, at most {:.0f} MiB",
                                          mib(stats_.bytes), mib(max_bytes_));
                } else {
                    stats_.bytes += want;  // reserved while the block is made, unlocked
                    ++stats_.blocks;
                    ++stats_.blocks_in_use;
                    make = true;
                }
            }
        }
        evicted.clear();
        if (!refusal.empty()) {
            note_refusal(
                fmt::format("a block of {:.1f} MiB would pass the bound ({})", mib(want), refusal));
            return nullptr;
        }
        if (make) {
            try {
                block = make_block(want);
            } catch (const std::exception& e) {
                {
                    std::lock_guard lk(mu_);
                    stats_.bytes -= want;
                    --stats_.blocks;
                    --stats_.blocks_in_use;
                    ++stats_.refused;
                }
                note_refusal(fmt::format("a block of {:.1f} MiB could not be made ({})", mib(want),
                                         e.what()));
                return nullptr;
            }
            std::lock_guard lk(mu_);
            ++stats_.created;
        }
        // The deleter holds the pool: it outlives every block it handed out. (Should the
        // shared_ptr itself fail to allocate, it calls the deleter: the block comes back.)
        PinnedBlock* raw = block.release();
        return std::shared_ptr<FrameBlock>(raw, [self = std::move(self)](FrameBlock* b) {
            self->give_back(static_cast<PinnedBlock*>(b));
        });
    } catch (const std::exception& e) {  // bad_alloc of the bookkeeping: the caller falls back
        spdlog::debug("pinned frame pool: {}", e.what());
        return nullptr;
    }
}

void PinnedFramePool::give_back(PinnedBlock* b) {
    std::unique_ptr<PinnedBlock> owned(b);
    std::lock_guard lk(mu_);
    --stats_.blocks_in_use;
    try {
        free_.push_back(std::move(owned));
    } catch (...) {  // no room in the list: release the block instead (after the unlock)
        stats_.bytes -= b->size();
        --stats_.blocks;
        ++stats_.released;
    }
}

void PinnedFramePool::note_refusal(const std::string& why) {
    bool first = false;
    {
        std::lock_guard lk(mu_);
        first = !std::exchange(warned_, true);
    }
    if (first)
        spdlog::info(
            "direct decode: the pinned frame pool refused {}; such frames use FFmpeg's "
            "own buffers and are copied",
            why);
    else
        spdlog::debug("direct decode: the pinned frame pool refused {}", why);
}

std::string PinnedFramePool::describe() const {
    return fmt::format("pinned OpenCL blocks (at most {:.0f} MiB)", mib(max_bytes_));
}

PinnedFramePool::Stats PinnedFramePool::stats() const {
    std::lock_guard lk(mu_);
    return stats_;
}

}  // namespace vfx
