#pragma once
// Shared helpers of the compute tests: the OpenCL context (or a skip), random HostFrames over
// real AVFrames, working-format images and their double-precision filter references.
#include <gtest/gtest.h>

extern "C" {
#include <libavutil/frame.h>
#include <libavutil/pixfmt.h>
}

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "compute/builtin_filters.hpp"
#include "compute/chain.hpp"
#include "compute/cl_context.hpp"
#include "compute/filter.hpp"
#include "compute/processor.hpp"
#include "core/format.hpp"
#include "decode/host_frame.hpp"

namespace vfx::test {

// The test device: the first GPU, else the first device; nullptr when there is none.
inline ClContext* test_cl() {
    static std::unique_ptr<ClContext> cl = []() -> std::unique_ptr<ClContext> {
        const std::vector<ClDeviceInfo> devices = list_cl_devices();
        if (devices.empty()) return nullptr;
        const ClDeviceInfo* pick = &devices.front();
        for (const ClDeviceInfo& d : devices)
            if (d.type & CL_DEVICE_TYPE_GPU) {
                pick = &d;
                break;
            }
        return std::make_unique<ClContext>(*pick);
    }();
    return cl.get();
}

#define VFX_REQUIRE_CL()                                                                      \
    do {                                                                                      \
        if (!::vfx::test::test_cl())                                                          \
            GTEST_SKIP() << "no OpenCL device (list_cl_devices() is empty: no ICD/platform)"; \
    } while (0)

struct SourceCase {
    const char* name;
    AVPixelFormat av;
    SourceFormat format;
};

inline void PrintTo(const SourceCase& c, std::ostream* os) {
    *os << c.name;
}

inline SourceFormat make_sf(PlaneLayout l, int bits, int bytes, int shift, int cw, int ch) {
    SourceFormat f;
    f.layout = l;
    f.bits = static_cast<uint8_t>(bits);
    f.bytes = static_cast<uint8_t>(bytes);
    f.shift = static_cast<uint8_t>(shift);
    f.chroma_w_log2 = static_cast<uint8_t>(cw);
    f.chroma_h_log2 = static_cast<uint8_t>(ch);
    return f;
}

// Rows and row bytes of plane i of a frame (as the processor reads them).
inline void plane_shape(const SourceFormat& sf, int w, int h, int i, size_t& row_bytes, int& rows) {
    const int cw = (w + (1 << sf.chroma_w_log2) - 1) >> sf.chroma_w_log2;
    const int ch = (h + (1 << sf.chroma_h_log2) - 1) >> sf.chroma_h_log2;
    const size_t b = sf.bytes;
    rows = h;
    switch (sf.layout) {
        case PlaneLayout::yuv_planar:
            row_bytes = (i == 0 ? static_cast<size_t>(w) : static_cast<size_t>(cw)) * b;
            rows = i == 0 ? h : ch;
            break;
        case PlaneLayout::yuv_semiplanar:
            row_bytes = (i == 0 ? static_cast<size_t>(w) : 2 * static_cast<size_t>(cw)) * b;
            rows = i == 0 ? h : ch;
            break;
        case PlaneLayout::yuyv:
            row_bytes = static_cast<size_t>((w + 1) / 2) * 4 * b;
            break;
        case PlaneLayout::rgba:
            row_bytes = static_cast<size_t>(w) * 4 * b;
            break;
        case PlaneLayout::gray:
            row_bytes = static_cast<size_t>(w) * b;
            break;
    }
}

inline int plane_count(PlaneLayout l) {
    return l == PlaneLayout::yuv_planar ? 3 : l == PlaneLayout::yuv_semiplanar ? 2 : 1;
}

// A HostFrame over a real AVFrame (FFmpeg's allocation: padded strides) filled with random
// samples of `bits` significant bits, placed as the container holds them (p010: << 6).
inline HostFrame random_frame(const SourceCase& c, int w, int h, ColorInfo color,
                              std::mt19937& rng) {
    AVFrame* av = av_frame_alloc();
    av->format = c.av;
    av->width = w;
    av->height = h;
    if (av_frame_get_buffer(av, 0) < 0) {
        av_frame_free(&av);
        ADD_FAILURE() << "av_frame_get_buffer failed for " << c.name;
        return {};
    }
    HostFrame f;
    f.av = std::shared_ptr<AVFrame>(av, [](AVFrame* p) { av_frame_free(&p); });
    f.format = c.format;
    f.color = color;
    f.width = w;
    f.height = h;
    const SourceFormat& sf = c.format;
    std::uniform_int_distribution<uint32_t> dist(0, (1u << sf.bits) - 1);
    for (int i = 0; i < plane_count(sf.layout); ++i) {
        size_t row_bytes = 0;
        int rows = 0;
        plane_shape(sf, w, h, i, row_bytes, rows);
        for (int y = 0; y < rows; ++y) {
            uint8_t* row = av->data[i] + static_cast<ptrdiff_t>(y) * av->linesize[i];
            for (size_t n = 0; n < row_bytes / sf.bytes; ++n) {
                const uint32_t v = dist(rng) << sf.shift;
                if (sf.bytes == 1) {
                    row[n] = static_cast<uint8_t>(v);
                } else {
                    const auto v16 = static_cast<uint16_t>(v);
                    std::memcpy(row + 2 * n, &v16, 2);
                }
            }
        }
    }
    return f;
}

// A working-format image in host memory, 4 channels per pixel.
struct Image {
    int width = 0, height = 0;
    WorkFormat format = WorkFormat::rgba8;
    std::vector<uint16_t> px;

