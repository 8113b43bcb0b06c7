#include "encode/sink.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/crc.h>
#include <libavutil/dict.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <span>
#include <system_error>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/ffmpeg.hpp"
#include "core/files.hpp"
#include "core/log.hpp"

namespace fs = std::filesystem;

namespace vfx {

Sink::~Sink() = default;

void check_png_size(uint32_t width, uint32_t height, const std::string& what) {
    if (width > INT_MAX || height > INT_MAX ||
        av_image_check_size(static_cast<unsigned>(width), static_cast<unsigned>(height), 0,
                            nullptr) < 0)
        fail("{}: {}x{} is larger than FFmpeg writes a PNG image", what, width, height);
}

void Sink::finish() {
    std::vector<TempFile> files;
    finish_into(files);
    publish_all(files);  // on failure `files` goes, and with it every temporary
}

namespace {

using namespace av;  // owning pointers and error helpers (core/ffmpeg.hpp)

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// --- output names --------------------------------------------------------------------------

// --- null --------------------------------------------------------------------------------------

class NullSink final : public Sink {
public:
    void write(const uint8_t*, const FrameGeometry&, int64_t, double) override { ++frames_; }
    void finish_into(std::vector<TempFile>&) override {}
    std::string describe() const override { return "null (frames discarded)"; }
    int64_t frames_written() const override { return frames_; }

private:
    int64_t frames_ = 0;
};

// --- PNG ---------------------------------------------------------------------------------------

// The cICP chunk (PNG, third edition: coding-independent code points, those of ITU-T H.273 that
// FFmpeg's AVColorPrimaries / AVColorTransferCharacteristic hold) of a PNG whose pixels have
// these primaries and transfer: for an HDR transfer (PQ, HLG) or primaries wider than BT.709's
// (BT.2020, DCI-P3, Display P3), where a viewer that takes the file for sRGB shows it wrong.
// Nothing for an untagged source or BT.709-like SDR, which viewers' sRGB default shows as
// video players do. RGB (matrix 0), full range.
std::optional<std::array<uint8_t, 4>> png_cicp(int primaries, int trc) {
    const bool hdr = trc == AVCOL_TRC_SMPTE2084 || trc == AVCOL_TRC_ARIB_STD_B67;
    // An HDR transfer without primaries: BT.2020's, which HDR10 and HLG both define (as FFmpeg's
    // tone-mapping filters take them).
    if (hdr && primaries == AVCOL_PRI_UNSPECIFIED) primaries = AVCOL_PRI_BT2020;
    const bool wide = primaries == AVCOL_PRI_BT2020 || primaries == AVCOL_PRI_SMPTE431 ||
                      primaries == AVCOL_PRI_SMPTE432;
    if (!hdr && !wide) return std::nullopt;
    if (primaries == AVCOL_PRI_UNSPECIFIED || primaries == AVCOL_PRI_RESERVED ||
        primaries == AVCOL_PRI_RESERVED0 || trc == AVCOL_TRC_UNSPECIFIED ||
        trc == AVCOL_TRC_RESERVED || trc == AVCOL_TRC_RESERVED0 || primaries > 255 || trc > 255)
        return std::nullopt;  // wide primaries with an unknown transfer: cICP must name both
    return std::array<uint8_t, 4>{static_cast<uint8_t>(primaries), static_cast<uint8_t>(trc), 0, 1};
}

// `png` with the chunk `type` (4 letters) holding `data` inserted after its IHDR chunk (the
// signature's 8 bytes and IHDR's 25: cICP must precede PLTE and IDAT).
void insert_png_chunk(std::vector<uint8_t>& png, const char* type, std::span<const uint8_t> data) {
    constexpr size_t kAfterIhdr = 8 + 4 + 4 + 13 + 4;
    if (png.size() < kAfterIhdr || std::memcmp(png.data() + 12, "IHDR", 4) != 0)
        fail("PNG encoder gave no IHDR chunk first");
    std::vector<uint8_t> chunk;
    const auto n = static_cast<uint32_t>(data.size());
    for (int shift = 24; shift >= 0; shift -= 8)
        chunk.push_back(static_cast<uint8_t>(n >> shift));
    chunk.insert(chunk.end(), type, type + 4);
    chunk.insert(chunk.end(), data.begin(), data.end());
    // PNG's CRC-32 (ISO 3309: libavutil's AV_CRC_32_IEEE_LE, pre- and post-inverted) of the
    // type and the data.
    const uint32_t crc = av_crc(av_crc_get_table(AV_CRC_32_IEEE_LE), UINT32_MAX, chunk.data() + 4,
                                chunk.size() - 4) ^
                         UINT32_MAX;
    for (int shift = 24; shift >= 0; shift -= 8)
        chunk.push_back(static_cast<uint8_t>(crc >> shift));
    png.insert(png.begin() + kAfterIhdr, chunk.begin(), chunk.end());
}

// libavcodec's png encoder: RGBA8 -> rgba, RGBA16 -> rgba64be. Tagged with a cICP chunk where
// png_cicp says so.
class PngEncoder {
public:
    PngEncoder(const FrameGeometry& g, const SinkOptions& o)
        : out_(o.path),
          sar_{std::max(1, o.sar_num), std::max(1, o.sar_den)},
          cicp_(png_cicp(o.color_primaries, o.color_trc)) {
        frame_.reset(av_frame_alloc());
        pkt_.reset(av_packet_alloc());
        if (!frame_ || !pkt_) throw std::bad_alloc();
        open(g);
    }

