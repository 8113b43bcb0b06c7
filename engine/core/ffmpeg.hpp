#pragma once
// FFmpeg helpers shared by the modules that use libav*: owning pointers for its objects, its
// error codes (macros that expand to C casts, wrapped once so callers stay warning-free) and
// the text of an error.
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/dict.h>
#include <libswscale/swscale.h>
}

#include <memory>
#include <string>

namespace vfx::av {

struct FormatCloser {
    void operator()(AVFormatContext* c) const { avformat_close_input(&c); }
};
struct CodecFree {
    void operator()(AVCodecContext* c) const { avcodec_free_context(&c); }
};
struct PacketFree {
    void operator()(AVPacket* p) const { av_packet_free(&p); }
};
struct FrameFree {
    void operator()(AVFrame* f) const { av_frame_free(&f); }
};
struct DictFree {
    void operator()(AVDictionary* d) const { av_dict_free(&d); }
};
struct SwsFree {
    void operator()(SwsContext* s) const { sws_freeContext(s); }
};
using FormatPtr = std::unique_ptr<AVFormatContext, FormatCloser>;
using CodecPtr = std::unique_ptr<AVCodecContext, CodecFree>;
using PacketPtr = std::unique_ptr<AVPacket, PacketFree>;
using FramePtr = std::unique_ptr<AVFrame, FrameFree>;
using SwsPtr = std::unique_ptr<SwsContext, SwsFree>;

int err_posix(int e);  // AVERROR(e)
int err_eof();         // AVERROR_EOF
int err_invalid_data();
int err_option_not_found();
int err_stream_not_found();
int err_decoder_not_found();
int err_exit();
int64_t no_pts();  // AV_NOPTS_VALUE

// av_strerror's text for an FFmpeg error code.
std::string error_text(int err);

}  // namespace vfx::av
