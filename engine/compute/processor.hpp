#pragma once
// The per-frame GPU work: upload of a decoded frame, conversion to the working format, the
// filter chain. Everything is enqueued on the context's in-order queue; nothing here waits for
// the device except, before reusing a staging buffer, for an old frame's upload (and, when an
// enqueue fails part-way, for the direct upload it had started: see enqueue()).
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

// The overlay's before/after histograms of one frame (FrameProcessor::set_view): `before` counts
// the chain's input (the conversion's output; a mosaic as R = G = B), `after` the chain's
// output (what the target holds before any split view is composed into it). Same binning as
// Histogram.
struct ViewHistograms {
    Histogram before, after;
};

// What the overlay asks the processor to add to the frames it shows; all off by default, so
// `vfx process` output and anything else that does not ask never contains it.
//  - histograms: count the chain's input and output (PendingFrame::view_histograms()).
//  - split: the before/after split view, composed into the target after the chain: left of the
//    divider the chain's input (a mosaic as grey), right of it the chain's output, and a white
//    divider line max(2, width / 640) pixels wide centred on column
//    round(split_position * width) (kernels/compose.cl).
// Their kernels are built in the background on first use: until they are, a frame goes without
// them (no frame waits for a build).
struct ViewOptions {
    bool histograms = false;
    bool split = false;
    double split_position = 0.5;  // 0 (all processed) .. 1 (all unprocessed)

    bool operator==(const ViewOptions&) const = default;
};

// How FrameProcessor::request_chain() took a chain.
enum class ChainRequest : uint8_t {
    applied,   // runs from the next enqueue on (every kernel it needs was built already)
    building,  // building in the background; the current chain runs until it is ready
    failed,    // rejected (BuildStatus::chain_error says why); the current chain keeps running
};

// The background work of a FrameProcessor, for the overlay.
struct BuildStatus {
    bool building = false;     // a chain or kernel build is queued or running
    std::string chain_error;   // why the latest chain request failed ("" when it did not)
    std::string kernel_error;  // why the latest kernel reload failed, with the compiler's log
    uint64_t reloads = 0;      // kernel reloads swapped in so far
    std::string last_reload;   // the files of the latest successful reload
};

struct StageTime {
    std::string name;  // "upload", "convert", then each filter's name in chain order; a name
                       // that repeats in the chain gets "#2", "#3"... from its second use
    double ms = 0;
};