    uint16_t& at(int x, int y, int c) {
        return px[(static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)) *
                      4 +
                  static_cast<size_t>(c)];
    }
    uint16_t at(int x, int y, int c) const {
        return px[(static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)) *
                      4 +
                  static_cast<size_t>(c)];
    }
    double max_value() const { return format == WorkFormat::rgba8 ? 255.0 : 65535.0; }
};

inline Image random_image(int w, int h, WorkFormat f, std::mt19937& rng) {
    Image img{w, h, f, std::vector<uint16_t>(static_cast<size_t>(w) * static_cast<size_t>(h) * 4)};
    std::uniform_int_distribution<uint32_t> dist(0, f == WorkFormat::rgba8 ? 255u : 65535u);
    for (auto& v : img.px)
        v = static_cast<uint16_t>(dist(rng));
    return img;
}

// An output buffer of `bytes` filled with 0xA5 (blocking): a kernel that leaves pixels
// unwritten shows them as that byte instead of as whatever a freed buffer held there (often the
// right answer of the run before, which hid a launch grid that missed a column of groups).
inline ClMem poisoned_buffer(ClContext& cl, size_t bytes) {
    ClMem m = cl.buffer(CL_MEM_READ_WRITE, bytes);
    const cl_uchar poison = 0xA5;
    VFX_CL(clEnqueueFillBuffer(cl.queue(), m.get(), &poison, 1, 0, bytes, 0, nullptr, nullptr));
    VFX_CL(clFinish(cl.queue()));
    return m;
}

// Working-format buffer <-> Image (blocking).
inline ClMem upload_image(ClContext& cl, const Image& img, const FrameGeometry& g) {
    std::vector<uint8_t> bytes(g.size_bytes(), 0);
    const size_t bpp = bytes_per_pixel(g.format);
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x)
            for (int c = 0; c < 4; ++c) {
                uint8_t* p =
                    bytes.data() + static_cast<size_t>(y) * g.pitch + static_cast<size_t>(x) * bpp;
                if (g.format == WorkFormat::rgba8) {
                    p[c] = static_cast<uint8_t>(img.at(x, y, c));
                } else {
                    const uint16_t v = img.at(x, y, c);
                    std::memcpy(p + 2 * c, &v, 2);
                }
            }
    return cl.buffer(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes.size(), bytes.data());
}

