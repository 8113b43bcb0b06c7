#pragma once
// The per-frame GPU work: upload of a decoded frame, conversion to the working format, the
// filter chain. Everything is enqueued on the context's in-order queue; nothing here waits for
// the device except, before reusing a staging buffer, for an old frame's upload.
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compute/chain.hpp"
#include "compute/cl_context.hpp"
#include "compute/filter.hpp"
#include "compute/pointwise.hpp"
#include "decode/host_frame.hpp"

namespace vfx {

// What a chain's `histogram` filter counted in one frame: 256 bins each of R, G, B and BT.709
// luma, over every pixel of the frame as it reached the filter. Binning (bit-exact):
//   8-bit working values v: bin v;  16-bit: bin (v + 128) / 257 (integer division), i.e.
//   v * 255 / 65535 rounded to nearest (never a tie). A mosaic counts its one sample as R = G
//   = B. Luma of the binned values: (13933 R + 46871 G + 4732 B + 32768) >> 16, the BT.709
//   weights (0.2126, 0.7152, 0.0722) in 16-bit fixed point, summing to 65536.
struct Histogram {
    std::array<uint32_t, 4 * 256> counts{};  // R bins 0..255, then G, B, luma

    uint32_t r(int bin) const { return counts[static_cast<size_t>(bin)]; }
    uint32_t g(int bin) const { return counts[256 + static_cast<size_t>(bin)]; }
    uint32_t b(int bin) const { return counts[512 + static_cast<size_t>(bin)]; }
    uint32_t luma(int bin) const { return counts[768 + static_cast<size_t>(bin)]; }
    // Channel c (0 R, 1 G, 2 B, 3 luma), bin i.
    uint32_t at(int c, int bin) const { return counts[static_cast<size_t>(c * 256 + bin)]; }
};

struct StageTime {
    std::string name;  // "upload", "convert", then each filter's name in chain order; a name
                       // that repeats in the chain gets "#2", "#3"... from its second use
    double ms = 0;
};

// One frame's enqueued work. Holds a reference to every buffer its commands use, so they stay
// alive until it is destroyed (keep it until done() completed).
class PendingFrame {
public:
    PendingFrame() = default;

    // The last command's event: the chain's output is in the target once it completes.
    // nullptr for a default-constructed PendingFrame.
    cl_event done() const { return done_.get(); }
    // Non-blocking. True when done() completed (or there is no work). Throws GpuError when a
    // command of the frame failed.
    bool complete() const;
    // Blocks until done() completed (tests, shutdown). Throws GpuError on failure.
    void wait() const;
    // Per stage, from the CL profiling events: the first command's start to the last one's
    // end. Empty until complete().
    std::vector<StageTime> timings() const;
    // The counts of the chain's last `histogram` filter, once complete(); nullopt while the
    // frame is in flight or when the chain has no histogram. Read back without blocking (a
    // small pinned buffer); done() completes only after that read.
    std::optional<Histogram> histogram() const;

    // A pinned host block the histogram is read into (mapped for its whole life).
    struct Pinned {
        ClMem buffer;
        ClQueue queue;  // the queue it was mapped on, to unmap it
        void* host = nullptr;
        ~Pinned();
    };

private:
    friend class FrameProcessor;
    struct Stage {
        std::string name;
        ClEvent first, last;
    };
    std::vector<Stage> stages_;
    ClEvent done_;
    std::vector<ClMem> keep_;
    std::shared_ptr<Pinned> histogram_;
};

class FrameProcessor {
public:
    // Makes the chain's filters (their kernels are built on first use per working format).
    // force_copy_upload: copy the staging buffer to a device buffer even on a host-unified
    // device (tests of the discrete-GPU path on a CPU device).
    FrameProcessor(ClContext& cl, Chain chain, bool force_copy_upload = false);
    ~FrameProcessor();  // waits for the staging buffers' last uploads, then unmaps them
    FrameProcessor(const FrameProcessor&) = delete;
    FrameProcessor& operator=(const FrameProcessor&) = delete;