    // Encodes one frame and returns the PNG file's bytes. A frame of another size or format
    // than the last (the input changed mid-stream) gets an encoder of its own.
    std::vector<uint8_t> encode(const uint8_t* rgba, const FrameGeometry& g) {
        if (g.width != geometry_.width || g.height != geometry_.height ||
            g.format != geometry_.format)
            open(g);
        av_frame_unref(frame_.get());
        frame_->format = pix_fmt_;
        frame_->width = static_cast<int>(g.width);
        frame_->height = static_cast<int>(g.height);
        if (av_frame_get_buffer(frame_.get(), 0) < 0) throw std::bad_alloc();
        const size_t row = size_t{g.width} * bytes_per_pixel(g.format);
        for (uint32_t y = 0; y < g.height; ++y) {
            const uint8_t* s = rgba + y * g.pitch;
            uint8_t* d = frame_->data[0] + ptrdiff_t{frame_->linesize[0]} * y;
            if (g.format == WorkFormat::rgba8) {
                std::memcpy(d, s, row);
            } else {
                for (size_t i = 0; i < row; i += 2) {  // native-endian 16-bit to big-endian
                    uint16_t v = 0;
                    std::memcpy(&v, s + i, 2);
                    d[i] = static_cast<uint8_t>(v >> 8);
                    d[i + 1] = static_cast<uint8_t>(v & 0xff);
                }
            }
        }
        frame_->pts = pts_++;
        int r = avcodec_send_frame(ctx_.get(), frame_.get());
        if (r < 0) fail("output '{}': PNG encoding failed ({})", out_, error_text(r));
        r = avcodec_receive_packet(ctx_.get(), pkt_.get());
        if (r < 0) fail("output '{}': PNG encoding failed ({})", out_, error_text(r));
        std::vector<uint8_t> bytes(pkt_->data, pkt_->data + pkt_->size);
        av_packet_unref(pkt_.get());
        if (cicp_) insert_png_chunk(bytes, "cICP", *cicp_);
        return bytes;
    }

private:
    void open(const FrameGeometry& g) {
        check_png_size(g.width, g.height, "output '" + out_ + "'");
        const AVCodec* codec = avcodec_find_encoder(AV_CODEC_ID_PNG);
        if (!codec) fail("output '{}': this FFmpeg has no PNG encoder", out_);
        ctx_.reset(avcodec_alloc_context3(codec));
        if (!ctx_) throw std::bad_alloc();
        pix_fmt_ = g.format == WorkFormat::rgba8 ? AV_PIX_FMT_RGBA : AV_PIX_FMT_RGBA64BE;
        ctx_->width = static_cast<int>(g.width);
        ctx_->height = static_cast<int>(g.height);
        ctx_->pix_fmt = pix_fmt_;
        ctx_->time_base = AVRational{1, 25};
        ctx_->sample_aspect_ratio = sar_;
        const int r = avcodec_open2(ctx_.get(), codec, nullptr);
        if (r < 0) fail("output '{}': cannot open the PNG encoder ({})", out_, error_text(r));
        geometry_ = g;
    }

