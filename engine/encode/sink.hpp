#pragma once
// The output side of `vfx process`: working-format frames (engine/core/format.hpp) go to
//  - `null`                      discarded (timing runs)
//  - NAME.png                    exactly one frame (libavcodec's png encoder)
//  - NAME_%04d.png               one PNG per frame, numbered from 1 (any printf %0Nd)
//  - NAME.mp4 / .mkv / .mov      encoded, H.264 (libx264) unless `codec` names another encoder
// Outputs are written under hidden temporary names in the output's folder and renamed onto
// their final names by finish(); a sink destroyed without finish() removes its temporaries, so
// a failed run never leaves a partial output behind.
//
// Errors the user can cause (bad name, folder, codec, option, a second frame into one PNG)
// throw vfx::Error with one line naming the output.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/files.hpp"
#include "core/format.hpp"

namespace vfx {

struct SinkOptions {
    std::string path;   // "null", NAME.png, NAME_%04d.png, NAME.mp4/.mkv/.mov
    std::string codec;  // video encoder by name (libx264, libx265, libvpx-vp9, or a codec
                        // name such as "hevc"); "" = libx264
    std::vector<std::pair<std::string, std::string>> encoder_options;  // av_opt_set, ctx then priv
    double fps = 25;  // nominal frame rate written to the container
    // The source stream's time base, which the frames' times are multiples of (StreamInfo's);
    // 0: unknown (see VideoSink's choice of time base).
    int time_base_num = 0, time_base_den = 0;
    int sar_num = 1, sar_den = 1;  // sample aspect ratio written to the output
    // The tags of the pixels' primaries and transfer curve (the source's:
    // StreamInfo::color_primaries, color_trc; 2: unspecified): in a video output's stream, and
    // in a PNG's cICP chunk where the source is HDR or wider than BT.709 (sink.cpp's png_cicp).
    int color_primaries = 2, color_trc = 2;
};

// Fails with one line naming `what` unless FFmpeg's PNG encoder takes a frame of width x height
// (libavutil's image size limit: about 16000 x 16000 pixels).
void check_png_size(uint32_t width, uint32_t height, const std::string& what);

class Sink {
public:
    // Validates everything it can before any frame is processed: the kind of output, the codec,
    // the encoder options, that the output's folder exists and is writable. Throws vfx::Error
    // (one line naming the output).
    static std::unique_ptr<Sink> open(const SinkOptions& opts, const FrameGeometry& first_frame);

    // rgba: the working-format frame (RGBA8 or RGBA16 native-endian, rows `pitch` bytes apart).
    // `g` may change from frame to frame (the input changed mid-stream): a PNG sequence writes
    // each frame at its own size, a video scales it to the first frame's size. `time_s` sets
    // the timestamp (video outputs; counted from the first frame written).
    virtual void write(const uint8_t* rgba, const FrameGeometry& g, int64_t index,
                       double time_s) = 0;

    // Flushes the output and moves its finished temporary files, not yet renamed, into `files`,
    // to be published with the run's other files (publish_all: the report and the preset too,
    // all or none). Throws vfx::Error if nothing was written to a file output. A second call
    // adds nothing.
    virtual void finish_into(std::vector<TempFile>& files) = 0;

    // finish_into, then publish_all of those files: the output appears whole or not at all.
    void finish();

    // Without finish(): removes every temporary, leaves no partial output file.
    virtual ~Sink();

    // e.g. "h264 (libx264) in out.mp4", "PNG frames out_%04d.png".
    virtual std::string describe() const = 0;
    // A file of encoded video (a container that could also hold sound), not pictures or null.
    virtual bool is_video_file() const { return false; }

    // Frames written so far.
    virtual int64_t frames_written() const = 0;
};

}  // namespace vfx