    // Takes effect for the next enqueue; frames already enqueued are unaffected.
    void set_chain(Chain chain);
    const Chain& chain() const { return chain_; }
    // Timing name of chain filter i: the filter's name, "#N" added from its second use on.
    // A fused run of point-wise filters (compute/pointwise.hpp) is timed as one stage named
    // "a+b+c" from its filters' names.
    std::string stage_name(size_t i) const;
    // Fuse runs of adjacent point-wise filters into one kernel (the default). Takes effect for
    // the next enqueue.
    void set_fusion(bool on);
    bool fusion() const { return fuse_; }

    // Enqueues on cl.queue(), in order: the upload of `frame`'s planes (through pinned staging
    // buffers used round-robin; devices with host-unified memory read the staging buffer
    // directly), the conversion to the working format, then the chain, the last stage writing
    // `target` (geometry `g`: frame's width and height, format frame.format.work_format()).
    // An empty chain converts straight into `target`. Flushes the queue; never waits for it,
    // except for an old frame's upload before its staging buffer is reused.
    // Frame kinds: a `gray` source (grey still, raw Bayer) with a non-empty chain enters the
    // chain as a mosaic (mono8 for 8-bit sources, mono16 deeper; full-range values, see
    // core/format.hpp); any other source as colour. Each filter must take the kind it gets
    // (FilterInfo::takes), else vfx::Error with one line naming the filter, thrown before any
    // of the frame's GPU work. A mosaic still at the end of the chain is written to `target` as
    // grey (R = G = B, alpha max) by one more stage, "display". `target` is always the RGBA
    // working format (g.format = frame.format.work_format()).
    // Filters with uses_chain_input see the conversion's output (colour, or the mosaic) as
    // FilterIo::input. A histogram filter's counts come back through PendingFrame::histogram.
    // Uses only frame.plane(i), format, color, width and height; the planes may be released
    // as soon as this returns. Throws vfx::Error for a frame/geometry mismatch.
    PendingFrame enqueue(const HostFrame& frame, cl_mem target, const FrameGeometry& g);

private:
    struct Staging {
        ClMem buffer;          // CL_MEM_ALLOC_HOST_PTR (pinned)
        void* host = nullptr;  // mapped pointer; null while unmapped (host-unified devices)
        size_t capacity = 0;
        ClEvent busy;  // when complete, `host` may be written (last upload done, map done)
    };
    void make_filters();
    void ensure_staging(size_t bytes);
    void release_staging(Staging& s);
    cl_kernel convert_kernel(const SourceFormat& f, WorkFormat work, std::array<size_t, 2>& local);

    ClContext& cl_;
    Chain chain_;
    bool fuse_ = true;
    std::vector<ChainStage> stages_;
    bool unified_ = false;
    ClQueue aux_;  // maps and unmaps of the staging buffers, off the main queue
    std::array<Staging, 3> staging_;
    size_t next_staging_ = 0;
    ClMem device_src_;  // discrete devices: the planes' copy on the device
    size_t device_src_bytes_ = 0;
    std::array<ClMem, 3> scratch_;  // ping-pong working-format buffers between filters, and
                                    // the chain's input when a filter uses it (index 2)
    FrameGeometry scratch_geometry_;
    struct ConvertKernel {
        ClKernel kernel;
        std::array<size_t, 2> local{};
    };
    std::map<std::string, ConvertKernel> convert_;
    std::map<std::string, ConvertKernel> mono_;  // mono.cl: gray_to_mono, mono_to_rgba
    std::vector<std::shared_ptr<PendingFrame::Pinned>> pinned_;  // histogram read-back blocks
    cl_kernel mono_kernel(const char* name, const std::string& options,
                          std::array<size_t, 2>& local);
    std::shared_ptr<PendingFrame::Pinned> pinned_block();
};

}  // namespace vfx