    std::string out_;
    AVRational sar_;
    std::optional<std::array<uint8_t, 4>> cicp_;
    FrameGeometry geometry_;
    CodecPtr ctx_;
    FramePtr frame_;
    PacketPtr pkt_;
    AVPixelFormat pix_fmt_ = AV_PIX_FMT_RGBA;
    int64_t pts_ = 0;
};

class PngImageSink final : public Sink {
public:
    PngImageSink(const SinkOptions& o, const FrameGeometry& g) : out_(o.path), enc_(g, o) {
        check_can_create(out_, "output");
        tmp_.emplace(fs::path(out_), out_);
    }

    void write(const uint8_t* rgba, const FrameGeometry& g, int64_t, double) override {
        if (frames_ > 0) {
            tmp_->discard();
            fail(
                "output '{}' holds one frame but the input has more; use a name with %04d or "
                "--frames 1",
                out_);
        }
        const std::vector<uint8_t> png = enc_.encode(rgba, g);
        write_file(*tmp_, png.data(), png.size(), "cannot write '" + out_ + "'");
        ++frames_;
    }

    void finish_into(std::vector<TempFile>& files) override {
        if (!tmp_) return;
        if (frames_ == 0) fail("output '{}': no frame was written", out_);
        files.push_back(std::move(*tmp_));
        tmp_.reset();
    }

    std::string describe() const override { return "PNG image " + out_; }
    int64_t frames_written() const override { return frames_; }

private:
    std::string out_;
    std::optional<TempFile> tmp_;
    PngEncoder enc_;
    int64_t frames_ = 0;
};

class PngSequenceSink final : public Sink {
public:
    PngSequenceSink(const SinkOptions& o, const FrameGeometry& g, NumberPattern p)
        : out_(o.path), pattern_(p), enc_(g, o) {
        check_can_create(out_, "output");
        // The frames' names are longer than the pattern by the number's digits (its width at
        // least): found now, not by the first rename at the end of the run.
        const size_t name = fs::path(out_).filename().string().size() - (p.end - p.begin);
        const size_t name_max = longest_name_in(folder_of(out_));
        const size_t digits = std::max<size_t>(static_cast<size_t>(std::max(p.width, 0)), 1);
        if (name_max > 0 && name + digits > name_max)
            fail(
                "output '{}': the frames' names would be {} bytes or more, longer than the "
                "file system allows ({})",
                out_.size() > 300 ? out_.substr(0, 300) + "..." : out_, name + digits, name_max);
    }

    void write(const uint8_t* rgba, const FrameGeometry& g, int64_t, double) override {
        const std::vector<uint8_t> png = enc_.encode(rgba, g);
        const fs::path dir = fs::path(out_).parent_path();
        const std::string name =
            expand_number(fs::path(out_).filename().string(), pattern_, frames_ + 1);
        // Found now, at the frame, rather than by the rename at the end of the whole run.
        std::error_code ec;
        if (fs::is_directory(dir / name, ec))
            fail("output '{}': a folder named '{}' is in the way of frame {}", out_,
                 (dir / name).string(), frames_ + 1);
        files_.emplace_back(dir / name, out_);
        write_file(files_.back(), png.data(), png.size(), "cannot write '" + out_ + "'");
        ++frames_;
    }

    void finish_into(std::vector<TempFile>& files) override {
        if (frames_ == 0) fail("output '{}': no frame was written", out_);
        for (TempFile& f : files_)
            files.push_back(std::move(f));
        files_.clear();
    }

