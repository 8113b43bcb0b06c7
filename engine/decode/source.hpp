#pragma once
// Sources: anything FFmpeg opens (files, stills, `lavfi:GRAPH`, `v4l2:/dev/videoN`, raw video
// through --input-format/--input-opt). Demux and decode run on the source's own thread with
// FFmpeg frame threading; decoded frames wait in a bounded queue.
//
// Threading contract: open() and the destructor belong to the owner's thread; next(), seek(),
// set_loop(), info() and stats() may be called from that one consumer thread while the source
// thread runs.
//
// Seeking (files only): seek() flushes the queue and bumps the generation at once; the source
// thread then flushes the decoder, seeks back to the keyframe at or before the target and
// decodes and discards up to it, so the first frame next() returns after seek(t) is the first
// one at or after t (the last frame when t lies beyond it). A frame of an older generation is
// never returned. At the end of the input the source thread stays alive (next() returns
// nullopt) until a seek, loop being switched on, or destruction.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "decode/frame_allocator.hpp"
#include "decode/host_frame.hpp"

namespace vfx {

struct SourceOptions {
    std::string input;                                         // path or short form
    std::string format;                                        // demuxer name ("" = probe)
    std::vector<std::pair<std::string, std::string>> options;  // demuxer options
    size_t queue_depth = 4;  // bounded queue; live sources are clamped to 1
    int threads = 0;         // decoder threads, 0 = as many as cores
    bool loop = false;       // restart at end of file (files only)
    // Direct decode (decode/frame_allocator.hpp): decode straight into this allocator's blocks
    // (frames of the formats it covers); null: FFmpeg's own buffers. Shared: the source and
    // every frame decoded into a block keep it alive.
    std::shared_ptr<FrameAllocator> allocator;
};

struct StreamInfo {
    std::string url;           // what was handed to FFmpeg after short-form expansion
    std::string demuxer;       // e.g. "mov,mp4,m4a,3gp,3g2,mj2"
    std::string codec;         // e.g. "h264"
    std::string pixel_format;  // decoder's pixel format, e.g. "yuv420p"
    int width = 0, height = 0;
    // The stream's colour primaries and transfer curve (FFmpeg's AVColorPrimaries and
    // AVColorTransferCharacteristic; 2: unspecified): the working format keeps both, so an
    // encoded output is tagged with them.
    int color_primaries = 2, color_trc = 2;
    double fps = 0;                            // average frame rate, 0 when unknown
    int time_base_num = 0, time_base_den = 1;  // the stream's (frames' times are multiples)
    double duration_s = 0;                     // 0 when unknown
    bool live = false;           // lavfi: and v4l2: sources: low latency, queue depth 1
    int audio_streams = 0;       // the input's audio streams (vfx reads video only)
    bool direct_decode = false;  // SourceOptions::allocator is in use (the decoder supports
                                 // custom buffers: AV_CODEC_CAP_DR1)
};

struct SourceStats {
    int64_t frames_decoded = 0;
    int64_t packets_corrupt = 0;   // flagged by the demuxer (still decoded) or refused by the
                                   // decoder (skipped); counted, the run goes on
    int64_t frames_concealed = 0;  // decoded with damage the decoder hid (a lost slice filled
                                   // in from its neighbours): passed on like any frame, counted
    int64_t frames_fallback = 0;   // converted by libswscale on the CPU
    int64_t frames_direct = 0;     // queued frames whose planes are in an allocator block
                                   // (HostFrame::block; counted at each push)
    int64_t direct_refused = 0;    // direct-decode buffer requests that fell back to FFmpeg's
                                   // own buffers (format not covered, allocator refused)
    int64_t frames_discarded = 0;  // decoded only to reach a seek target
    int64_t seeks = 0;
    size_t queue_depth = 0;  // frames waiting right now
    size_t queue_capacity = 0;
    size_t max_queue_depth = 0;  // the most frames ever waiting at once (counted at each push)
};

class Source {
public:
    // Opens the input and its first video stream, starts the decode thread. Throws vfx::Error
    // with a one-line message naming the input and the cause (missing file, not media, no
    // video stream, unknown demuxer or option).
    static std::unique_ptr<Source> open(const SourceOptions& opts);
    virtual ~Source() = default;

    // Blocks until the next frame. Returns nullopt at the end of the stream. Throws vfx::Error
    // if the stream ended (or failed) before any frame decoded.
    virtual std::optional<HostFrame> next() = 0;

    // Seeks to `seconds` from the input's start (HostFrame::position_s; clamped at 0), see the
    // contract above; also after the end was reached. Returns false and logs one line why for
    // a live source or a source whose thread has stopped (error).
    virtual bool seek(double seconds) = 0;
    // Restart at the end of the input (files; a live source ignores it and logs so).
    virtual void set_loop(bool loop) = 0;
    virtual bool loop() const = 0;

    virtual const StreamInfo& info() const = 0;
    virtual SourceStats stats() const = 0;
};

// One line for the log: whether the source opened with `opts` (its `info`) decodes straight into
// opts.allocator's blocks ("on: into ...", "off: not asked for", "off: the X decoder ...").
std::string direct_decode_status(const SourceOptions& opts, const StreamInfo& info);

// Expands the short forms: "lavfi:GRAPH" -> (lavfi, GRAPH), "v4l2:/dev/videoN" -> (v4l2, path),
// "-" -> "pipe:0" (standard input). Explicit --input-format wins over a short form's.
SourceOptions expand_short_forms(SourceOptions opts);

}  // namespace vfx