// One frame's enqueued work. Holds a reference to every buffer its commands use, so they stay
// alive until it is destroyed (keep it until done() completed). A frame decoded into a pinned
// block (HostFrame::block, direct decode) is held too: the device reads the block's memory
// directly, so the block must not go back to the decoder before the upload completed; keeping
// the PendingFrame until done() completed covers that (done() comes after the upload on the
// in-order queue).
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
    // The overlay's before/after histograms (ViewOptions::histograms), once complete();
    // nullopt while in flight or when they were not asked for (or their kernel was not built
    // yet). Read back like histogram().
    std::optional<ViewHistograms> view_histograms() const;

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
    // Host memory a command reads (a direct-decoded frame and its block), released only after
    // that command completed: the destructor waits for it, so even a PendingFrame dropped while
    // in flight (an exception between enqueue and hand-over) never returns the block to the
    // decoder under the DMA.
    struct HostHold {
        ClEvent until;
        std::vector<std::shared_ptr<const void>> memory;
        HostHold() = default;
        HostHold(const HostHold&) = delete;
        HostHold& operator=(const HostHold&) = delete;
        ~HostHold();
    };
    std::unique_ptr<HostHold> hold_;
    std::shared_ptr<Pinned> histogram_;
    std::shared_ptr<Pinned> before_, after_;  // ViewOptions::histograms
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

    // The conversion kernel's tuner candidates (tests force each in turn).
    static std::vector<KernelVariant> convert_variants();

    // Takes effect for the next enqueue; frames already enqueued are unaffected.
    void set_chain(Chain chain);
    // Where the chain came from, the start of the message when a frame's kind does not suit a
    // filter ("'demosaic' (filter 2) needs a mosaic..."): "chain" (the default: chain text) or,
    // for a preset's chain, "preset 'soft.json'". A chain taken by set_chain() or
    // request_chain() is "chain" again (the overlay's editor: the user's own).
    void set_chain_origin(std::string origin) { chain_origin_ = std::move(origin); }
    const Chain& chain() const { return chain_; }
    // Timing name of chain filter i: the filter's name, "#N" added from its second use on.
    // A fused run of point-wise filters (compute/pointwise.hpp) is timed as one stage named
    // "a+b+c" from its filters' names.
    std::string stage_name(size_t i) const;
    // Fuse runs of adjacent point-wise filters into one kernel (the default). Takes effect for
    // the next enqueue.
    void set_fusion(bool on);
    bool fusion() const { return fuse_; }

    // Enqueues on cl.queue(), in order: the upload of `frame`'s planes, the conversion to the
    // working format, then the chain, the last stage writing
    // `target` (geometry `g`: frame's width and height, format frame.format.work_format()).
    // An empty chain converts straight into `target`. Flushes the queue; never waits for it,
    // except for an old frame's upload before its staging buffer is reused.
    // Frame kinds: a `gray` source (grey still or video, raw Bayer) with a non-empty chain
    // enters the chain as a mosaic (mono8 for 8-bit sources, mono16 deeper; full-range values,
    // see core/format.hpp), unless the chain's first filter that reads one kind only reads
    // colour (median on a grey video): then, like any other source, as colour. Each filter must
    // take the kind it gets (FilterInfo::takes), else vfx::Error with one line naming the filter,
    // thrown before any of the frame's GPU work. A mosaic still at the end of the chain is written
    // to `target` as grey (R = G = B, alpha max) by one more stage, "display". `target` is always
    // the RGBA working format (g.format = frame.format.work_format()). Filters with
    // uses_chain_input see the conversion's output (colour, or the mosaic) as FilterIo::input. A
    // histogram filter's counts come back through PendingFrame::histogram. Uses only
    // frame.plane(i), format, color, width and height (and block, block_offset and av for the
    // direct path); the caller may release the frame as soon as this returns. Throws vfx::Error for
    // a frame/geometry mismatch.
    //
    // The upload, two paths:
    //  - Direct (HostFrame::block is a PinnedBlock of this context, compute/pinned_pool.hpp:
    //    the decoder wrote the planes into pinned memory): no CPU copy. One
    //    clEnqueueWriteBuffer on the queue, from the block's mapped pointer, of the bytes the
    //    planes span (FFmpeg's layout, padding included) into a device buffer; the conversion
    //    reads the planes there at the block's offsets and FFmpeg's linesizes. The PendingFrame
    //    holds the frame (its AVFrame, hence the block) until it is destroyed. The same on
    //    host-unified devices: the block's buffer stays mapped (the decoder's), so no kernel
    //    may read it (undefined in OpenCL); the runtime does that copy, not this thread.
    //  - Copy (any other frame; exactly as before direct decode): the planes are copied by
    //    the CPU (a few threads for a large frame) into a mapped pinned staging buffer (three,
    //    used round-robin; reusing one waits for its last upload), rows tight, planes at
    //    256-byte offsets; a discrete device gets it by clEnqueueWriteBuffer, a host-unified
    //    one reads the staging buffer itself after an unmap on the auxiliary queue.
    // chain_output: when set, a buffer of g.size_bytes() that receives a copy of the chain's
    // output before the view (the split view's composition) is drawn into `target`: what a
    // screenshot of the chain's output reads.
    PendingFrame enqueue(const HostFrame& frame, cl_mem target, const FrameGeometry& g,
                         cl_mem chain_output = nullptr);

    // Frames uploaded by each path so far.
    struct UploadStats {
        uint64_t direct = 0;
        uint64_t copied = 0;
    };
    const UploadStats& upload_stats() const { return uploads_; }

    // ---- Live changes (the player's overlay); processor_async.cpp ----
    // Threading: every method of FrameProcessor is called from one thread (the render
    // thread). Background work runs on a worker thread of the processor's own: it makes the
    // filters of a chain and warms them, i.e. runs them once through enqueue() of a private
    // FrameProcessor on a private queue over a 32 x 32 frame of the last source format (and
    // waits), so that every program they need is built and every kernel object made. Kernel
    // objects are never shared between threads: the warmed filters are handed to the render
    // thread (under a mutex) and used only there from then on. The program cache is
    // ClContext's (thread-safe).
    //
    // request_chain: the chain to run. It is checked and warmed at once on the calling thread
    // with ClContext::CacheOnlyScope (a private processor, a 32 x 32 frame; nothing waits):
    // when every kernel it needs was built already (a value change of a built variant, removing
    // or reordering stages), it runs from the next enqueue on (applied). When one is not built
    // yet (a new filter or variant), the warm-up moves to the worker, the current chain keeps
    // running, and the warmed chain swaps in at the first enqueue after it is ready (building);
    // while background work is queued or running, every request goes that way, and the latest
    // request wins. A chain that cannot run on the last frame's kind (e.g. demosaic on colour),
    // or whose build fails, is rejected with BuildStatus::chain_error; the current chain keeps
    // running (failed). Before the first frame, it is set_chain().
    ChainRequest request_chain(Chain chain);
    // Kernel hot reload: `files` (names as in ClContext::program) changed. On the worker:
    // ClContext::reload(files); when that succeeds, the current chain is made again and warmed,
    // and it swaps in with the processor's own conversion kernels at the next enqueue. When it
    // fails, BuildStatus::kernel_error has the compiler's log and every kernel stays as it was.
    void reload_kernels(std::vector<std::string> files);
    BuildStatus build_status() const;
    // Blocks until no background work is queued or running (tests, shutdown); what it made
    // swaps in at the next enqueue.
    void wait_background();
    // Tests: while held, queued background work does not start.
    void hold_background(bool hold);

    // Takes effect for the next enqueue.
    void set_view(const ViewOptions& v) { view_ = v; }
    const ViewOptions& view() const { return view_; }

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
    // The conversion for a source shape (built and prepared; `options` receives its common
    // build options).
    TunedKernel& convert_kernel(const SourceFormat& f, WorkFormat work, uint32_t width,
                                uint32_t height, std::string& options);

    ClContext& cl_;
    Chain chain_;
    std::string chain_origin_ = "chain";
    bool fuse_ = true;
    std::vector<ChainStage> stages_;
    bool unified_ = false;
    ClQueue aux_;  // maps and unmaps of the staging buffers, off the main queue
    std::array<Staging, 3> staging_;
    size_t next_staging_ = 0;
    ClMem device_src_;  // the planes on the device (discrete devices; the direct path)
    size_t device_src_bytes_ = 0;
    UploadStats uploads_;
    std::array<ClMem, 3> scratch_;  // ping-pong working-format buffers between filters, and
                                    // the chain's input when a filter uses it (index 2)
    FrameGeometry scratch_geometry_;
    struct ConvertKernel {
        ClKernel kernel;
        std::array<size_t, 2> local{};
    };
    std::map<std::string, std::unique_ptr<TunedKernel>> convert_;
    std::map<std::string, ConvertKernel> mono_;  // mono.cl: gray_to_mono, mono_to_rgba
    std::vector<std::shared_ptr<PendingFrame::Pinned>> pinned_;  // histogram read-back blocks
    cl_kernel mono_kernel(const char* name, const std::string& options,
                          std::array<size_t, 2>& local);
    std::shared_ptr<PendingFrame::Pinned> pinned_block();

    // ---- live changes (processor_async.cpp) ----
    struct Background;
    struct BackgroundDeleter {
        void operator()(Background* b) const;
    };
    struct Private {};
    // A private processor (warm-ups): enqueues on a queue of its own.
    FrameProcessor(ClContext& cl, Private);
    cl_command_queue queue() const { return own_queue_ ? own_queue_.get() : cl_.queue(); }
    // At the start of enqueue: swaps in what the background made, notes the frame's format.
    void before_enqueue(const HostFrame& frame);
    // Makes `chain`'s filters (make_filters()) and runs them once over a small blank frame of
    // format `sf`; waits for the device when `wait`.
    void warm(Chain chain, const SourceFormat& sf, std::pair<int, int> size, bool wait);
    // Takes over a warmed processor's chain and filters.
    void adopt(FrameProcessor& warmed);
    bool view_needs_input() const { return view_.histograms || view_.split; }
    // At the end of enqueue: the view histograms and the split view (ViewOptions).
    void enqueue_view(PendingFrame& out, cl_mem input, const FrameGeometry& input_g, cl_mem target,
                      const FrameGeometry& g);

    ClQueue own_queue_;
    ViewOptions view_;
    std::optional<SourceFormat> last_format_;
    std::pair<int, int> last_size_{32, 32};  // of the last frame enqueued
    std::map<std::string, ConvertKernel> view_kernels_;
    ClMem warm_target_;
    size_t warm_target_bytes_ = 0;
    std::unique_ptr<Background, BackgroundDeleter> bg_;  // last: its worker stops first
};

}  // namespace vfx