    std::string describe() const override { return "PNG frames " + out_; }
    int64_t frames_written() const override { return frames_; }

private:
    std::string out_;
    NumberPattern pattern_;
    PngEncoder enc_;
    std::vector<TempFile> files_;  // every frame's file, all renamed at finish
    int64_t frames_ = 0;
};

// --- encoded video -----------------------------------------------------------------------------

struct OutputContextFree {
    void operator()(AVFormatContext* c) const {
        if (c->pb) avio_closep(&c->pb);
        avformat_free_context(c);
    }
};
using OutputPtr = std::unique_ptr<AVFormatContext, OutputContextFree>;

bool supports(const AVCodec* c, AVPixelFormat pf) {
    if (!c->pix_fmts) return false;
    for (const AVPixelFormat* p = c->pix_fmts; *p != AV_PIX_FMT_NONE; ++p)
        if (*p == pf) return true;
    return false;
}

bool subsampled(AVPixelFormat pf) {
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(pf);
    return d && (d->log2_chroma_w || d->log2_chroma_h);
}

// The encoder's input format: yuv420p for 8-bit frames, a 10-bit 4:2:0 format for 16-bit frames
// where the encoder has one, 4:4:4 where the size is odd, else FFmpeg's best match.
AVPixelFormat choose_pix_fmt(const AVCodec* c, const FrameGeometry& g, const std::string& out) {
    const bool deep = g.format == WorkFormat::rgba16;
    const bool odd = (g.width % 2) != 0 || (g.height % 2) != 0;
    std::vector<AVPixelFormat> prefs;
    if (deep) {
        if (!odd) prefs.push_back(AV_PIX_FMT_YUV420P10LE);
        prefs.push_back(AV_PIX_FMT_YUV444P10LE);
    }
    if (!odd) prefs.push_back(AV_PIX_FMT_YUV420P);
    prefs.push_back(AV_PIX_FMT_YUV444P);
    for (AVPixelFormat pf : prefs)
        if (supports(c, pf)) return pf;
    const AVPixelFormat src = deep ? AV_PIX_FMT_RGBA64 : AV_PIX_FMT_RGBA;
    if (!c->pix_fmts) return src;
    std::vector<AVPixelFormat> usable;
    for (const AVPixelFormat* p = c->pix_fmts; *p != AV_PIX_FMT_NONE; ++p)
        if (!(odd && subsampled(*p))) usable.push_back(*p);
    if (usable.empty())
        fail("output '{}': the {} encoder cannot take an odd frame size ({}x{})", out, c->name,
             g.width, g.height);
    usable.push_back(AV_PIX_FMT_NONE);
    return avcodec_find_best_pix_fmt_of_list(usable.data(), src, 0, nullptr);
}

class VideoSink final : public Sink {
public:
    VideoSink(const SinkOptions& o, const FrameGeometry& g) : out_(o.path), geometry_(g) {
        check_can_create(out_, "output");
        const AVOutputFormat* ofmt = av_guess_format(nullptr, out_.c_str(), nullptr);
        if (!ofmt) fail("output '{}': FFmpeg has no muxer for this name", out_);

        // The encoder: by encoder name, else by codec name ("hevc" -> its default encoder).
        const std::string cname = o.codec.empty() ? "libx264" : o.codec;
        const AVCodec* codec = avcodec_find_encoder_by_name(cname.c_str());
        if (!codec) {
            if (const AVCodecDescriptor* d = avcodec_descriptor_get_by_name(cname.c_str()))
                codec = avcodec_find_encoder(d->id);
        }
        if (!codec) fail("output '{}': unknown video codec or encoder '{}'", out_, cname);
        if (codec->type != AVMEDIA_TYPE_VIDEO)
            fail("output '{}': '{}' is not a video encoder", out_, cname);
        if (avformat_query_codec(ofmt, codec->id, FF_COMPLIANCE_NORMAL) == 0)
            fail("output '{}': a {} file cannot hold {} video", out_,
                 lower(fs::path(out_).extension().string()), avcodec_get_name(codec->id));

        AVPixelFormat pf = choose_pix_fmt(codec, g, out_);
        enc_.reset(avcodec_alloc_context3(codec));
        if (!enc_) throw std::bad_alloc();
        AVRational fps = av_d2q(o.fps > 0 && std::isfinite(o.fps) ? o.fps : 25.0, 1000000);
        if (fps.num <= 0 || fps.den <= 0) fps = AVRational{25, 1};
        // The time base, which write() rounds each frame's time to: the source's own, where the
        // frames' times came from (a variable-rate clip's too: every frame keeps its time
        // exactly). Without one: for a plain frame rate (25, 30000/1001) a fine grid that
        // holds its frames exactly (30 fps: 1/65520), else 1/60000 (8 us). MPEG-4 part 2
        // takes no denominator over 65535: the grid, or 1/60000, where the source's is finer.
        const bool plain_rate = fps.den <= 1001 && fps.num <= 65535 * 1001;
        AVRational grid{1, 60000};
        if (plain_rate)
            av_reduce(&grid.num, &grid.den, fps.den,
                      int64_t{fps.num} * std::max(1, 65535 / fps.num), INT32_MAX);
        AVRational tb = grid;
        if (o.time_base_num > 0 && o.time_base_den > 0)
            av_reduce(&tb.num, &tb.den, o.time_base_num, o.time_base_den, INT32_MAX);
        if (codec->id == AV_CODEC_ID_MPEG4 && tb.den > 65535)
            tb = grid.den <= 65535 ? grid : AVRational{1, 60000};
        if (codec->supported_framerates) {
            // MPEG-1/2 video: one of the standard's rates, and the time base its frame period
            // (the nearest rate where the input's is not one, as ffmpeg picks). MPEG-1's list
            // in FFmpeg goes on after the standard's eight with "unofficial" rates (5, 10, 12,
            // 15) that its encoder refuses at normal strictness: left out. (MPEG-2's list holds
            // the rates its frame_rate_ext reaches, 1 to 120 fps.)
            std::vector<AVRational> rates;
            for (const AVRational* r = codec->supported_framerates; r->den != 0; ++r)
                if (codec->id != AV_CODEC_ID_MPEG1VIDEO || rates.size() < 8) rates.push_back(*r);
            rates.push_back(AVRational{0, 0});
            const AVRational near = rates[av_find_nearest_q_idx(fps, rates.data())];
            if (av_cmp_q(near, fps) != 0)
                spdlog::warn("output '{}': {} takes {}/{} fps, not {}/{}: frames retimed to it",
                             out_, codec->name, near.num, near.den, fps.num, fps.den);
            fps = near;
            tb = av_inv_q(fps);
        }
        enc_->width = static_cast<int>(g.width);
        enc_->height = static_cast<int>(g.height);
        enc_->pix_fmt = pf;
        enc_->time_base = tb;
        enc_->framerate = fps;
        enc_->sample_aspect_ratio = AVRational{std::max(1, o.sar_num), std::max(1, o.sar_den)};
        enc_->thread_count = 0;
        enc_->color_primaries = static_cast<AVColorPrimaries>(o.color_primaries);
        enc_->color_trc = static_cast<AVColorTransferCharacteristic>(o.color_trc);
        set_colour_tags(pf);
        if (ofmt->flags & AVFMT_GLOBALHEADER) enc_->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;

        // libx265 writes its own log to stderr, around FFmpeg's: its level follows vfx's (its
        // info lines, the encoder's set-up, at vfx's debug), unless x265-params sets log-level.
        std::string x265_log;
        if (std::string_view(codec->name) == "libx265" && enc_->priv_data) {
            const auto level = spdlog::get_level();
            x265_log = fmt::format("log-level={}", level <= spdlog::level::trace   ? "debug"
                                                   : level <= spdlog::level::debug ? "info"
                                                   : level <= spdlog::level::warn  ? "warning"
                                                   : level <= spdlog::level::err   ? "error"
                                                                                   : "none");
            av_opt_set(enc_->priv_data, "x265-params", x265_log.c_str(), 0);
        }
        // Encoder options: the codec context's first, then the encoder's own.
        for (const auto& [given_key, given_value] : o.encoder_options) {
            // ffmpeg's command-line spelling of the context's pixel_format option.
            const std::string key = given_key == "pix_fmt" ? "pixel_format" : given_key;
            std::string value = given_value;
            if (key == "x265-params" && !x265_log.empty() &&
                value.find("log-level") == std::string::npos)
                value += (value.empty() ? "" : ":") + x265_log;
            int r = av_opt_set(enc_.get(), key.c_str(), value.c_str(), 0);
            if (r == err_option_not_found() && codec->priv_class && enc_->priv_data)
                r = av_opt_set(enc_->priv_data, key.c_str(), value.c_str(), 0);
            if (r == err_option_not_found())
                fail("output '{}': encoder option '{}' is not accepted by {}", out_, key,
                     codec->name);
            if (r < 0)
                fail("output '{}': invalid value '{}' for encoder option '{}' of {} ({})", out_,
                     given_value, key, codec->name, error_text(r));
        }
        // The options may have picked another pixel format: follow it (and its default tags,
        // unless the options set those too).
        if (enc_->pix_fmt != pf) {
            pf = enc_->pix_fmt;
            const bool tags_given =
                std::any_of(o.encoder_options.begin(), o.encoder_options.end(), [](const auto& kv) {
                    return kv.first == "colorspace" || kv.first == "color_range";
                });
            if (!tags_given) set_colour_tags(pf);
        }
        int r = avcodec_open2(enc_.get(), codec, nullptr);
        if (r < 0) {
            std::string given;
            for (const auto& [key, value] : o.encoder_options)
                given += (given.empty() ? "" : " ") + key + "=" + value;
            fail("output '{}': cannot open the {} encoder for {}x{} {} ({}){}", out_, codec->name,
                 g.width, g.height, av_get_pix_fmt_name(pf), error_text(r),
                 given.empty() ? "" : "; check the encoder options: " + given);
        }

        make_scaler(g);
        frame_.reset(av_frame_alloc());
        pkt_.reset(av_packet_alloc());
        if (!frame_ || !pkt_) throw std::bad_alloc();
        frame_->format = pf;
        frame_->width = enc_->width;
        frame_->height = enc_->height;
        frame_->sample_aspect_ratio = enc_->sample_aspect_ratio;
        frame_->colorspace = enc_->colorspace;
        frame_->color_range = enc_->color_range;
        frame_->color_primaries = enc_->color_primaries;
        frame_->color_trc = enc_->color_trc;
        if (av_frame_get_buffer(frame_.get(), 0) < 0) throw std::bad_alloc();

        // The container, under its temporary name.
        tmp_.emplace(fs::path(out_), out_);
        AVFormatContext* oc = nullptr;
        r = avformat_alloc_output_context2(&oc, ofmt, nullptr, tmp_->path().c_str());
        if (r < 0 || !oc)
            fail("output '{}': cannot create the {} muxer ({})", out_, ofmt->name, error_text(r));
        oc_.reset(oc);
        stream_ = avformat_new_stream(oc_.get(), nullptr);
        if (!stream_) throw std::bad_alloc();
        r = avcodec_parameters_from_context(stream_->codecpar, enc_.get());
        if (r < 0) fail("output '{}': {}", out_, error_text(r));
        stream_->time_base = enc_->time_base;
        stream_->avg_frame_rate = fps;
        stream_->sample_aspect_ratio = enc_->sample_aspect_ratio;
        r = tmp_->create(
            [&] { return avio_open(&oc_->pb, tmp_->path().c_str(), AVIO_FLAG_WRITE); });
        if (r < 0) fail("cannot write '{}': {}", out_, error_text(r));
        // mp4 and mov: the index moved to the front at the end (faststart), which seeks back.
        const bool faststart = std::strstr(ofmt->name, "mp4") || std::strstr(ofmt->name, "mov");
        AVDictionary* mux_opts = nullptr;
        if (faststart) av_dict_set(&mux_opts, "movflags", "+faststart", 0);
        r = avformat_write_header(oc_.get(), &mux_opts);
        av_dict_free(&mux_opts);
        if (r < 0) {
            // The constructor throws, so no destructor will remove the temporary: do it here.
            oc_.reset();
            tmp_->discard();
            fail("output '{}': cannot write the {} header ({}){}", out_, ofmt->name, error_text(r),
                 faststart && is_special_file(out_)
                     ? "; mp4 and mov need a seekable file: write to a file, or .mkv to a pipe"
                     : "");
        }
        describe_ = fmt::format("{} ({}) in {}", avcodec_get_name(codec->id), codec->name, out_);
        spdlog::debug("output '{}': {} {}x{} {}, time base {}/{}", out_, codec->name, g.width,
                      g.height, av_get_pix_fmt_name(pf), tb.num, tb.den);
    }

