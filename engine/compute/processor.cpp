#include "compute/processor.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <thread>

#include "compute/cl_args.hpp"
#include "compute/pinned_pool.hpp"
#include "core/error.hpp"

namespace vfx {

namespace {

// Where one plane goes in the staging buffer.
struct PlaneCopy {
    const uint8_t* data = nullptr;
    int stride = 0;
    size_t row_bytes = 0;  // also the pitch in the staging buffer
    int rows = 0;
    size_t offset = 0;
};

// The planes a layout reads, their row sizes and counts; offsets 256-aligned in one buffer.
std::vector<PlaneCopy> plan_planes(const HostFrame& f, size_t& total) {
    const SourceFormat& sf = f.format;
    const size_t w = static_cast<size_t>(f.width);
    const size_t b = sf.bytes;
    const size_t cw = (w + (size_t{1} << sf.chroma_w_log2) - 1) >> sf.chroma_w_log2;
    const int ch = (f.height + (1 << sf.chroma_h_log2) - 1) >> sf.chroma_h_log2;
    std::vector<PlaneCopy> planes;
    switch (sf.layout) {
        case PlaneLayout::yuv_planar:
            planes = {{nullptr, 0, w * b, f.height, 0},
                      {nullptr, 0, cw * b, ch, 0},
                      {nullptr, 0, cw * b, ch, 0}};
            break;
        case PlaneLayout::yuv_semiplanar:
            planes = {{nullptr, 0, w * b, f.height, 0}, {nullptr, 0, 2 * cw * b, ch, 0}};
            break;
        case PlaneLayout::yuyv:
            planes = {{nullptr, 0, (w + 1) / 2 * 4 * b, f.height, 0}};
            break;
        case PlaneLayout::rgba:
            planes = {{nullptr, 0, 4 * w * b, f.height, 0}};
            break;
        case PlaneLayout::gray:
            planes = {{nullptr, 0, w * b, f.height, 0}};
            break;
    }
    total = 0;
    for (size_t i = 0; i < planes.size(); ++i) {
        const Plane p = f.plane(static_cast<int>(i));
        if (!p.data) fail("frame {}: plane {} is missing for its layout", f.index, i);
        if (static_cast<size_t>(std::abs(p.stride)) < planes[i].row_bytes)
            fail("frame {}: plane {} stride {} is shorter than a row ({} bytes)", f.index, i,
                 p.stride, planes[i].row_bytes);
        planes[i].data = p.data;
        planes[i].stride = p.stride;
        planes[i].offset = total;
        total += (planes[i].row_bytes * static_cast<size_t>(planes[i].rows) + 255) / 256 * 256;
    }
    return planes;
}

// Rows [y0, y1) of every plane (plane rows scaled to the plane's own height).
void copy_rows(const std::vector<PlaneCopy>& planes, uint8_t* out, int part, int parts) {
    for (const PlaneCopy& p : planes) {
        const int y0 = p.rows * part / parts, y1 = p.rows * (part + 1) / parts;
        uint8_t* o = out + p.offset;
        if (p.stride == static_cast<int>(p.row_bytes)) {
            std::memcpy(o + static_cast<size_t>(y0) * p.row_bytes,
                        p.data + static_cast<ptrdiff_t>(y0) * p.stride,
                        p.row_bytes * static_cast<size_t>(y1 - y0));
            continue;
        }
        for (int y = y0; y < y1; ++y)
            std::memcpy(o + static_cast<size_t>(y) * p.row_bytes,
                        p.data + static_cast<ptrdiff_t>(y) * p.stride, p.row_bytes);
    }
}

// The planes into the pinned staging block. A large frame (4K: 12 MB of 4:2:0) is copied by
// a few threads: one core's memcpy takes ~2 ms there, on the player's critical path, while
// the decoder's threads wait for queue space.
void copy_planes(const std::vector<PlaneCopy>& planes, void* dst, size_t total) {
    auto* out = static_cast<uint8_t*>(dst);
    constexpr size_t kPerThread = size_t{3} << 20;
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    const int parts = static_cast<int>(std::min<size_t>({total / kPerThread + 1, 4, hw}));
    if (parts <= 1) {
        copy_rows(planes, out, 0, 1);
        return;
    }
    std::vector<std::jthread> helpers;
    for (int part = 1; part < parts; ++part)
        helpers.emplace_back([&, part] { copy_rows(planes, out, part, parts); });
    copy_rows(planes, out, 0, parts);
}

// Direct decode: the bytes of a frame's pinned block the planes span, [first, first + bytes).
struct DirectSpan {
    size_t first = 0, bytes = 0;
};

// The span when `f`'s planes (as plan_planes read them) all lie in a PinnedBlock of `context`
// at the offsets the frame names, in a shape the conversion reads (positive pitches, 2-byte
// samples at even offsets); nullopt sends the frame down the copy path.
std::optional<DirectSpan> direct_span(const HostFrame& f, const std::vector<PlaneCopy>& planes,
                                      cl_context context) {
    if (!f.block) return std::nullopt;
    const auto* pinned = dynamic_cast<const PinnedBlock*>(f.block.get());
    if (!pinned || pinned->context() != context) return std::nullopt;
    const auto base = reinterpret_cast<uintptr_t>(pinned->data());
    size_t first = std::numeric_limits<size_t>::max(), end = 0;
    for (size_t i = 0; i < planes.size(); ++i) {
        const PlaneCopy& p = planes[i];
        const size_t o = f.block_offset[i];
        if (p.stride <= 0 || reinterpret_cast<uintptr_t>(p.data) != base + o) return std::nullopt;
        if (f.format.bytes == 2 && (o % 2 != 0 || p.stride % 2 != 0)) return std::nullopt;
        const size_t last =
            o + static_cast<size_t>(p.rows - 1) * static_cast<size_t>(p.stride) + p.row_bytes;
        if (last > pinned->size()) return std::nullopt;
        first = std::min(first, o);
        end = std::max(end, last);
    }
    if (planes.empty() || end - first > std::numeric_limits<cl_uint>::max()) return std::nullopt;
    return DirectSpan{first, end - first};
}

}  // namespace

PendingFrame::HostHold::~HostHold() {
    if (!until) return;
    cl_event e = until.get();
    if (clWaitForEvents(1, &e) != CL_SUCCESS)  // a failed command reads nothing any more
        spdlog::warn("waiting for a frame's upload before releasing its memory failed");
}

namespace {

struct ConvertCoefficients {
    cl_float yoff = 0, yscale = 1, coff = 0, cscale = 1, rv = 0, gu = 0, gv = 0, bu = 0;
};

// The contract of engine/core/format.hpp, in double, handed to the kernel as floats.
ConvertCoefficients coefficients(const SourceFormat& sf, const ColorInfo& color) {
    const double bits = sf.bits;
    const double full = std::pow(2.0, bits) - 1;
    ConvertCoefficients c;
    if (sf.layout == PlaneLayout::rgba || sf.layout == PlaneLayout::gray) {
        c.yscale = static_cast<cl_float>(1.0 / full);
        return c;
    }
    if (color.range == Range::limited) {
        const double s = std::pow(2.0, bits - 8);
        c.yoff = static_cast<cl_float>(16 * s);
        c.yscale = static_cast<cl_float>(1.0 / (219 * s));
        c.coff = static_cast<cl_float>(128 * s);
        c.cscale = static_cast<cl_float>(1.0 / (224 * s));
    } else {
        c.yoff = 0;
        c.yscale = static_cast<cl_float>(1.0 / full);
        c.coff = static_cast<cl_float>(std::pow(2.0, bits - 1));
        c.cscale = static_cast<cl_float>(1.0 / full);
    }
    double kr = 0.2126, kb = 0.0722;
    switch (color.matrix) {
        case Matrix::bt601:
            kr = 0.299, kb = 0.114;
            break;
        case Matrix::bt709:
            kr = 0.2126, kb = 0.0722;
            break;
        case Matrix::bt2020:
            kr = 0.2627, kb = 0.0593;
            break;
    }
    const double kg = 1 - kr - kb;
    c.rv = static_cast<cl_float>(2 * (1 - kr));
    c.gu = static_cast<cl_float>(-2 * kb * (1 - kb) / kg);
    c.gv = static_cast<cl_float>(-2 * kr * (1 - kr) / kg);
    c.bu = static_cast<cl_float>(2 * (1 - kb));
    return c;
}

void check_frame(const HostFrame& f, const FrameGeometry& g) {
    const SourceFormat& sf = f.format;
    if (f.width <= 0 || f.height <= 0) fail("frame {}: empty ({}x{})", f.index, f.width, f.height);
    if (sf.bytes != 1 && sf.bytes != 2)
        fail("frame {}: unsupported sample size of {} bytes", f.index, sf.bytes);
    if (sf.bits < 8 || sf.bits > 16 || sf.bits + sf.shift > 8 * sf.bytes)
        fail("frame {}: unsupported sample format ({} bits, shift {}, {} bytes)", f.index, sf.bits,
             sf.shift, sf.bytes);
    if (sf.chroma_w_log2 > 2 || sf.chroma_h_log2 > 2)
        fail("frame {}: unsupported chroma subsampling", f.index);
    if (g.width != static_cast<uint32_t>(f.width) || g.height != static_cast<uint32_t>(f.height) ||
        g.format != sf.work_format())
        fail("frame {} is {}x{} {}, the target is {}x{} {}", f.index, f.width, f.height,
             to_string(sf.work_format()), g.width, g.height, to_string(g.format));
    const size_t bpp = bytes_per_pixel(g.format);
    if (g.pitch < g.width * bpp || g.pitch % bpp != 0 || g.pitch > 0x7fffffff)
        fail("target pitch {} does not fit {} pixels of {}", g.pitch, g.width, to_string(g.format));
}

}  // namespace

// ---- PendingFrame ----

bool PendingFrame::complete() const {
    if (!done_) return true;
    cl_int status = CL_QUEUED;
    VFX_CL(clGetEventInfo(done_.get(), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status,
                          nullptr));
    if (status < 0)
        throw GpuError(
            fmt::format("a frame's OpenCL commands failed: {} ({})", cl_error_name(status), status),
            status);
    return status == CL_COMPLETE;
}

void PendingFrame::wait() const {
    if (!done_) return;
    cl_event ev = done_.get();
    VFX_CL(clWaitForEvents(1, &ev));
    (void)complete();
}

std::vector<StageTime> PendingFrame::timings() const {
    std::vector<StageTime> out;
    if (!done_ || !complete()) return out;
    out.reserve(stages_.size());
    for (const Stage& s : stages_)
        out.push_back({s.name, cl_events_ms(s.first.get(), s.last.get())});
    return out;
}

std::optional<Histogram> PendingFrame::histogram() const {
    if (!histogram_ || !complete()) return std::nullopt;
    Histogram h;
    std::memcpy(h.counts.data(), histogram_->host, sizeof(h.counts));
    return h;
}

PendingFrame::Pinned::~Pinned() {
    if (buffer && host && queue)
        clEnqueueUnmapMemObject(queue.get(), buffer.get(), host, 0, nullptr, nullptr);
    if (queue) clFlush(queue.get());
}

// ---- FrameProcessor ----

FrameProcessor::FrameProcessor(ClContext& cl, Chain chain, bool force_copy_upload)
    : cl_(cl),
      chain_(std::move(chain)),
      unified_(cl.info().host_unified_memory && !force_copy_upload) {
    aux_ = cl_.make_queue(CL_QUEUE_PROFILING_ENABLE);
    make_filters();
}

FrameProcessor::~FrameProcessor() {
    // No throwing from here: errors are logged and the buffers released regardless.
    for (Staging& s : staging_) {
        try {
            release_staging(s);
        } catch (const std::exception& e) {
            spdlog::warn("releasing a staging buffer: {}", e.what());
        }
    }
    if (aux_) clFinish(aux_.get());
}

void FrameProcessor::make_filters() {
    stages_ = make_stages(cl_, chain_, fuse_, [this](size_t i) { return stage_name(i); });
}

void FrameProcessor::set_fusion(bool on) {
    if (on == fuse_) return;
    fuse_ = on;
    make_filters();
}

void FrameProcessor::set_chain(Chain chain) {
    Chain old = std::exchange(chain_, std::move(chain));
    try {
        make_filters();
    } catch (...) {
        chain_ = std::move(old);
        throw;
    }
    chain_origin_ = "chain";
}

void FrameProcessor::release_staging(Staging& s) {
    if (s.busy) {
        cl_event ev = s.busy.get();
        VFX_CL(clWaitForEvents(1, &ev));
    }
    if (s.buffer && s.host)
        VFX_CL(clEnqueueUnmapMemObject(aux_.get(), s.buffer.get(), s.host, 0, nullptr, nullptr));
    if (s.buffer) VFX_CL(clFlush(aux_.get()));
    s = Staging{};
}

void FrameProcessor::ensure_staging(size_t bytes) {
    bool fits = true;
    for (const Staging& s : staging_)
        fits = fits && s.buffer && s.capacity >= bytes;
    if (fits) return;
    // First frame or a larger frame: replace every set at once, after their last uploads (old
    // frames) completed, so that the new sets map on an idle auxiliary queue. Frames in flight
    // keep the old buffers alive.
    for (Staging& s : staging_)
        release_staging(s);
    for (Staging& s : staging_) {
        s.buffer = cl_.buffer(CL_MEM_READ_ONLY | CL_MEM_ALLOC_HOST_PTR, bytes);
        s.capacity = bytes;
        cl_int err = CL_SUCCESS;
        s.host =
            clEnqueueMapBuffer(aux_.get(), s.buffer.get(), CL_FALSE, CL_MAP_WRITE_INVALIDATE_REGION,
                               0, bytes, 0, nullptr, s.busy.out(), &err);
        VFX_CL_ERR(err, "clEnqueueMapBuffer(staging)");
    }
    VFX_CL(clFlush(aux_.get()));
}

std::vector<KernelVariant> FrameProcessor::convert_variants() {
    // Pixels per work-item (one vector store of 2 or 4 pixels) and group shapes; PX 4 reads 8-bit
    // 4:2:x planes with word loads where the rows are aligned (convert.cl's convert_quad), and
    // with PY 2 the two rows of 4:2:0 that share a chroma row from one load of it
    // (convert_quad_pair).
    return {{"-DPX=1", {32, 8}, {1, 1}},       {"-DPX=2", {32, 8}, {2, 1}},
            {"-DPX=4", {32, 8}, {4, 1}},       {"-DPX=4", {64, 4}, {4, 1}},
            {"-DPX=2", {128, 2}, {2, 1}},      {"-DPX=4 -DPY=2", {32, 8}, {4, 2}},
            {"-DPX=4 -DPY=2", {64, 4}, {4, 2}}};
}

TunedKernel& FrameProcessor::convert_kernel(const SourceFormat& f, WorkFormat work, uint32_t width,
                                            uint32_t height, std::string& options) {
    options = fmt::format("-DWORK16={} -DLAYOUT={} -DSRC16={} -DCW={} -DCH={}",
                          work == WorkFormat::rgba16 ? 1 : 0, static_cast<int>(f.layout),
                          f.bytes == 2 ? 1 : 0, f.chroma_w_log2, f.chroma_h_log2);
    std::unique_ptr<TunedKernel>& k = convert_[options];
    if (!k) k = std::make_unique<TunedKernel>("convert.cl", "convert", convert_variants());
    k->prepare(cl_, options, width, height);
    return *k;
}

cl_kernel FrameProcessor::mono_kernel(const char* name, const std::string& options,
                                      std::array<size_t, 2>& local) {
    const std::string key = fmt::format("{} {}", name, options);
    auto it = mono_.find(key);
    if (it == mono_.end()) {
        ConvertKernel k;
        k.kernel = cl_.kernel("mono.cl", name, options);
        k.local = fit_local_2d(k.kernel.get(), cl_.device(), 32, 8);
        it = mono_.emplace(key, std::move(k)).first;
    }
    local = it->second.local;
    return it->second.kernel.get();
}

std::shared_ptr<PendingFrame::Pinned> FrameProcessor::pinned_block() {
    // A block no PendingFrame holds any more (its read completed before the frame was let go).
    for (const auto& p : pinned_)
        if (p.use_count() == 1) return p;
    auto p = std::make_shared<PendingFrame::Pinned>();
    p->buffer = cl_.buffer(CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, sizeof(Histogram::counts));
    p->queue = aux_;
    cl_int err = CL_SUCCESS;
    p->host = clEnqueueMapBuffer(aux_.get(), p->buffer.get(), CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                 0, sizeof(Histogram::counts), 0, nullptr, nullptr, &err);
    VFX_CL_ERR(err, "clEnqueueMapBuffer(histogram read-back)");
    pinned_.push_back(p);
    return p;
}

namespace {

// A grey source is a sensor mosaic (raw Bayer) for a chain whose first filter that reads one
// kind only reads mosaics (demosaic), or whose filters all read both (blacklevel, wb, gamma,
// histogram: the samples stay as they are); for one whose first such filter reads colour
// (median, sepia...) it is a grey picture, converted to colour (R = G = B) like any other.
bool grey_enters_as_mosaic(const Chain& chain) {
    for (const FilterInstance& f : chain.filters)
        if (f.info->takes_colour != f.info->takes_mosaic) return f.info->takes_mosaic;
    return true;
}

std::string kind_error(std::string_view origin, const FilterInstance& f, size_t position,
                       FrameKind got) {
    const FilterInfo& info = *f.info;
    if (got == FrameKind::colour)
        return fmt::format(
            "{}: '{}' (filter {}) needs a mosaic (a one-channel grey or bayer_* source, or "
            "'mosaic' before it), but gets a colour frame",
            origin, info.name, position + 1);
    return fmt::format(
        "{}: '{}' (filter {}) needs a colour frame, but gets a mosaic (put 'demosaic' before "
        "it)",
        origin, info.name, position + 1);
}

}  // namespace

std::string FrameProcessor::stage_name(size_t i) const {
    const std::string& name = chain_.filters[i].name();
    size_t uses = 1;
    for (size_t k = 0; k < i; ++k)
        uses += chain_.filters[k].name() == name ? 1 : 0;
    return uses == 1 ? name : fmt::format("{}#{}", name, uses);
}

PendingFrame FrameProcessor::enqueue(const HostFrame& frame, cl_mem target, const FrameGeometry& g,
                                     cl_mem chain_output) {
    check_frame(frame, g);
    if (!target) fail("frame {}: no target buffer", frame.index);
    before_enqueue(frame);
    cl_command_queue q = queue();
    PendingFrame out;
    const size_t n = stages_.size();

    // ---- frame kinds through the chain, before any GPU work ----
    const bool mosaic_source =
        n > 0 && frame.format.layout == PlaneLayout::gray && grey_enters_as_mosaic(chain_);
    std::vector<FrameKind> filter_kinds{mosaic_source ? FrameKind::mosaic : FrameKind::colour};
    bool need_input = view_needs_input();
    for (size_t i = 0; i < chain_.filters.size(); ++i) {
        const FilterInfo& info = *chain_.filters[i].info;
        if (!info.takes(filter_kinds.back()))
            fail("{}", kind_error(chain_origin_, chain_.filters[i], i, filter_kinds.back()));
        filter_kinds.push_back(info.output_kind(filter_kinds.back()));
        need_input = need_input || info.uses_chain_input;
    }
    // Per stage: kinds[i] goes in, kinds[i + 1] comes out.
    std::vector<FrameKind> kinds{filter_kinds.front()};
    for (const ChainStage& st : stages_)
        kinds.push_back(filter_kinds[st.first + st.count]);
    const bool display_pass = n > 0 && kinds.back() == FrameKind::mosaic;
    const FrameGeometry gm = make_geometry(g.width, g.height, mono_of(g.format));
    auto geometry_of = [&](FrameKind k) -> const FrameGeometry& {
        return k == FrameKind::mosaic ? gm : g;
    };
    // Buffers: the conversion writes `input_index` (kept through the chain when a filter uses
    // it); filters ping-pong between scratch 0 and 1; the last stage that writes the frame
    // writes the target (unless a mosaic's display pass comes after it). An observing stage
    // (FilterInfo::observes: the histogram) reads the current buffer and writes nothing, so
    // the frame is not copied for it; with only observers, the conversion writes the target.
    // kTarget stands for the target in src_of/dst_of.
    constexpr size_t kTarget = 3;
    const size_t input_index = need_input ? 2 : 0;
    std::vector<size_t> src_of(n), dst_of(n);
    auto observes = [&](size_t i) {
        return stages_[i].count == 1 && chain_.filters[stages_[i].first].info->observes;
    };
    size_t writers = 0, last_writer = 0;
    for (size_t i = 0; i < n; ++i)
        if (!observes(i)) ++writers, last_writer = i;
    const bool conv_to_target = n == 0 || (writers == 0 && !display_pass);
    {
        size_t cur = conv_to_target ? kTarget : input_index;
        for (size_t i = 0; i < n; ++i) {
            src_of[i] = cur;
            if (observes(i)) {
                dst_of[i] = cur;
                continue;
            }
            cur = dst_of[i] = i == last_writer && !display_pass ? kTarget : cur == 0 ? 1 : 0;
        }
    }

    // Everything that may fail to build or allocate comes before the staging buffer changes
    // state (filters build their kernels on first use, after the conversion is enqueued).
    const std::string mono_options = fmt::format(
        "-DWORK16={} -DSRC16={}", is_deep(g.format) ? 1 : 0, frame.format.bytes == 2 ? 1 : 0);
    std::array<size_t, 2> local{}, display_local{};
    cl_kernel conv = mosaic_source ? mono_kernel("gray_to_mono", mono_options, local) : nullptr;
    std::string conv_options;
    TunedKernel* conv_tuned =
        mosaic_source ? nullptr
                      : &convert_kernel(frame.format, g.format, g.width, g.height, conv_options);
    cl_kernel display =
        display_pass ? mono_kernel("mono_to_rgba", mono_options, display_local) : nullptr;
    if (n > 0 && !(scratch_geometry_ == g)) {
        for (ClMem& m : scratch_)
            m.reset();
        scratch_geometry_ = g;
    }
    // g (RGBA) is the largest geometry of the frame: mono rows are shorter, same alignment.
    auto ensure_scratch = [&](size_t i) {
        if (!scratch_[i]) scratch_[i] = cl_.buffer(CL_MEM_READ_WRITE, g.size_bytes());
    };
    if (!conv_to_target) ensure_scratch(input_index);
    for (size_t i = 0; i < n; ++i)
        if (dst_of[i] != kTarget) ensure_scratch(dst_of[i]);

    // ---- upload ----
    size_t total = 0;
    const std::vector<PlaneCopy> planes = plan_planes(frame, total);
    // Where the kernel finds each plane in `src`, and its pitch.
    cl_uint off[3] = {};
    cl_int pitch[3] = {};
    cl_mem src = nullptr;
    ClEvent upload;
    Staging* staged = nullptr;  // the copy path's staging buffer
    const std::optional<DirectSpan> direct = direct_span(frame, planes, cl_.context());
    if (direct) {
        // Direct decode: the planes are already in pinned memory (a PinnedBlock the decoder
        // wrote). One DMA of their span, straight from the block's mapped pointer, into the
        // device buffer; no CPU copy. Not clEnqueueCopyBuffer from the block's cl_mem: the
        // block stays mapped for writing (the decoder's), and a command on a mapped buffer is
        // undefined. The same on host-unified devices (the runtime copies there, off this
        // thread): a kernel reading the block's buffer would need it unmapped, while the
        // decoder may still read the frame as a reference.
        if (device_src_bytes_ < direct->bytes) {
            device_src_ = cl_.buffer(CL_MEM_READ_ONLY, direct->bytes);
            device_src_bytes_ = direct->bytes;
        }
        // The frame (and so its block) stays with the PendingFrame: the block must not go back
        // to the decoder before the DMA that reads it completed.
        out.hold_ = std::make_unique<PendingFrame::HostHold>();
        out.hold_->memory.push_back(frame.av);
        out.hold_->memory.push_back(frame.block);
        out.keep_.push_back(device_src_);
        VFX_CL(clEnqueueWriteBuffer(q, device_src_.get(), CL_FALSE, 0, direct->bytes,
                                    frame.block->data() + direct->first, 0, nullptr, upload.out()));
        out.hold_->until = upload;
        src = device_src_.get();
        for (size_t i = 0; i < planes.size(); ++i) {
            off[i] = static_cast<cl_uint>(frame.block_offset[i] - direct->first);
            pitch[i] = static_cast<cl_int>(planes[i].stride);
        }
        ++uploads_.direct;
    } else {
        ensure_staging(total);
        Staging& s = staging_[next_staging_];
        staged = &s;
        next_staging_ = (next_staging_ + 1) % staging_.size();
        if (s.busy) {  // an old frame's upload (and, host-unified, its conversion and the re-map)
            cl_event ev = s.busy.get();
            VFX_CL(clWaitForEvents(1, &ev));
        }
        if (!s.host) {  // left unmapped by a failure part-way through an earlier enqueue
            cl_int err = CL_SUCCESS;
            s.host = clEnqueueMapBuffer(aux_.get(), s.buffer.get(), CL_TRUE,
                                        CL_MAP_WRITE_INVALIDATE_REGION, 0, s.capacity, 0, nullptr,
                                        nullptr, &err);
            VFX_CL_ERR(err, "clEnqueueMapBuffer(staging)");
        }
        copy_planes(planes, s.host, total);
        out.keep_.push_back(s.buffer);

        if (unified_) {
            // The kernel reads the staging buffer itself once it is unmapped.
            VFX_CL(clEnqueueUnmapMemObject(aux_.get(), s.buffer.get(), s.host, 0, nullptr,
                                           upload.out()));
            VFX_CL(clFlush(aux_.get()));
            s.host = nullptr;
            src = s.buffer.get();
        } else {
            if (device_src_bytes_ < total) {
                device_src_ = cl_.buffer(CL_MEM_READ_ONLY, total);
                device_src_bytes_ = total;
            }
            VFX_CL(clEnqueueWriteBuffer(q, device_src_.get(), CL_FALSE, 0, total, s.host, 0,
                                        nullptr, upload.out()));
            s.busy = upload;
            src = device_src_.get();
            out.keep_.push_back(device_src_);
        }
        for (size_t i = 0; i < planes.size(); ++i) {
            off[i] = static_cast<cl_uint>(planes[i].offset);
            pitch[i] = static_cast<cl_int>(planes[i].row_bytes);
        }
        ++uploads_.copied;
    }
    // Host-unified copy path: the upload is the unmap on the auxiliary queue.
    const bool staged_unified = staged && unified_;
    out.stages_.push_back({"upload", upload, upload});

    // ---- conversion ----
    for (const ClMem& m : scratch_)
        if (m && n > 0) out.keep_.push_back(m);
    cl_mem conv_dst = conv_to_target ? target : scratch_[input_index].get();
    const FrameGeometry& conv_g = geometry_of(kinds.front());
    ClMem target_ref(target);
    VFX_CL(clRetainMemObject(target));
    out.keep_.push_back(target_ref);

    const ConvertCoefficients c = coefficients(frame.format, frame.color);
    const cl_event upload_ev = upload.get();
    const auto after_upload =
        staged_unified ? std::span<const cl_event>(&upload_ev, 1) : std::span<const cl_event>();
    ClEvent converted;
    if (mosaic_source) {
        set_args(conv, src, off[0], pitch[0], conv_dst, static_cast<cl_int>(conv_g.pitch),
                 static_cast<cl_int>(g.width), static_cast<cl_int>(g.height),
                 static_cast<cl_int>(frame.format.shift), c.yscale);
        converted = enqueue_2d(q, conv, g.width, g.height, local, after_upload);
    } else {
        converted = conv_tuned->enqueue(
            cl_, q, conv_options, g.width, g.height,
            [&](cl_kernel k, std::array<size_t, 2>) {
                set_args(k, src, off[0], pitch[0], off[1], pitch[1], off[2], pitch[2], conv_dst,
                         static_cast<cl_int>(conv_g.pitch), static_cast<cl_int>(g.width),
                         static_cast<cl_int>(g.height), static_cast<cl_int>(frame.format.shift),
                         c.yoff, c.yscale, c.coff, c.cscale, c.rv, c.gu, c.gv, c.bu);
            },
            after_upload);
    }
    out.stages_.push_back({"convert", converted, converted});
    out.done_ = converted;

    if (staged_unified) {
        // Map the staging buffer back for a later frame once this conversion has read it.
        const cl_event conv_ev = converted.get();
        cl_int err = CL_SUCCESS;
        staged->host = clEnqueueMapBuffer(aux_.get(), staged->buffer.get(), CL_FALSE,
                                          CL_MAP_WRITE_INVALIDATE_REGION, 0, staged->capacity, 1,
                                          &conv_ev, staged->busy.out(), &err);
        VFX_CL_ERR(err, "clEnqueueMapBuffer(staging)");
    }

    // ---- chain: input -> scratch 1 -> 0 ... the last writing stage writes the target ----
    ClMem histogram;
    auto buffer = [&](size_t b) { return b == kTarget ? target : scratch_[b].get(); };
    size_t cur = conv_to_target ? kTarget : input_index;
    for (size_t i = 0; i < n; ++i) {
        cl_mem fsrc = buffer(src_of[i]);
        cl_mem fdst = buffer(dst_of[i]);
        std::vector<ClEvent> events;
        const FrameGeometry& in_g = geometry_of(kinds[i]);
        const FrameGeometry& out_g = geometry_of(kinds[i + 1]);
        FilterIo io{cl_, q, fsrc, fdst, in_g, events, out.keep_};
        if (&out_g != &in_g) io.dst_g = &out_g;
        if (need_input) {
            io.input = scratch_[input_index].get();
            io.input_g = &conv_g;
        }
        io.source_bits = frame.format.bits;
        io.histogram_out = &histogram;
        stages_[i].filter->enqueue(io);
        if (events.empty()) fail("stage {} enqueued no command", stages_[i].name);
        out.stages_.push_back({stages_[i].name, events.front(), events.back()});
        out.done_ = events.back();
        cur = dst_of[i];
    }
    if (display_pass) {
        set_args(display, buffer(cur), static_cast<cl_int>(gm.pitch), target,
                 static_cast<cl_int>(g.pitch), static_cast<cl_int>(g.width),
                 static_cast<cl_int>(g.height));
        ClEvent shown = enqueue_2d(q, display, g.width, g.height, display_local);
        out.stages_.push_back({"display", shown, shown});
        out.done_ = shown;
    }
    if (histogram) {
        out.histogram_ = pinned_block();
        out.keep_.push_back(histogram);
        ClEvent read;
        VFX_CL(clEnqueueReadBuffer(q, histogram.get(), CL_FALSE, 0, sizeof(Histogram::counts),
                                   out.histogram_->host, 0, nullptr, read.out()));
        out.done_ = read;
    }
    if (chain_output) {
        ClEvent copied;
        VFX_CL(clEnqueueCopyBuffer(q, target, chain_output, 0, 0, g.size_bytes(), 0, nullptr,
                                   copied.out()));
        out.done_ = copied;
    }
    enqueue_view(out, conv_dst, conv_g, target, g);

    VFX_CL(clFlush(q));
    if (staged_unified) VFX_CL(clFlush(aux_.get()));
    return out;
}

}  // namespace vfx