inline Image download_image(ClContext& cl, cl_mem buf, const FrameGeometry& g) {
    std::vector<uint8_t> bytes(g.size_bytes());
    VFX_CL(clEnqueueReadBuffer(cl.queue(), buf, CL_TRUE, 0, bytes.size(), bytes.data(), 0, nullptr,
                               nullptr));
    Image img{static_cast<int>(g.width), static_cast<int>(g.height), g.format,
              std::vector<uint16_t>(size_t{g.width} * g.height * 4)};
    const size_t bpp = bytes_per_pixel(g.format);
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x)
            for (int c = 0; c < 4; ++c) {
                const uint8_t* p =
                    bytes.data() + static_cast<size_t>(y) * g.pitch + static_cast<size_t>(x) * bpp;
                if (g.format == WorkFormat::rgba8) {
                    img.at(x, y, c) = p[c];
                } else {
                    uint16_t v = 0;
                    std::memcpy(&v, p + 2 * c, 2);
                    img.at(x, y, c) = v;
                }
            }
    return img;
}

// Runs `frame` through a processor into a fresh target and reads it back.
inline Image process(FrameProcessor& proc, ClContext& cl, const HostFrame& frame,
                     PendingFrame* pending_out = nullptr) {
    const FrameGeometry g =
        make_geometry(static_cast<uint32_t>(frame.width), static_cast<uint32_t>(frame.height),
                      frame.format.work_format());
    ClMem target = poisoned_buffer(cl, g.size_bytes());
    PendingFrame p = proc.enqueue(frame, target.get(), g);
    p.wait();
    Image img = download_image(cl, target.get(), g);
    if (pending_out) *pending_out = std::move(p);
    return img;
}

// ---- double-precision filter references (independent of the engine's code) ----

inline std::vector<double> ref_taps(double sigma, int& radius) {
    radius = static_cast<int>(std::ceil(3 * sigma));
    std::vector<double> w;
    double sum = 0;
    for (int k = -radius; k <= radius; ++k) {
        w.push_back(std::exp(-(k * k) / (2 * sigma * sigma)));
        sum += w.back();
    }
    for (double& v : w)
        v /= sum;
    return w;
}

// A separable filter of R, G, B with clamp to edge: per channel the horizontal sums of
// tap(k) x(x + k), k = -r .. r, each passed through mid(), then the vertical sums of tap(k)
// times those. T: the sums' type.
template <typename T, typename Tap, typename Mid>
std::vector<T> ref_separable(const Image& in, int r, Tap tap, Mid mid) {
    const int W = in.width, H = in.height;
    auto idx = [W](int x, int y, int c) {
        return (static_cast<size_t>(y) * static_cast<size_t>(W) + static_cast<size_t>(x)) * 3 +
               static_cast<size_t>(c);
    };
    std::vector<T> tmp(static_cast<size_t>(W) * static_cast<size_t>(H) * 3);
    std::vector<T> out(tmp.size());
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x)
            for (int c = 0; c < 3; ++c) {
                T s = 0;
                for (int k = -r; k <= r; ++k)
                    s += tap(k) * static_cast<T>(in.at(std::clamp(x + k, 0, W - 1), y, c));
                tmp[idx(x, y, c)] = mid(s);
            }
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x)
            for (int c = 0; c < 3; ++c) {
                T s = 0;
                for (int k = -r; k <= r; ++k)
                    s += tap(k) * tmp[idx(x, std::clamp(y + k, 0, H - 1), c)];
                out[idx(x, y, c)] = s;
            }
    return out;
}

// Separable Gaussian of R, G, B in double, clamp to edge, unrounded.
inline std::vector<double> ref_blur(const Image& in, double sigma) {
    int r = 0;
    const std::vector<double> w = ref_taps(sigma, r);
    return ref_separable<double>(
        in, r, [&](int k) { return w[static_cast<size_t>(k + r)]; }, [](double s) { return s; });
}

inline uint16_t ref_quantise(double v, double max) {
    return static_cast<uint16_t>(std::nearbyint(std::clamp(v, 0.0, max)));
}

inline Image ref_gaussian(const Image& in, double sigma) {
    const std::vector<double> b = ref_blur(in, sigma);
    Image out = in;
    for (size_t i = 0, n = 0; i < out.px.size(); i += 4, ++n)
        for (size_t c = 0; c < 3; ++c)
            out.px[i + c] = ref_quantise(b[n * 3 + c], in.max_value());
    return out;
}