    ~VideoSink() override {
        oc_.reset();  // closes the file; tmp_ then removes it unless published
    }

    void write(const uint8_t* rgba, const FrameGeometry& g, int64_t, double time_s) override {
        if (finished_) fail("output '{}': write after finish", out_);
        if (g.width != scaler_geometry_.width || g.height != scaler_geometry_.height ||
            g.format != scaler_geometry_.format) {
            spdlog::warn("output '{}': the input changed to {}x{} {} mid-stream; scaled to {}x{}",
                         out_, g.width, g.height, to_string(g.format), geometry_.width,
                         geometry_.height);
            make_scaler(g);
        }
        int r = av_frame_make_writable(frame_.get());
        if (r < 0) throw std::bad_alloc();
        const uint8_t* src[4] = {rgba, nullptr, nullptr, nullptr};
        const int src_stride[4] = {static_cast<int>(g.pitch), 0, 0, 0};
        sws_scale(sws_.get(), src, src_stride, 0, static_cast<int>(g.height), frame_->data,
                  frame_->linesize);
        if (frames_ == 0) first_time_ = time_s;
        int64_t pts = std::llround((time_s - first_time_) / av_q2d(enc_->time_base));
        if (frames_ > 0 && pts <= last_pts_) pts = last_pts_ + 1;
        last_pts_ = pts;
        frame_->pts = pts;
        r = avcodec_send_frame(enc_.get(), frame_.get());
        if (r < 0) fail("output '{}': encoding failed ({})", out_, error_text(r));
        drain();
        ++frames_;
    }

