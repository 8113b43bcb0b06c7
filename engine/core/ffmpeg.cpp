#include "core/ffmpeg.hpp"

extern "C" {
#include <libavutil/error.h>
}

namespace vfx::av {

int err_posix(int e) {
    return AVERROR(e);
}
int err_eof() {
    return AVERROR_EOF;
}
int err_invalid_data() {
    return AVERROR_INVALIDDATA;
}
int err_option_not_found() {
    return AVERROR_OPTION_NOT_FOUND;
}
int err_stream_not_found() {
    return AVERROR_STREAM_NOT_FOUND;
}
int err_decoder_not_found() {
    return AVERROR_DECODER_NOT_FOUND;
}
int err_exit() {
    return AVERROR_EXIT;
}
int64_t no_pts() {
    return AV_NOPTS_VALUE;
}

std::string error_text(int err) {
    char buf[AV_ERROR_MAX_STRING_SIZE] = {};
    av_strerror(err, buf, sizeof buf);
    return buf;
}

}  // namespace vfx::av