inline Image ref_unsharp(const Image& in, double sigma, double amount) {
    const std::vector<double> b = ref_blur(in, sigma);
    Image out = in;
    for (size_t i = 0, n = 0; i < out.px.size(); i += 4, ++n)
        for (size_t c = 0; c < 3; ++c) {
            const double v = in.px[i + c];
            out.px[i + c] = ref_quantise(v + amount * (v - b[n * 3 + c]), in.max_value());
        }
    return out;
}

// gaussian.cl's fixed-point blur (GS_FX: RGBA8, radius <= 8) in integers: per channel the
// horizontal sum S1 = sum n_|k| x (taps n / 4096), rounded to quarters of a level (S1 / 1024,
// ties to even), then the vertical sum S2 of n_|k| times those; the blur is S2 / 16384 exactly.
inline std::vector<int64_t> ref_blur_fx(const Image& in, double sigma) {
    const std::vector<int> n = gaussian_taps_q12(sigma);
    // v / 1024 to nearest, ties to even (v >= 0).
    auto quarters = [](int64_t v) {
        const int64_t q = v >> 10;
        const int64_t rem = v - (q << 10);
        return rem > 512 || (rem == 512 && (q & 1)) ? q + 1 : q;
    };
    return ref_separable<int64_t>(
        in, static_cast<int>(n.size()) - 1,
        [&](int k) { return int64_t{n[static_cast<size_t>(std::abs(k))]}; }, quarters);
}

// gaussian (no amount) or unsharp on RGBA8 up to radius 8, exactly as the GPU computes them:
// the blur rounded to the nearest level (ties to even); unsharp fma(a, x - blur, x) in float
// (a the amount as a float; x - blur is exact), clamped and rounded.
inline Image ref_blur_fx_image(const Image& in, double sigma, std::optional<double> amount) {
    const std::vector<int64_t> b = ref_blur_fx(in, sigma);
    Image out = in;
    for (size_t i = 0, n = 0; i < out.px.size(); i += 4, ++n)
        for (size_t c = 0; c < 3; ++c) {
            const float blur = static_cast<float>(b[n * 3 + c]) / 16384.0f;  // exact
            if (!amount) {
                out.px[i + c] = static_cast<uint16_t>(std::nearbyint(blur));
            } else {
                const auto x = static_cast<float>(in.px[i + c]);
                const float v = std::fma(static_cast<float>(*amount), x - blur, x);
                out.px[i + c] = ref_quantise(v, in.max_value());
            }
        }
    return out;
}

// Largest absolute difference over channels `first`..`last` (inclusive); `where` describes it.
inline int max_diff(const Image& a, const Image& b, int first, int last, std::string* where) {
    int worst = 0;
    for (int y = 0; y < a.height; ++y)
        for (int x = 0; x < a.width; ++x)
            for (int c = first; c <= last; ++c) {
                const int d = std::abs(int{a.at(x, y, c)} - int{b.at(x, y, c)});
                if (d > worst) {
                    worst = d;
                    if (where)
                        *where = "(" + std::to_string(x) + "," + std::to_string(y) + ") channel " +
                                 std::to_string(c) + ": " + std::to_string(a.at(x, y, c)) + " vs " +
                                 std::to_string(b.at(x, y, c));
                }
            }
    return worst;
}

// Runs the one filter of `chain_text` directly on a working-format image (random alpha
// included): its factory, one enqueue between two buffers, a wait, the result.
inline Image run_filter(ClContext& cl, const std::string& chain_text, const Image& in) {
    const Chain chain = parse_chain(chain_text);
    EXPECT_EQ(chain.filters.size(), 1u);
    const FilterInstance& f = chain.filters.front();
    std::unique_ptr<GpuFilter> filter = f.info->factory(cl, f);
    const FrameGeometry g =
        make_geometry(static_cast<uint32_t>(in.width), static_cast<uint32_t>(in.height), in.format);
    ClMem src = upload_image(cl, in, g);
    ClMem dst = poisoned_buffer(cl, g.size_bytes());
    std::vector<ClEvent> events;
    std::vector<ClMem> keep;
    FilterIo io{cl, cl.queue(), src.get(), dst.get(), g, events, keep};
    filter->enqueue(io);
    EXPECT_FALSE(events.empty());
    VFX_CL(clFinish(cl.queue()));
    return download_image(cl, dst.get(), g);
}

}  // namespace vfx::test