    void finish_into(std::vector<TempFile>& files) override {
        if (!tmp_) return;
        if (frames_ == 0) fail("output '{}': no frame was written", out_);
        if (!finished_) {
            finished_ = true;
            const int r = avcodec_send_frame(enc_.get(), nullptr);
            if (r < 0 && r != err_eof())
                fail("output '{}': encoding failed ({})", out_, error_text(r));
            drain();
            const int t = av_write_trailer(oc_.get());
            if (t < 0) fail("cannot write '{}': {}", out_, error_text(t));
            const int c = avio_closep(&oc_->pb);
            if (c < 0) fail("cannot write '{}': {}", out_, error_text(c));
        }
        files.push_back(std::move(*tmp_));
        tmp_.reset();
    }

    std::string describe() const override { return describe_; }
    bool is_video_file() const override { return true; }
    int64_t frames_written() const override { return frames_; }

private:
    // RGBA of geometry `g` -> the encoder's size and format: full-range RGB to the matrix and
    // range it is tagged with. A frame of another size than the first (the input changed
    // mid-stream) is scaled to the encoder's size, as the ffmpeg command line does.
    void make_scaler(const FrameGeometry& g) {
        const AVPixelFormat pf = enc_->pix_fmt;
        const AVPixelFormat src =
            g.format == WorkFormat::rgba8 ? AV_PIX_FMT_RGBA : AV_PIX_FMT_RGBA64;
        sws_.reset(sws_getContext(
            static_cast<int>(g.width), static_cast<int>(g.height), src, enc_->width, enc_->height,
            pf, SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INP, nullptr, nullptr, nullptr));
        if (!sws_) fail("output '{}': cannot convert RGBA to {}", out_, av_get_pix_fmt_name(pf));
        const AVPixFmtDescriptor* pd = av_pix_fmt_desc_get(pf);
        if (pd && !(pd->flags & AV_PIX_FMT_FLAG_RGB) && enc_->colorspace != AVCOL_SPC_RGB) {
            int cs = SWS_CS_ITU709;
            switch (enc_->colorspace) {
                case AVCOL_SPC_BT470BG:
                case AVCOL_SPC_SMPTE170M:
                case AVCOL_SPC_FCC:
                    cs = SWS_CS_ITU601;
                    break;
                case AVCOL_SPC_BT2020_NCL:
                case AVCOL_SPC_BT2020_CL:
                    cs = SWS_CS_BT2020;
                    break;
                default:
                    break;
            }
            const int full = enc_->color_range == AVCOL_RANGE_JPEG ? 1 : 0;
            sws_setColorspaceDetails(sws_.get(), sws_getCoefficients(SWS_CS_DEFAULT), 1,
                                     sws_getCoefficients(cs), full, 0, 1 << 16, 1 << 16);
        }
        scaler_geometry_ = g;
    }

