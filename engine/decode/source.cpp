#include "decode/source.hpp"

#include <cstdint>
#include <cstring>

extern "C" {
#include <libavcodec/avcodec.h>
#ifdef VFX_WITH_AVDEVICE
#include <libavdevice/avdevice.h>
#endif
#include <libavformat/avformat.h>
#include <libavutil/cpu.h>
#include <libavutil/dict.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <new>
#include <thread>
#include <unordered_set>

#include "core/error.hpp"
#include "core/ffmpeg.hpp"
#include "core/log.hpp"

namespace vfx {
namespace {

using namespace av;  // owning pointers and error helpers (core/ffmpeg.hpp)

FramePtr alloc_frame() {
    FramePtr f(av_frame_alloc());
    if (!f) throw std::bad_alloc();
    return f;
}

std::shared_ptr<AVFrame> share(FramePtr f) {
    return {f.release(), FrameFree{}};
}

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// --- pixel formats -----------------------------------------------------------------------------

SourceFormat make_format(PlaneLayout layout, int bits, int bytes, int shift = 0, int cw = 0,
                         int ch = 0) {
    SourceFormat f;
    f.layout = layout;
    f.bits = static_cast<uint8_t>(bits);
    f.bytes = static_cast<uint8_t>(bytes);
    f.shift = static_cast<uint8_t>(shift);
    f.chroma_w_log2 = static_cast<uint8_t>(cw);
    f.chroma_h_log2 = static_cast<uint8_t>(ch);
    return f;
}

bool is_bayer(AVPixelFormat pf) {
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(pf);
    return d && (d->flags & AV_PIX_FMT_FLAG_BAYER);
}

// The layouts the OpenCL conversion reads directly; nullopt means "libswscale to rgba".
// Big-endian Bayer mosaics and grey images are byte-swapped to their little-endian twin before
// this is asked (swap_to_little_endian below).
std::optional<SourceFormat> direct_format(AVPixelFormat pf) {
    using L = PlaneLayout;
    switch (pf) {
        case AV_PIX_FMT_YUV420P:
        case AV_PIX_FMT_YUVJ420P:
            return make_format(L::yuv_planar, 8, 1, 0, 1, 1);
        case AV_PIX_FMT_YUV422P:
        case AV_PIX_FMT_YUVJ422P:
            return make_format(L::yuv_planar, 8, 1, 0, 1, 0);
        case AV_PIX_FMT_YUV444P:
        case AV_PIX_FMT_YUVJ444P:
            return make_format(L::yuv_planar, 8, 1, 0, 0, 0);
        case AV_PIX_FMT_YUV420P10LE:
            return make_format(L::yuv_planar, 10, 2, 0, 1, 1);
        case AV_PIX_FMT_YUV422P10LE:
            return make_format(L::yuv_planar, 10, 2, 0, 1, 0);
        case AV_PIX_FMT_YUV444P10LE:
            return make_format(L::yuv_planar, 10, 2, 0, 0, 0);
        case AV_PIX_FMT_YUV420P12LE:
            return make_format(L::yuv_planar, 12, 2, 0, 1, 1);
        case AV_PIX_FMT_YUV422P12LE:
            return make_format(L::yuv_planar, 12, 2, 0, 1, 0);
        case AV_PIX_FMT_YUV444P12LE:
            return make_format(L::yuv_planar, 12, 2, 0, 0, 0);
        case AV_PIX_FMT_YUV420P16LE:
            return make_format(L::yuv_planar, 16, 2, 0, 1, 1);
        case AV_PIX_FMT_YUV422P16LE:
            return make_format(L::yuv_planar, 16, 2, 0, 1, 0);
        case AV_PIX_FMT_YUV444P16LE:
            return make_format(L::yuv_planar, 16, 2, 0, 0, 0);
        case AV_PIX_FMT_NV12:
            return make_format(L::yuv_semiplanar, 8, 1, 0, 1, 1);
        case AV_PIX_FMT_P010LE:
            return make_format(L::yuv_semiplanar, 10, 2, 6, 1, 1);
        case AV_PIX_FMT_P016LE:
            return make_format(L::yuv_semiplanar, 16, 2, 0, 1, 1);
        case AV_PIX_FMT_YUYV422:
            return make_format(L::yuyv, 8, 1, 0, 1, 0);
        case AV_PIX_FMT_GRAY8:
            return make_format(L::gray, 8, 1);
        case AV_PIX_FMT_GRAY10LE:
            return make_format(L::gray, 10, 2);
        case AV_PIX_FMT_GRAY12LE:
            return make_format(L::gray, 12, 2);
        case AV_PIX_FMT_GRAY16LE:
            return make_format(L::gray, 16, 2);
        case AV_PIX_FMT_RGBA:
            return make_format(L::rgba, 8, 1);
        // What the swscale fallback produces for deep sources; a decoder's own is taken as is.
        case AV_PIX_FMT_RGBA64LE:
            return make_format(L::rgba, 16, 2);
        default:
            break;
    }
    if (is_bayer(pf)) {
        const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(pf);
        if (d->flags & AV_PIX_FMT_FLAG_BE) return std::nullopt;  // swapped by the caller
        const int bpp = av_get_bits_per_pixel(d);
        return bpp > 8 ? make_format(L::gray, 16, 2) : make_format(L::gray, 8, 1);
    }
    return std::nullopt;
}

// Whether frames of `pf` are byte-swapped on the CPU into its little-endian twin before anything
// else: big-endian Bayer mosaics, and big-endian grey whose twin the conversion reads directly
// (a 16-bit grey PNG decodes as gray16be: swapped, it enters the chain as a mosaic, like an
// 8-bit one, instead of going through libswscale to colour).
bool swap_to_little_endian(AVPixelFormat pf) {
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(pf);
    if (!d || !(d->flags & AV_PIX_FMT_FLAG_BE)) return false;
    if (is_bayer(pf)) return true;
    const std::optional<SourceFormat> twin = direct_format(av_pix_fmt_swap_endianness(pf));
    return twin && twin->layout == PlaneLayout::gray;
}

int max_component_depth(const AVPixFmtDescriptor* d) {
    int depth = 0;
    for (int i = 0; i < d->nb_components; ++i)
        depth = std::max(depth, d->comp[i].depth);
    return depth;
}

bool is_yuvj(AVPixelFormat pf) {
    return pf == AV_PIX_FMT_YUVJ420P || pf == AV_PIX_FMT_YUVJ422P || pf == AV_PIX_FMT_YUVJ444P ||
           pf == AV_PIX_FMT_YUVJ440P || pf == AV_PIX_FMT_YUVJ411P;
}

// A YUV (not RGB, not grey, not Bayer) format, i.e. one whose conversion needs a matrix.
bool is_yuv(AVPixelFormat pf) {
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(pf);
    if (!d) return false;
    if (d->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_BAYER | AV_PIX_FMT_FLAG_PAL))
        return false;
    return d->nb_components >= 3;
}

ColorInfo color_info(const AVFrame& f, AVPixelFormat pf) {
    ColorInfo c;
    switch (f.colorspace) {
        case AVCOL_SPC_BT470BG:
        case AVCOL_SPC_SMPTE170M:
        case AVCOL_SPC_FCC:
            c.matrix = Matrix::bt601;
            c.matrix_tagged = true;
            break;
        case AVCOL_SPC_BT709:
            c.matrix = Matrix::bt709;
            c.matrix_tagged = true;
            break;
        case AVCOL_SPC_BT2020_NCL:
        case AVCOL_SPC_BT2020_CL:
            c.matrix = Matrix::bt2020;
            c.matrix_tagged = true;
            break;
        default:
            c.matrix = f.height <= 576 ? Matrix::bt601 : Matrix::bt709;
            c.matrix_tagged = false;
            break;
    }
    switch (f.color_range) {
        case AVCOL_RANGE_JPEG:
            c.range = Range::full;
            c.range_tagged = true;
            break;
        case AVCOL_RANGE_MPEG:
            c.range = Range::limited;
            c.range_tagged = true;
            break;
        default:
            // yuvj* formats are full range by definition; grey, RGB and Bayer samples are
            // full-range samples by the conversion contract.
            c.range = is_yuvj(pf) || !is_yuv(pf) ? Range::full : Range::limited;
            c.range_tagged = false;
            break;
    }
    return c;
}

int sws_colorspace(Matrix m) {
    switch (m) {
        case Matrix::bt601:
            return SWS_CS_ITU601;
        case Matrix::bt709:
            return SWS_CS_ITU709;
        case Matrix::bt2020:
            return SWS_CS_BT2020;
    }
    return SWS_CS_DEFAULT;
}

// Rotation in degrees clockwise (0/90/180/270) from a display matrix, or 0 when there is none.
int rotation_from_matrix(const uint8_t* data, size_t size) {
    if (!data || size < 9 * sizeof(int32_t)) return 0;
    int32_t m[9];
    std::memcpy(m, data, sizeof m);
    const double ccw = av_display_rotation_get(m);
    if (std::isnan(ccw)) return 0;
    long quarter = std::lround(-ccw / 90.0) % 4;
    if (quarter < 0) quarter += 4;
    return static_cast<int>(quarter * 90);
}

// Copies a frame into new buffers with the 16-bit samples byte-swapped into `to`.
FramePtr byteswap_frame(const AVFrame& in, AVPixelFormat to) {
    FramePtr out = alloc_frame();
    out->format = to;
    out->width = in.width;
    out->height = in.height;
    if (av_frame_get_buffer(out.get(), 0) < 0) throw std::bad_alloc();
    av_frame_copy_props(out.get(), &in);
    int widths[4] = {};
    av_image_fill_linesizes(widths, to, in.width);
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(to);
    for (int p = 0; p < 4 && in.data[p]; ++p) {
        const int rows = p == 0 || p == 3 ? in.height : AV_CEIL_RSHIFT(in.height, d->log2_chroma_h);
        for (int y = 0; y < rows; ++y) {
            const uint8_t* s = in.data[p] + ptrdiff_t{y} * in.linesize[p];
            uint8_t* t = out->data[p] + ptrdiff_t{y} * out->linesize[p];
            for (int x = 0; x + 1 < widths[p]; x += 2) {
                t[x] = s[x + 1];
                t[x + 1] = s[x];
            }
        }
    }
    return out;
}

// Copies a frame with negative line sizes into fresh, top-down buffers.
FramePtr make_top_down(const AVFrame& in) {
    FramePtr out = alloc_frame();
    out->format = in.format;
    out->width = in.width;
    out->height = in.height;
    if (av_frame_get_buffer(out.get(), 0) < 0) throw std::bad_alloc();
    av_frame_copy_props(out.get(), &in);
    if (av_frame_copy(out.get(), &in) < 0) throw GpuError("av_frame_copy failed", -1);
    return out;
}

bool is_live_format(const AVInputFormat* f) {
    if (!f) return false;
    if (std::strcmp(f->name, "lavfi") == 0) return true;
    if (std::strstr(f->name, "v4l2") || std::strstr(f->name, "video4linux2")) return true;
    if (f->priv_class) {
        const AVClassCategory cat = f->priv_class->category;
        return cat == AV_CLASS_CATEGORY_DEVICE_VIDEO_INPUT || cat == AV_CLASS_CATEGORY_DEVICE_INPUT;
    }
    return false;
}

// --- direct decode (decode/frame_allocator.hpp) --------------------------------------------------

// What the get_buffer2 callback needs, shared by the source and every buffer it handed out
// (a buffer may be released after the source is gone).
struct DirectState : std::enable_shared_from_this<DirectState> {
    std::shared_ptr<FrameAllocator> allocator;
    std::mutex mu;
    std::unordered_set<const void*> live;  // the DirectBuffers of live AVBuffers (their opaque)
    std::atomic<int64_t> refused{0};       // requests that went to the default allocator
    std::atomic<bool> warned{false};
};

// The opaque of an AVBuffer over a block: keeps the block (and so its allocator) alive.
struct DirectBuffer {
    std::shared_ptr<DirectState> state;
    std::shared_ptr<FrameBlock> block;
};

// AVBuffer free callback: any thread, any time (also after the source is gone).
void free_direct_buffer(void* opaque, uint8_t* /*data*/) {
    auto* b = static_cast<DirectBuffer*>(opaque);
    {
        std::lock_guard lk(b->state->mu);
        b->state->live.erase(b);
    }
    delete b;  // the block goes back to its allocator once no one else holds it
}

size_t align_up(size_t v, size_t a) {
    return (v + a - 1) / a * a;
}

// Lays `frame` out in one block of the allocator, the way avcodec_default_get_buffer2 does
// (libavcodec/get_buffer.c: linesizes of avcodec_align_dimensions2's width, retried with a
// wider one until every linesize is a multiple of the alignment; plane sizes for the aligned
// height; 16 + alignment bytes of slack after each plane, as its pools allocate), with every
// plane start aligned too. False: not handled here (the caller uses the default).
bool direct_get_buffer(DirectState& st, AVCodecContext* ctx, AVFrame* frame) {
    if (ctx->hw_frames_ctx || frame->width <= 0 || frame->height <= 0) return false;
    const auto pf = static_cast<AVPixelFormat>(frame->format);
    // avcodec_align_dimensions2 reads the context's format: it must be the frame's.
    if (pf != ctx->pix_fmt) return false;
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(pf);
    if (!d ||
        (d->flags & (AV_PIX_FMT_FLAG_HWACCEL | AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_BITSTREAM)))
        return false;
    // Only what the conversion reads directly: anything else is copied by the source anyway
    // (swscale fallback, byte swap), so a block would buy nothing.
    if (!direct_format(pf)) return false;

    // Linesizes exactly as the default allocator makes them (some decoders refuse a linesize
    // that changes between frames, and a refused request falls back to the default).
    int w = frame->width, h = frame->height;
    int stride_align[AV_NUM_DATA_POINTERS] = {};
    avcodec_align_dimensions2(ctx, &w, &h, stride_align);
    int linesize[4] = {};
    for (int tries = 0;; ++tries) {
        if (tries > 16 || av_image_fill_linesizes(linesize, pf, w) < 0) return false;
        bool aligned = true;
        for (int i = 0; i < 4; ++i)
            aligned = aligned && linesize[i] % std::max(stride_align[i], 1) == 0;
        if (aligned) break;
        w += w & ~(w - 1);  // the lowest set bit: the next wider alignment
    }
    // Plane starts: at least what the CPU's widest SIMD loads want, and 64.
    size_t align = std::max<size_t>(64, av_cpu_max_align());
    for (int a : stride_align)
        align = std::max(align, static_cast<size_t>(std::max(a, 0)));
    if (align & (align - 1)) return false;  // not a power of two: leave it to FFmpeg
    ptrdiff_t linesize1[4] = {};
    for (int i = 0; i < 4; ++i)
        linesize1[i] = linesize[i];
    size_t sizes[4] = {};
    if (av_image_fill_plane_sizes(sizes, pf, h, linesize1) < 0) return false;

    size_t offset[4] = {};
    size_t total = 0;
    int planes = 0;
    for (int i = 0; i < 4 && sizes[i] > 0; ++i, ++planes) {
        offset[i] = align_up(total, align);
        total = offset[i] + sizes[i] + 16 + align - 1;
    }
    if (planes == 0) return false;

    std::shared_ptr<FrameBlock> block;
    try {
        block = st.allocator->allocate(total + align);  // + align: room to align the start
    } catch (...) {
        block.reset();
    }
    if (!block || !block->data() || block->size() < total + align) return false;
    const auto base_addr = reinterpret_cast<uintptr_t>(block->data());
    const size_t lead = align_up(base_addr, align) - base_addr;

    auto* holder = new (std::nothrow) DirectBuffer;
    if (!holder) return false;
    holder->state = st.weak_from_this().lock();
    holder->block = std::move(block);
    // Registered before the buffer exists (its free callback erases it).
    try {
        if (!holder->state) throw std::bad_weak_ptr();
        std::lock_guard lk(st.mu);
        st.live.insert(holder);
    } catch (...) {
        delete holder;
        return false;
    }
    AVBufferRef* buf = av_buffer_create(holder->block->data(), holder->block->size(),
                                        free_direct_buffer, holder, 0);
    if (!buf) {
        {
            std::lock_guard lk(st.mu);
            st.live.erase(holder);
        }
        delete holder;
        return false;
    }
    frame->buf[0] = buf;
    for (int i = 0; i < AV_NUM_DATA_POINTERS; ++i) {
        frame->data[i] = nullptr;
        frame->linesize[i] = 0;
    }
    for (int i = 0; i < planes; ++i) {
        frame->data[i] = holder->block->data() + lead + offset[i];
        frame->linesize[i] = linesize[i];
    }
    frame->extended_data = frame->data;
    return true;
}

// AVCodecContext::get_buffer2 with a FrameAllocator. Thread-safe (frame threading calls it
// from the decoder threads).
// ctx->opaque is the source's DirectState (alive while the decoder is).
int direct_get_buffer2(AVCodecContext* ctx, AVFrame* frame, int flags) {
    auto& st = *static_cast<DirectState*>(ctx->opaque);
    if (direct_get_buffer(st, ctx, frame)) return 0;
    st.refused.fetch_add(1, std::memory_order_relaxed);
    return avcodec_default_get_buffer2(ctx, frame, flags);
}

// --- the source --------------------------------------------------------------------------------

// The error budget. Damage the decoder conceals (AV_FRAME_FLAG_CORRUPT, decode_error_flags:
// a lost slice filled in) still gives a frame, passed on and counted, as ffmpeg and mpv pass
// it on; a packet the demuxer flags is counted; only errors the decoder returns are spent
// from the budget, and this many in a row, with no frame between them, end the stream.
constexpr int kMaxConsecutiveErrors = 100;

class FfSource final : public Source {
public:
    explicit FfSource(const SourceOptions& user) { open_input(user); }

    ~FfSource() override {
        stop_flag_ = true;  // interrupts a blocking read inside FFmpeg; ends the decode loop
        {
            std::lock_guard lk(mu_);
            stop_ = true;
        }
        not_full_.notify_all();
        not_empty_.notify_all();
        if (thread_.joinable()) thread_.join();
    }

    void start() {
        thread_ = std::thread([this] { run(); });
    }

    std::optional<HostFrame> next() override {
        std::unique_lock lk(mu_);
        not_empty_.wait(lk, [&] { return !queue_.empty() || finished_; });
        if (!queue_.empty()) {
            HostFrame f = std::move(queue_.front());
            queue_.pop_front();
            not_full_.notify_one();
            return f;
        }
        if (error_) {
            std::exception_ptr e = std::exchange(error_, nullptr);
            std::rethrow_exception(e);
        }
        return std::nullopt;
    }

    const StreamInfo& info() const override { return info_; }

    bool seek(double seconds) override {
        if (info_.live) {
            spdlog::warn("'{}' is a live source: it cannot seek", name_);
            return false;
        }
        {
            std::lock_guard lk(mu_);
            if (thread_done_) {
                spdlog::warn("'{}': cannot seek, its decoder has stopped", name_);
                return false;
            }
            ++generation_;
            seek_pending_ = true;
            seek_target_s_ = std::max(0.0, seconds);
            seek_flag_ = true;
            queue_.clear();
            finished_ = false;
            ++stats_.seeks;
        }
        not_full_.notify_all();  // wakes the decode thread (waiting for room, or at the end)
        return true;
    }

    void set_loop(bool loop) override {
        if (info_.live) {
            if (loop) spdlog::info("'{}' is a live source: loop does not apply", name_);
            return;
        }
        {
            std::lock_guard lk(mu_);
            loop_ = loop;
            // The decode thread waits at the end and will restart: next() must wait for it.
            if (loop && waiting_at_end_ && end_loopable_) finished_ = false;
        }
        not_full_.notify_all();
    }

    bool loop() const override { return loop_.load(); }

    SourceStats stats() const override {
        std::lock_guard lk(mu_);
        SourceStats s = stats_;
        s.queue_depth = queue_.size();
        s.queue_capacity = capacity_;
        if (direct_) s.direct_refused = direct_->refused.load(std::memory_order_relaxed);
        return s;
    }

private:
    void open_input(const SourceOptions& user) {
#ifdef VFX_WITH_AVDEVICE
        static std::once_flag once;
        std::call_once(once, [] { avdevice_register_all(); });
#endif

        const SourceOptions o = expand_short_forms(user);
        name_ = user.input;
        loop_ = o.loop;
        info_.url = o.input;

        const AVInputFormat* ifmt = nullptr;
        if (!o.format.empty()) {
            ifmt = av_find_input_format(o.format.c_str());
            if (!ifmt) fail("cannot open '{}': unknown input format '{}'", name_, o.format);
        }
        AVDictionary* raw_dict = nullptr;
        for (const auto& [k, v] : o.options)
            av_dict_set(&raw_dict, k.c_str(), v.c_str(), 0);
        std::unique_ptr<AVDictionary, DictFree> dict(raw_dict);

        AVFormatContext* ctx = avformat_alloc_context();
        if (!ctx) throw std::bad_alloc();
        ctx->interrupt_callback.callback = [](void* self) -> int {
            return static_cast<FfSource*>(self)->stop_flag_.load() ? 1 : 0;
        };
        ctx->interrupt_callback.opaque = this;
        raw_dict = dict.release();
        take_ffmpeg_error();
        int r = avformat_open_input(&ctx, o.input.c_str(), ifmt, &raw_dict);
        dict.reset(raw_dict);
        if (r < 0) {  // avformat_open_input frees ctx on failure
            // FFmpeg's own word on what it refused, where it logged one.
            std::string why = take_ffmpeg_error();
            why = why.empty() ? error_text(r) : fmt::format("{}: {}", error_text(r), why);
            if (r == err_invalid_data())
                fail("'{}' is not a media file FFmpeg can read ({})", name_, why);
            if (ifmt && std::strcmp(ifmt->name, "lavfi") == 0)
                fail("cannot open '{}': FFmpeg rejected the filter graph ({})", name_, why);
            fail("cannot open '{}': {}", name_, why);
        }
        fmt_.reset(ctx);
        if (const AVDictionaryEntry* e =
                av_dict_get(dict.get(), "", nullptr, AV_DICT_IGNORE_SUFFIX))
            fail("cannot open '{}': input option '{}' is not accepted by the '{}' demuxer", name_,
                 e->key, fmt_->iformat->name);
        info_.demuxer = fmt_->iformat->name;
        info_.live = is_live_format(fmt_->iformat);
        if (info_.live) loop_ = false;

        r = avformat_find_stream_info(fmt_.get(), nullptr);
        if (r < 0) {
            if (r == err_invalid_data())
                fail("'{}' is not a media file FFmpeg can read ({})", name_, error_text(r));
            fail("cannot read '{}': {}", name_, error_text(r));
        }

        const AVCodec* codec = nullptr;
        r = av_find_best_stream(fmt_.get(), AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
        if (r == err_stream_not_found()) fail("'{}' has no video stream", name_);
        if (r == err_decoder_not_found() || (r >= 0 && !codec)) {
            const int idx = av_find_best_stream(fmt_.get(), AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
            const char* cname =
                idx >= 0 ? avcodec_get_name(fmt_->streams[idx]->codecpar->codec_id) : "?";
            fail("'{}': no decoder for its video codec '{}'", name_, cname);
        }
        if (r < 0) fail("cannot read '{}': {}", name_, error_text(r));
        stream_index_ = r;
        stream_ = fmt_->streams[r];
        for (unsigned i = 0; i < fmt_->nb_streams; ++i)
            if (static_cast<int>(i) != stream_index_) fmt_->streams[i]->discard = AVDISCARD_ALL;

        dec_.reset(avcodec_alloc_context3(codec));
        if (!dec_) throw std::bad_alloc();
        r = avcodec_parameters_to_context(dec_.get(), stream_->codecpar);
        if (r < 0) fail("cannot decode '{}': {}", name_, error_text(r));
        dec_->pkt_timebase = stream_->time_base;
        dec_->thread_count = std::max(0, o.threads);
        if (o.allocator && (codec->capabilities & AV_CODEC_CAP_DR1)) {
            direct_ = std::make_shared<DirectState>();
            direct_->allocator = o.allocator;
            dec_->opaque = direct_.get();
            dec_->get_buffer2 = direct_get_buffer2;
#if FF_API_THREAD_SAFE_CALLBACKS
            // Before libavcodec 60, frame threading hands a custom get_buffer2 that is not
            // marked thread-safe over to the thread feeding packets (and waits): it is.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
            dec_->thread_safe_callbacks = 1;
#pragma GCC diagnostic pop
#endif
            info_.direct_decode = true;
        }
        if (info_.live) {
            // Frame threading holds back one frame per thread: live sources use slices only.
            dec_->thread_type = FF_THREAD_SLICE;
            dec_->flags |= AV_CODEC_FLAG_LOW_DELAY;
        } else {
            dec_->thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE;
        }
        r = avcodec_open2(dec_.get(), codec, nullptr);
        if (r < 0)
            fail("cannot decode '{}': the {} decoder failed to open ({})", name_, codec->name,
                 error_text(r));

        info_.codec = codec->name;
        for (unsigned i = 0; i < fmt_->nb_streams; ++i)
            info_.audio_streams += fmt_->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_AUDIO;
        const char* pfn = av_get_pix_fmt_name(dec_->pix_fmt);
        info_.pixel_format = pfn ? pfn : "unknown";
        info_.width = dec_->width;
        info_.height = dec_->height;
        info_.color_primaries = stream_->codecpar->color_primaries;
        info_.color_trc = stream_->codecpar->color_trc;
        if (const AVPixFmtDescriptor* pd = av_pix_fmt_desc_get(dec_->pix_fmt);
            pd && (pd->flags & AV_PIX_FMT_FLAG_ALPHA) && !(pd->flags & AV_PIX_FMT_FLAG_PAL))
            spdlog::info("'{}': its alpha channel ({}) is not used: frames are processed opaque",
                         name_, info_.pixel_format);
        AVRational fr = stream_->avg_frame_rate;
        if (fr.num <= 0 || fr.den <= 0) fr = stream_->r_frame_rate;
        if (fr.num > 0 && fr.den > 0) info_.fps = av_q2d(fr);
        info_.time_base_num = stream_->time_base.num;
        info_.time_base_den = stream_->time_base.den;
        if (fmt_->duration != no_pts() && fmt_->duration > 0)
            info_.duration_s = static_cast<double>(fmt_->duration) / AV_TIME_BASE;
        else if (stream_->duration != no_pts() && stream_->duration > 0)
            info_.duration_s = static_cast<double>(stream_->duration) * av_q2d(stream_->time_base);

        const AVRational nominal = fr.num > 0 && fr.den > 0 ? fr : AVRational{25, 1};
        frame_duration_ =
            std::max<int64_t>(1, av_rescale_q(1, av_inv_q(nominal), stream_->time_base));
        start_pts_ = stream_->start_time;

        size_t size = 0;
        const uint8_t* dm = av_stream_get_side_data(stream_, AV_PKT_DATA_DISPLAYMATRIX, &size);
        stream_rotation_ = rotation_from_matrix(dm, size);
        has_stream_rotation_ = dm != nullptr;

        capacity_ = info_.live ? 1 : std::max<size_t>(1, o.queue_depth);
        spdlog::debug("source '{}': {} / {} {} {}x{} {:.3f} fps, {} threads, queue {}{}", name_,
                      info_.demuxer, info_.codec, info_.pixel_format, info_.width, info_.height,
                      info_.fps, dec_->thread_count, capacity_, info_.live ? " (live)" : "");
    }

    // --- decode thread ---

    void run() {
        try {
            decode_loop();
            summarise_damage();  // also when the run stopped before the end
            std::lock_guard lk(mu_);
            if (stats_.frames_decoded == 0 && !stop_)
                error_ = std::make_exception_ptr(Error(
                    packets_read_ == 0
                        ? fmt::format("'{}' has no packets of its video stream", name_)
                        : fmt::format("no frame of '{}' could be decoded ({} corrupt packets)",
                                      name_, stats_.packets_corrupt)));
        } catch (...) {
            std::lock_guard lk(mu_);
            error_ = std::current_exception();
        }
        {
            std::lock_guard lk(mu_);
            finished_ = true;
            thread_done_ = true;
        }
        not_empty_.notify_all();
    }

    // An error the decoder returned (`counted`: its packet is in packets_corrupt already,
    // flagged by the demuxer). Spends the error budget.
    void count_corrupt(int err, const char* where, bool counted = false) {
        int64_t total = 0;
        {
            std::lock_guard lk(mu_);
            total = counted ? stats_.packets_corrupt : ++stats_.packets_corrupt;
        }
        ++consecutive_errors_;
        note_damage();
        spdlog::debug("'{}': skipped a corrupt packet ({}: {}), {} so far", name_, where,
                      error_text(err), total);
        if (consecutive_errors_ >= kMaxConsecutiveErrors) {
            int64_t decoded = 0;
            {
                std::lock_guard lk(mu_);
                decoded = stats_.frames_decoded;
            }
            if (decoded == 0)
                fail("no frame of '{}' could be decoded ({} corrupt packets)", name_, total);
            fail("decoding '{}' failed: {} packets in a row could not be decoded", name_,
                 consecutive_errors_);
        }
    }

    // The first damage of a pass gets one warning line, and the pass's end a summary
    // (summarise_damage): never a line per packet.
    void note_damage() {
        if (damage_warned_) return;
        damage_warned_ = true;
        spdlog::warn("'{}': damaged data near {:.2f} s; what cannot be decoded is skipped", name_,
                     last_time_s_);
    }

    void summarise_damage() {
        if (!damage_warned_ || damage_summarised_) return;
        damage_summarised_ = true;
        std::lock_guard lk(mu_);
        spdlog::warn("'{}': {} damaged packets, {} frames decoded with concealed damage", name_,
                     stats_.packets_corrupt, stats_.frames_concealed);
    }

    void decode_loop() {
        PacketPtr pkt(av_packet_alloc());
        FramePtr frame = alloc_frame();
        if (!pkt) throw std::bad_alloc();
        bool draining = false;
        busy_since_ = Clock::now();
        busy_ms_ = 0;

        while (!stop_flag_.load()) {
            if (seek_flag_.load()) {
                perform_seek();
                draining = false;
            }
            if (!draining) {
                const int r = av_read_frame(fmt_.get(), pkt.get());
                if (r == err_posix(EAGAIN)) {
                    busy_ms_ += ms_since(busy_since_);
                    std::this_thread::sleep_for(std::chrono::milliseconds(2));
                    busy_since_ = Clock::now();
                    continue;
                }
                if (r < 0) {
                    if (stop_flag_.load() || r == err_exit()) return;
                    if (r != err_eof())
                        spdlog::warn("'{}': read error ({}), ending the stream", name_,
                                     error_text(r));
                    draining = true;
                    avcodec_send_packet(dec_.get(), nullptr);
                } else if (pkt->stream_index != stream_index_) {
                    av_packet_unref(pkt.get());
                    continue;
                } else {
                    note_packet(*pkt);
                    const bool flagged = pkt->flags & AV_PKT_FLAG_CORRUPT;
                    if (flagged) {  // the demuxer saw damage; the decoder may still cope
                        {
                            std::lock_guard lk(mu_);
                            ++stats_.packets_corrupt;
                        }
                        note_damage();
                        spdlog::debug("'{}': the demuxer flagged a corrupt packet", name_);
                    }
                    int s = avcodec_send_packet(dec_.get(), pkt.get());
                    while (s == err_posix(EAGAIN)) {  // output pending: take it, then resend
                        if (!receive_frames(frame.get())) return;
                        if (seek_flag_.load()) break;  // the packet is stale: drop it
                        s = avcodec_send_packet(dec_.get(), pkt.get());
                    }
                    av_packet_unref(pkt.get());
                    if (s < 0 && s != err_eof() && s != err_posix(EAGAIN))
                        count_corrupt(s, "send_packet", flagged);
                }
            }
            if (!receive_frames(frame.get())) return;
            if (seek_flag_.load()) continue;
            if (draining && decoder_drained_) {
                summarise_damage();
                if (discarding_ && held_) {
                    // The seek target lies beyond the last frame: show the last one.
                    discarding_ = false;
                    FramePtr last = std::move(held_);
                    if (!emit(last.get())) return;
                }
                if (loop_.load() && frames_this_pass_ > 0 && restart()) {
                    draining = false;
                    continue;
                }
                if (!wait_at_end()) return;
                if (!seek_flag_.load() && !restart()) return;  // woken by loop switched on
                draining = false;
            }
        }
    }

    // At the end of the input: lets the consumer see the end, then waits for a seek, for loop
    // to be switched on, or for destruction. False: end the thread.
    bool wait_at_end() {
        std::unique_lock lk(mu_);
        if (stats_.frames_decoded == 0) return false;  // run() reports that nothing decoded
        // A seek or loop asked for since the end was seen: the consumer must not see an end.
        if (seek_pending_ || (loop_.load() && frames_this_pass_ > 0)) return true;
        finished_ = true;
        waiting_at_end_ = true;
        end_loopable_ = frames_this_pass_ > 0;
        not_empty_.notify_all();
        busy_ms_ = 0;
        not_full_.wait(
            lk, [&] { return stop_ || seek_pending_ || (loop_.load() && frames_this_pass_ > 0); });
        waiting_at_end_ = false;
        if (stop_) return false;
        finished_ = false;
        busy_since_ = Clock::now();
        return true;
    }

    // Runs the latest seek() request: flush, seek back to a keyframe, then decode and discard
    // up to the target (receive_frames).
    void perform_seek() {
        double target_s = 0;
        {
            std::lock_guard lk(mu_);
            target_s = seek_target_s_;
            decode_gen_ = generation_;
            seek_pending_ = false;
            seek_flag_ = false;
        }
        const int64_t base = start_pts_ != no_pts() ? start_pts_ : 0;
        const int64_t ts = base + std::llround(target_s / av_q2d(stream_->time_base));
        int r = av_seek_frame(fmt_.get(), stream_index_, ts, AVSEEK_FLAG_BACKWARD);
        if (r < 0) r = avformat_seek_file(fmt_.get(), stream_index_, INT64_MIN, ts, ts, 0);
        if (r < 0) {
            spdlog::warn("'{}': cannot seek to {:.3f} s ({}); playing on from where it was", name_,
                         target_s, error_text(r));
            return;
        }
        avcodec_flush_buffers(dec_.get());
        decoder_drained_ = false;
        discarding_ = true;
        discard_until_ = ts;
        held_.reset();
        packet_times_.clear();
        pts_offset_ = 0;
        have_last_pts_ = false;
        frames_this_pass_ = 0;
        busy_ms_ = 0;
        busy_since_ = Clock::now();
        spdlog::debug("'{}': seeking to {:.3f} s", name_, target_s);
    }

    // Remembers when each packet left the demuxer, to stamp the frame it becomes.
    void note_packet(const AVPacket& pkt) {
        ++packets_read_;
        if (pkt.pts != no_pts()) {
            const int64_t from = start_pts_ == no_pts() ? 0 : start_pts_;
            last_time_s_ = static_cast<double>(pkt.pts - from) * av_q2d(stream_->time_base);
        }
        last_packet_at_ = Clock::now();
        if (pkt.pts == no_pts()) return;
        if (packet_times_.size() >= 64) packet_times_.pop_front();
        packet_times_.emplace_back(pkt.pts, last_packet_at_);
    }

    Clock::time_point captured_at(const AVFrame& f) const {
        for (auto it = packet_times_.rbegin(); it != packet_times_.rend(); ++it)
            if (it->first == f.pts) return it->second;
        return last_packet_at_;
    }

    // Takes every frame the decoder has ready. Returns false when stopping.
    bool receive_frames(AVFrame* frame) {
        decoder_drained_ = false;
        for (;;) {
            const int r = avcodec_receive_frame(dec_.get(), frame);
            if (r == err_posix(EAGAIN)) return true;
            if (r == err_eof()) {
                decoder_drained_ = true;
                return true;
            }
            if (r < 0) {
                count_corrupt(r, "receive_frame");
                continue;
            }
            if ((frame->flags & AV_FRAME_FLAG_CORRUPT) || frame->decode_error_flags) {
                {
                    std::lock_guard lk(mu_);
                    ++stats_.frames_concealed;
                }
                note_damage();
            }
            consecutive_errors_ = 0;
            if (discarding_) {
                const int64_t ts = frame->best_effort_timestamp;
                if (ts != no_pts() && ts < discard_until_) {  // before the seek target
                    if (!held_) held_ = alloc_frame();
                    av_frame_unref(held_.get());
                    av_frame_move_ref(held_.get(), frame);
                    std::lock_guard lk(mu_);
                    ++stats_.frames_discarded;
                    continue;
                }
                discarding_ = false;
                held_.reset();
            }
            if (!emit(frame)) return false;
            if (seek_flag_.load()) return true;  // the rest is stale; the loop seeks
        }
    }

    // Makes a HostFrame of `frame` (taking its reference) and queues it. False when stopping.
    bool emit(AVFrame* frame) {
        HostFrame h = make_host_frame(frame);
        av_frame_unref(frame);
        h.decode_ms = busy_ms_ + ms_since(busy_since_);
        if (push(std::move(h)) == Push::stop) return false;
        busy_ms_ = 0;  // the time spent waiting for room in the queue is not decode time
        busy_since_ = Clock::now();
        return true;
    }

    bool restart() {
        const int64_t target = start_pts_ != no_pts() ? start_pts_ : 0;
        int r = av_seek_frame(fmt_.get(), stream_index_, target, AVSEEK_FLAG_BACKWARD);
        if (r < 0) r = avformat_seek_file(fmt_.get(), -1, INT64_MIN, 0, INT64_MAX, 0);
        if (r < 0) {
            spdlog::warn("'{}' cannot loop: seeking to the start failed ({})", name_,
                         error_text(r));
            return false;
        }
        avcodec_flush_buffers(dec_.get());
        packet_times_.clear();
        // The next pass starts one frame after the last one shown.
        pts_offset_ = last_pts_ + frame_duration_ - (start_pts_ != no_pts() ? start_pts_ : 0);
        frames_this_pass_ = 0;
        spdlog::debug("'{}': looping", name_);
        return true;
    }

    HostFrame make_host_frame(AVFrame* frame) {
        HostFrame h;
        auto pf = static_cast<AVPixelFormat>(frame->format);
        const char* pfn = av_get_pix_fmt_name(pf);
        h.pixel_format = pfn ? pfn : "unknown";
        h.width = frame->width;
        h.height = frame->height;
        h.color = color_info(*frame, pf);

        const AVRational sar = av_guess_sample_aspect_ratio(fmt_.get(), stream_, frame);
        if (sar.num > 0 && sar.den > 0) {
            h.sar_num = sar.num;
            h.sar_den = sar.den;
        }
        if (has_stream_rotation_) {
            h.rotation = stream_rotation_;
        } else if (const AVFrameSideData* sd =
                       av_frame_get_side_data(frame, AV_FRAME_DATA_DISPLAYMATRIX)) {
            h.rotation = rotation_from_matrix(sd->data, sd->size);
        }

        // Timestamps: best effort, a frame count where there is none, monotonic, loop-aware.
        if (start_pts_ == no_pts()) {
            start_pts_ =
                frame->best_effort_timestamp != no_pts() ? frame->best_effort_timestamp : 0;
        }
        int64_t raw = frame->best_effort_timestamp;
        if (raw == no_pts()) raw = start_pts_ + frames_this_pass_ * frame_duration_;
        int64_t pts = raw + pts_offset_;
        if (have_last_pts_ && pts <= last_pts_) pts = last_pts_ + frame_duration_;
        last_pts_ = pts;
        have_last_pts_ = true;
        h.pts = pts;
        h.time_s = static_cast<double>(pts - start_pts_) * av_q2d(stream_->time_base);
        h.position_s =
            static_cast<double>(pts - pts_offset_ - start_pts_) * av_q2d(stream_->time_base);
        h.generation = decode_gen_;
        h.captured_at = captured_at(*frame);
        h.index = next_index_++;
        ++frames_this_pass_;

        FramePtr owned = alloc_frame();
        av_frame_move_ref(owned.get(), frame);

        if (swap_to_little_endian(pf)) {
            pf = av_pix_fmt_swap_endianness(pf);
            owned = byteswap_frame(*owned, pf);
        }
        if (std::optional<SourceFormat> direct = direct_format(pf)) {
            h.format = *direct;
            bool negative = false;
            for (int i = 0; i < 4; ++i)
                negative = negative || owned->linesize[i] < 0;
            if (negative) owned = make_top_down(*owned);
            h.av = share(std::move(owned));
            if (direct_) attach_block(h);
        } else {
            h.av = share(fallback(*owned, pf, h.color));
            h.format = make_format(PlaneLayout::rgba, h.av->format == AV_PIX_FMT_RGBA ? 8 : 16,
                                   h.av->format == AV_PIX_FMT_RGBA ? 1 : 2);
            h.swscale_fallback = true;
        }
        return h;
    }

    // Direct decode: when h's planes are in a block of the allocator (its buffer is one the
    // callback made), notes the block and the planes' offsets in it.
    void attach_block(HostFrame& h) const {
        const AVBufferRef* buf = h.av->buf[0];
        if (!buf) return;
        const void* opaque = av_buffer_get_opaque(buf);
        std::shared_ptr<const FrameBlock> block;
        {
            std::lock_guard lk(direct_->mu);
            // Only a live DirectBuffer is in the set: a foreign opaque is never dereferenced.
            if (direct_->live.contains(opaque))
                block = static_cast<const DirectBuffer*>(opaque)->block;
        }
        if (!block) return;
        const auto base = reinterpret_cast<uintptr_t>(block->data());
        std::array<size_t, 3> offsets{};
        for (int i = 0; i < h.plane_count(); ++i) {
            const auto p = reinterpret_cast<uintptr_t>(h.plane(i).data);
            if (p < base || p >= base + block->size()) return;  // not all in the block
            offsets[static_cast<size_t>(i)] = p - base;
        }
        h.block = std::move(block);
        h.block_offset = offsets;
    }

    FramePtr fallback(const AVFrame& in, AVPixelFormat pf, const ColorInfo& color) {
        const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(pf);
        if (!d) fail("'{}': the decoder produced an unknown pixel format", name_);
        const AVPixelFormat dst =
            max_component_depth(d) > 8 ? AV_PIX_FMT_RGBA64LE : AV_PIX_FMT_RGBA;
        SwsContext* s = sws_getCachedContext(
            sws_.release(), in.width, in.height, pf, in.width, in.height, dst,
            SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, nullptr, nullptr, nullptr);
        sws_.reset(s);
        if (!s)
            fail("'{}': cannot convert its pixel format {} to {}", name_, av_get_pix_fmt_name(pf),
                 av_get_pix_fmt_name(dst));
        if (is_yuv(pf) && !is_yuvj(pf)) {
            const int* coefs = sws_getCoefficients(sws_colorspace(color.matrix));
            sws_setColorspaceDetails(s, coefs, color.range == Range::full ? 1 : 0, coefs, 1, 0,
                                     1 << 16, 1 << 16);
        }
        FramePtr out = alloc_frame();
        out->format = dst;
        out->width = in.width;
        out->height = in.height;
        if (av_frame_get_buffer(out.get(), 0) < 0) throw std::bad_alloc();
        av_frame_copy_props(out.get(), &in);
        sws_scale(s, in.data, in.linesize, 0, in.height, out->data, out->linesize);
        {
            std::lock_guard lk(mu_);
            ++stats_.frames_fallback;
        }
        if (!warned_fallback_) {
            warned_fallback_ = true;
            spdlog::debug("'{}': {} is converted to {} by libswscale on the CPU", name_,
                          av_get_pix_fmt_name(pf), av_get_pix_fmt_name(dst));
        }
        return out;
    }

    enum class Push { queued, stale, stop };
    // Waits for room in the queue. A frame decoded before the latest seek() is dropped (stale).
    Push push(HostFrame&& f) {
        std::unique_lock lk(mu_);
        not_full_.wait(lk, [&] { return stop_ || seek_pending_ || queue_.size() < capacity_; });
        if (stop_) return Push::stop;
        if (seek_pending_ || f.generation != generation_) return Push::stale;
        f.ready_at = Clock::now();
        if (f.block) ++stats_.frames_direct;
        queue_.push_back(std::move(f));
        ++stats_.frames_decoded;
        stats_.max_queue_depth = std::max(stats_.max_queue_depth, queue_.size());
        lk.unlock();
        not_empty_.notify_one();
        return Push::queued;
    }

    // Set once by open(), read-only afterwards.
    std::string name_;
    StreamInfo info_;
    FormatPtr fmt_;
    std::shared_ptr<DirectState> direct_;  // direct decode; before dec_: outlives the decoder
    CodecPtr dec_;
    AVStream* stream_ = nullptr;
    int stream_index_ = -1;
    int stream_rotation_ = 0;
    bool has_stream_rotation_ = false;
    int64_t frame_duration_ = 1;
    size_t capacity_ = 1;

    // Decode thread only.
    SwsPtr sws_;
    int64_t start_pts_ = 0;
    int64_t pts_offset_ = 0;
    int64_t last_pts_ = 0;
    bool have_last_pts_ = false;
    int64_t next_index_ = 0;
    int64_t frames_this_pass_ = 0;
    int consecutive_errors_ = 0;
    int64_t packets_read_ = 0;    // of the video stream, every pass
    double last_time_s_ = 0;      // the last packet's pts, for the damage warning
    bool damage_warned_ = false;  // damage_* are the decode thread's, once per source
    bool damage_summarised_ = false;
    bool decoder_drained_ = false;
    bool warned_fallback_ = false;
    Clock::time_point busy_since_;
    double busy_ms_ = 0;
    uint64_t decode_gen_ = 0;    // the generation of the frames being decoded
    bool discarding_ = false;    // decoding up to a seek target
    int64_t discard_until_ = 0;  // the target, in the stream's time base
    FramePtr held_;              // the last frame discarded (shown if the target is past it)
    std::deque<std::pair<int64_t, Clock::time_point>> packet_times_;  // pts -> left the demuxer
    Clock::time_point last_packet_at_;

    // Shared.
    std::atomic<bool> stop_flag_{false};  // read by FFmpeg's interrupt callback
    mutable std::mutex mu_;
    std::condition_variable not_empty_;
    std::condition_variable not_full_;
    std::deque<HostFrame> queue_;
    SourceStats stats_;
    bool stop_ = false;
    bool finished_ = false;     // at the end (for now: a seek or loop may go on)
    bool thread_done_ = false;  // the decode thread has returned
    bool waiting_at_end_ = false, end_loopable_ = false;  // see wait_at_end()
    uint64_t generation_ = 0;                             // seek() calls so far
    bool seek_pending_ = false;
    double seek_target_s_ = 0;
    std::atomic<bool> seek_flag_{false};  // seek_pending_, readable without the lock
    std::atomic<bool> loop_{false};       // written under mu_ (the end-of-input wait reads it)
    std::exception_ptr error_;
    std::thread thread_;
};

}  // namespace

std::string direct_decode_status(const SourceOptions& opts, const StreamInfo& info) {
    if (!opts.allocator) return "off: not asked for (FFmpeg's own buffers, copied for upload)";
    if (!info.direct_decode)
        return fmt::format("off: the {} decoder takes no custom buffers", info.codec);
    return "on: into " + opts.allocator->describe() +
           " (formats the conversion reads directly; others use FFmpeg's own buffers)";
}

SourceOptions expand_short_forms(SourceOptions opts) {
    if (opts.input == "-") {  // standard input, as ffmpeg -i -
        opts.input = "pipe:0";
        return opts;
    }
    static constexpr std::pair<std::string_view, std::string_view> kForms[] = {{"lavfi:", "lavfi"},
                                                                               {"v4l2:", "v4l2"}};
    for (const auto& [prefix, format] : kForms) {
        if (opts.input.starts_with(prefix)) {
            opts.input = opts.input.substr(prefix.size());
            if (opts.format.empty()) opts.format = format;
            break;
        }
    }
    return opts;
}

std::unique_ptr<Source> Source::open(const SourceOptions& opts) {
    auto s = std::make_unique<FfSource>(opts);
    s->start();
    return s;
}

}  // namespace vfx