    // Default tags for a pixel format: RGB, JPEG (BT.601 full) or BT.709 limited.
    void set_colour_tags(AVPixelFormat pf) {
        const AVPixFmtDescriptor* pd = av_pix_fmt_desc_get(pf);
        if (pd && (pd->flags & AV_PIX_FMT_FLAG_RGB)) {
            enc_->colorspace = AVCOL_SPC_RGB;
            enc_->color_range = AVCOL_RANGE_JPEG;
        } else if (pf == AV_PIX_FMT_YUVJ420P || pf == AV_PIX_FMT_YUVJ422P ||
                   pf == AV_PIX_FMT_YUVJ444P || enc_->codec_id == AV_CODEC_ID_MJPEG) {
            // JPEG's YUV is full range (FFmpeg's MJPEG encoder takes no other by default).
            enc_->colorspace = AVCOL_SPC_BT470BG;
            enc_->color_range = AVCOL_RANGE_JPEG;
        } else {
            enc_->colorspace = AVCOL_SPC_BT709;
            enc_->color_range = AVCOL_RANGE_MPEG;
        }
    }

    void drain() {
        for (;;) {
            int r = avcodec_receive_packet(enc_.get(), pkt_.get());
            if (r == err_posix(EAGAIN) || r == err_eof()) return;
            if (r < 0) fail("output '{}': encoding failed ({})", out_, error_text(r));
            av_packet_rescale_ts(pkt_.get(), enc_->time_base, stream_->time_base);
            pkt_->stream_index = stream_->index;
            r = av_interleaved_write_frame(oc_.get(), pkt_.get());
            if (r < 0) fail("cannot write '{}': {}", out_, error_text(r));
        }
    }

    std::string out_;
    FrameGeometry geometry_;
    FrameGeometry scaler_geometry_;  // the frames sws_ takes
    std::string describe_;
    CodecPtr enc_;
    SwsPtr sws_;
    FramePtr frame_;
    PacketPtr pkt_;
    std::optional<TempFile> tmp_;  // declared before oc_: the file closes before its removal
    OutputPtr oc_;
    AVStream* stream_ = nullptr;
    bool finished_ = false;
    int64_t frames_ = 0;
    int64_t last_pts_ = 0;
    double first_time_ = 0;
};

}  // namespace

std::unique_ptr<Sink> Sink::open(const SinkOptions& opts, const FrameGeometry& first_frame) {
    if (opts.path == "null") {
        if (!opts.codec.empty() || !opts.encoder_options.empty())
            spdlog::warn("output null: --codec and --encoder-opt apply to video outputs; ignored");
        return std::make_unique<NullSink>();
    }
    if (opts.path.empty()) fail("no output given");
    if (first_frame.width == 0 || first_frame.height == 0)
        fail("output '{}': the frames have no size", opts.path);
    const fs::path p(opts.path);
    const std::string ext = lower(p.extension().string());
    const std::string file = p.filename().string();
    if (ext == ".png") {
        if (!opts.codec.empty() || !opts.encoder_options.empty())
            spdlog::warn(
                "output '{}': --codec and --encoder-opt apply to video outputs (.mp4, .mkv, "
                ".mov); ignored for PNG",
                opts.path);
        if (std::optional<NumberPattern> pat = find_number_pattern(file)) {
            if (find_number_pattern(file.substr(pat->end)))
                fail(
                    "output '{}': more than one frame number (%d) in the name; write a "
                    "literal % as %%",
                    opts.path);
            return std::make_unique<PngSequenceSink>(opts, first_frame, *pat);
        }
        return std::make_unique<PngImageSink>(opts, first_frame);
    }
    if (ext == ".mp4" || ext == ".mkv" || ext == ".mov") {
        if (find_number_pattern(file))
            fail("output '{}': a numbered name (%d) only makes sense for .png sequences",
                 opts.path);
        return std::make_unique<VideoSink>(opts, first_frame);
    }
    fail(
        "output '{}': unsupported kind of output{}; use null, NAME.png (one frame), "
        "NAME_%04d.png (numbered frames), NAME.mp4, NAME.mkv or NAME.mov",
        opts.path, ext.empty() ? "" : " '" + ext + "'");
}

}  // namespace vfx
