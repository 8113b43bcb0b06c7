// npp_bench: times NVIDIA NPP on the operations `vfx bench` measures, the same way (issue 4).
//
// Every call is bracketed by its own pair of CUDA events on one stream; after the warm-up the
// median (and min, p90) of the timed runs is reported, per operation and frame size. The exact
// parameters of each operation (kernel sizes, borders, channels) are in peers/README.md; the
// `note` of each JSON result repeats them.
//
// Build on the GPU machine with peers/build.sh (plain nvcc), or with CMake -DVFX_BUILD_PEERS=ON.
// Only the NPP context API (`_Ctx`, NppStreamContext filled by hand) is used: CUDA 13 removed the
// rest, and nppGetStreamContext is deprecated since 12.9.
//
//   npp_bench [--size WxH]... [--json FILE] [--runs N] [--warmup N] [--rotate N]
//             [--ops LIST] [--input random|image] [--device N] [--list]

#include <cuda_runtime.h>
#include <npp.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

// ---------------------------------------------------------------------------------------------
// Error checks: every CUDA and NPP status is checked; the message names the call, the error and
// file:line. NPP warnings (positive codes) are printed once per call site and do not stop the run.

[[noreturn]] static void die(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::fprintf(stderr, "npp_bench: ");
    std::vfprintf(stderr, fmt, ap);
    std::fprintf(stderr, "\n");
    va_end(ap);
    std::exit(1);
}

static void cuda_check(cudaError_t e, const char* call, const char* file, int line) {
    if (e != cudaSuccess)
        die("%s failed: %s (%s, %d) at %s:%d", call, cudaGetErrorString(e), cudaGetErrorName(e),
            static_cast<int>(e), file, line);
}

// Names of the NppStatus codes most likely to come back (values from nppdefs.h, which have
// been stable since CUDA 10); anything else is printed by number.
static const char* npp_status_name(int s) {
    switch (s) {
        case -9999:
            return "NPP_NOT_SUPPORTED_MODE_ERROR";
        case -1028:
            return "NPP_INVALID_HOST_POINTER_ERROR";
        case -1027:
            return "NPP_INVALID_DEVICE_POINTER_ERROR";
        case -1000:
            return "NPP_MEMFREE_ERROR (or other memory error)";
        case -108:
            return "NPP_NOT_EVEN_STEP_ERROR";
        case -57:
            return "NPP_INTERPOLATION_ERROR";
        case -34:
            return "NPP_ANCHOR_ERROR";
        case -33:
            return "NPP_MASK_SIZE_ERROR";
        case -23:
            return "NPP_DIVISOR_ERROR";
        case -14:
            return "NPP_STEP_ERROR";
        case -8:
            return "NPP_NULL_POINTER_ERROR";
        case -6:
            return "NPP_SIZE_ERROR";
        case -5:
            return "NPP_BAD_ARGUMENT_ERROR";
        case -4:
            return "NPP_NO_MEMORY_ERROR";
        case -3:
            return "NPP_CUDA_KERNEL_EXECUTION_ERROR";
        case -2:
            return "NPP_NOT_IMPLEMENTED_ERROR";
        case -1:
            return "NPP_ERROR";
        case 1:
            return "NPP_NO_OPERATION_WARNING";
        case 6:
            return "NPP_DOUBLE_SIZE_WARNING";
        case 7:
            return "NPP_WRONG_INTERSECTION_ROI_WARNING";
        default:
            return "see NppStatus in nppdefs.h";
    }
}

static void npp_check(NppStatus s, const char* call, const char* file, int line) {
    const int code = static_cast<int>(s);  // 0: success (NPP_NO_ERROR / NPP_SUCCESS)
    if (code == 0) return;
    if (code < 0)
        die("%s failed: NppStatus %d (%s) at %s:%d", call, code, npp_status_name(code), file, line);
    static std::set<std::pair<std::string, int>> warned;
    if (warned.insert({file, line}).second)
        std::fprintf(stderr, "npp_bench: warning: %s returned NppStatus %d (%s) at %s:%d\n", call,
                     code, npp_status_name(code), file, line);
}

#define CUDA_CHECK(call) cuda_check((call), #call, __FILE__, __LINE__)
#define NPP_CHECK(call) npp_check((call), #call, __FILE__, __LINE__)

// ---------------------------------------------------------------------------------------------
// Device images.

struct DevImage {
    unsigned char* ptr = nullptr;
    size_t pitch = 0;  // bytes
    int width = 0;     // pixels
    int height = 0;    // rows
    int channels = 0;  // bytes per pixel
    int row_bytes() const { return width * channels; }
    int step() const { return static_cast<int>(pitch); }
};

class DevMem {
public:
    ~DevMem() {
        for (void* p : ptrs_)
            cudaFree(p);
    }
    DevImage image(int w, int h, int channels) {
        DevImage im;
        void* p = nullptr;
        CUDA_CHECK(cudaMallocPitch(&p, &im.pitch, static_cast<size_t>(w) * channels,
                                   static_cast<size_t>(h)));
        ptrs_.push_back(p);
        im.ptr = static_cast<unsigned char*>(p);
        im.width = w;
        im.height = h;
        im.channels = channels;
        return im;
    }
    void* linear(size_t bytes) {
        void* p = nullptr;
        CUDA_CHECK(cudaMalloc(&p, bytes));
        ptrs_.push_back(p);
        return p;
    }

private:
    std::vector<void*> ptrs_;
};

// Input content. "random": uniform bytes (what METHOD.md asks for: never zeros, nothing a cache
// of constant data could favour). "image": a smooth gradient plus a little noise, closer to
// camera content, for operations whose speed could depend on the data (median).
enum class Input { random, image };

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static inline uint32_t next_rand() {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return static_cast<uint32_t>(g_rng >> 16);
}

static std::vector<unsigned char> make_host(int w, int h, int channels, Input input) {
    std::vector<unsigned char> v(static_cast<size_t>(w) * h * channels);
    size_t i = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < channels; ++c, ++i) {
                if (input == Input::random) {
                    v[i] = static_cast<unsigned char>(next_rand());
                } else {
                    const int g =
                        (x * 255 / std::max(1, w - 1) + y * 255 / std::max(1, h - 1) + c * 40) / 2;
                    const int n = static_cast<int>(next_rand() % 17) - 8;
                    v[i] = static_cast<unsigned char>(std::clamp(g + n, 0, 255));
                }
            }
    return v;
}

static void upload(const DevImage& im, const std::vector<unsigned char>& host) {
    CUDA_CHECK(cudaMemcpy2D(im.ptr, im.pitch, host.data(), static_cast<size_t>(im.row_bytes()),
                            static_cast<size_t>(im.row_bytes()), static_cast<size_t>(im.height),
                            cudaMemcpyHostToDevice));
}

static std::vector<unsigned char> download(const DevImage& im) {
    std::vector<unsigned char> v(static_cast<size_t>(im.row_bytes()) * im.height);
    CUDA_CHECK(cudaMemcpy2D(v.data(), static_cast<size_t>(im.row_bytes()), im.ptr, im.pitch,
                            static_cast<size_t>(im.row_bytes()), static_cast<size_t>(im.height),
                            cudaMemcpyDeviceToHost));
    return v;
}

// ---------------------------------------------------------------------------------------------
// Operations.

// Border-less NPP filters read outside their ROI; they run on the interior of a padded source.
// The horizontal pad keeps the ROI start 256-byte aligned (as favourable to NPP as possible);
// the vertical pad covers the largest radius used (box 11x11: 5).
constexpr int kPadX = 64;
constexpr int kPadY = 8;

struct Buffers {           // one set; --rotate N allocates N sets and the runs cycle through them
    DevImage rgba_padded;  // (W + 2 kPadX) x (H + 2 kPadY) RGBA8, source of border-less filters
    unsigned char* rgba_roi = nullptr;  // its interior, W x H
    DevImage rgba_src, rgba_dst;        // W x H RGBA8, border-controlled filters
    DevImage rgb_src, rgb_dst;          // W x H RGB8 (bilateral: NPP has no 8u C4R variant)
    DevImage bayer;                     // W x H 8-bit RGGB mosaic
    DevImage nv12;                      // W x (H + H/2): Y plane, then interleaved UV, one pitch
    void* copy_src = nullptr;           // W*H*4 bytes, contiguous
    void* copy_dst = nullptr;
};

struct Check {
    std::string text = "not checked";
    bool ok = true;
};

struct Op {
    std::string name, format, note;
    double bytes = 0;                  // input read once + output written once
    std::function<void(int set)> run;  // one call on set `set`
    DevImage out;                      // set 0's output, for the written-everywhere check
    std::function<Check(const std::vector<unsigned char>& out_host)> reference;  // optional
};

static Op make_op(std::string name, std::string format, std::string note, double bytes) {
    Op op;
    op.name = std::move(name);
    op.format = std::move(format);
    op.note = std::move(note);
    op.bytes = bytes;
    return op;
}

struct Result {
    std::string op, size, format, note, check;
    double bytes = 0, ms_median = 0, ms_min = 0, ms_p90 = 0, ms_mean = 0;
    int runs = 0;
    bool ok = true;
};

static double percentile_sorted(const std::vector<float>& s, double p) {
    const size_t idx = static_cast<size_t>(std::ceil(p * static_cast<double>(s.size()))) - 1;
    return s[std::min(idx, s.size() - 1)];
}

static double median_sorted(const std::vector<float>& s) {
    const size_t n = s.size();
    return n % 2 ? s[n / 2] : 0.5 * (static_cast<double>(s[n / 2 - 1]) + s[n / 2]);
}

// Host references on the padded source (host copy `pad`, row length `pad_w` pixels): the
// median of the (2r+1)^2 window per channel (exact), and the box mean (to within 1).
struct PadHost {
    std::vector<unsigned char> data;
    int w = 0;                                     // padded width in pixels
    unsigned char at(int x, int y, int c) const {  // x, y relative to the ROI origin
        return data[(static_cast<size_t>(y + kPadY) * w + static_cast<size_t>(x + kPadX)) * 4 + c];
    }
};

static std::vector<std::pair<int, int>> sample_points(int w, int h) {
    std::vector<std::pair<int, int>> pts = {
        {0, 0}, {w - 1, 0}, {0, h - 1}, {w - 1, h - 1}, {w / 2, h / 2}, {1, 1}, {w - 2, h - 2}};
    for (int i = 0; i < 2000; ++i)
        pts.push_back({static_cast<int>(next_rand() % w), static_cast<int>(next_rand() % h)});
    return pts;
}

static Check check_window(const PadHost& pad, const std::vector<unsigned char>& out, int w, int h,
                          int r, bool median) {
    int bad = 0, total = 0;
    std::vector<int> win;
    std::string first;
    for (auto [x, y] : sample_points(w, h)) {
        for (int c = 0; c < 4; ++c) {
            win.clear();
            long sum = 0;
            for (int dy = -r; dy <= r; ++dy)
                for (int dx = -r; dx <= r; ++dx) {
                    const int v = pad.at(x + dx, y + dy, c);
                    win.push_back(v);
                    sum += v;
                }
            const int got = out[(static_cast<size_t>(y) * w + x) * 4 + c];
            bool good;
            double want;
            if (median) {
                std::nth_element(win.begin(), win.begin() + win.size() / 2, win.end());
                want = win[win.size() / 2];
                good = got == static_cast<int>(want);
            } else {
                want = static_cast<double>(sum) / static_cast<double>(win.size());
                good = std::fabs(got - want) <= 1.0;
            }
            ++total;
            if (!good && bad++ == 0) {
                char buf[128];
                std::snprintf(buf, sizeof buf, " (first at x=%d y=%d c=%d: got %d, want %.2f)", x,
                              y, c, got, want);
                first = buf;
            }
        }
    }
    Check ch;
    ch.ok = bad == 0;
    char buf[160];
    if (ch.ok)
        std::snprintf(buf, sizeof buf, "%s %d samples ok", median ? "exact:" : "within 1:", total);
    else
        std::snprintf(buf, sizeof buf, "MISMATCH %d of %d samples", bad, total);
    ch.text = std::string(buf) + first;
    return ch;
}

// Fills the stream context by hand (nppGetStreamContext is deprecated since CUDA 12.9).
static NppStreamContext make_context(int device, cudaStream_t stream) {
    NppStreamContext ctx{};
    ctx.hStream = stream;
    ctx.nCudaDeviceId = device;
    int v = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, device));
    ctx.nMultiProcessorCount = v;
    CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    ctx.nMaxThreadsPerMultiProcessor = v;
    CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerBlock, device));
    ctx.nMaxThreadsPerBlock = v;
    CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlock, device));
    ctx.nSharedMemPerBlock = static_cast<size_t>(v);
    CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, device));
    ctx.nCudaDevAttrComputeCapabilityMajor = v;
    CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMinor, device));
    ctx.nCudaDevAttrComputeCapabilityMinor = v;
    unsigned int flags = 0;
    CUDA_CHECK(cudaStreamGetFlags(stream, &flags));
    ctx.nStreamFlags = flags;
    return ctx;
}

// Gaussian taps exactly as vfx's gaussian=sigma=S: radius ceil(3S), exp(-k^2 / 2S^2), normalised.
static std::vector<float> gaussian_taps(double sigma) {
    const int r = static_cast<int>(std::ceil(3.0 * sigma));
    std::vector<double> t;
    double sum = 0;
    for (int k = -r; k <= r; ++k) {
        t.push_back(std::exp(-static_cast<double>(k * k) / (2.0 * sigma * sigma)));
        sum += t.back();
    }
    std::vector<float> f;
    for (double v : t)
        f.push_back(static_cast<float>(v / sum));
    return f;
}

struct Size {
    int w = 0, h = 0;
    std::string text() const { return std::to_string(w) + "x" + std::to_string(h); }
};

struct Options {
    std::vector<Size> sizes;
    std::string json;
    int runs = 100, warmup = 10, rotate = 1, device = 0;
    Input input = Input::random;
    std::set<std::string> ops;  // empty: all
    bool list = false;
};

// The operations, in report order. `make_ops` builds them for one size over `sets`.
static const char* const kOpNames[] = {
    "copy",      "median3",      "median5",      "box3",    "box11",    "gauss5",
    "gauss15",   "gauss_sigma2", "bilateral_r4", "cfa_rgb", "cfa_rgba", "nv12_rgb",
#ifdef VFX_NPP_HAS_NV12_RGBA
    "nv12_rgba",  // nppiNV12ToRGB_8u_P2C4R_Ctx: only in newer NPPs (peers/build.sh looks for it)
#endif
};

static std::vector<Op> make_ops(const Size& sz, const std::vector<Buffers>& sets,
                                const NppStreamContext& ctx, cudaStream_t stream, DevMem& mem,
                                const PadHost& pad) {
    const int W = sz.w, H = sz.h;
    const NppiSize roi{W, H};
    const NppiPoint origin{0, 0};
    const double px = static_cast<double>(W) * H;
    std::vector<Op> ops;

    {  // bandwidth reference: one contiguous device-to-device copy of an RGBA8 frame
        Op op = make_op("copy", "rgba8",
                        "cudaMemcpyAsync device-to-device of W*H*4 contiguous bytes", px * 4 * 2);
        const size_t n = static_cast<size_t>(W) * H * 4;
        op.run = [&sets, n, stream](int s) {
            CUDA_CHECK(cudaMemcpyAsync(sets[s].copy_dst, sets[s].copy_src, n,
                                       cudaMemcpyDeviceToDevice, stream));
        };
        ops.push_back(op);
    }
    for (int r : {1, 2}) {  // median 3x3, 5x5: border-less, interior ROI of the padded source
        const NppiSize mask{2 * r + 1, 2 * r + 1};
        const NppiPoint anchor{r, r};
        Npp32u scratch_bytes = 0;
        NPP_CHECK(nppiFilterMedianGetBufferSize_8u_C4R_Ctx(roi, mask, &scratch_bytes, ctx));
        auto* scratch = static_cast<Npp8u*>(mem.linear(std::max<Npp32u>(scratch_bytes, 1)));
        Op op =
            make_op("median" + std::to_string(2 * r + 1), "rgba8",
                    "nppiFilterMedian_8u_C4R_Ctx " + std::to_string(2 * r + 1) + "x" +
                        std::to_string(2 * r + 1) +
                        ", all 4 channels, no border (interior ROI of a padded image), scratch " +
                        std::to_string(scratch_bytes) + " B from nppiFilterMedianGetBufferSize",
                    px * 4 * 2);
        op.run = [&sets, roi, mask, anchor, scratch, ctx](int s) {
            NPP_CHECK(nppiFilterMedian_8u_C4R_Ctx(sets[s].rgba_roi, sets[s].rgba_padded.step(),
                                                  sets[s].rgba_dst.ptr, sets[s].rgba_dst.step(),
                                                  roi, mask, anchor, scratch, ctx));
        };
        op.out = sets[0].rgba_dst;
        op.reference = [&pad, W, H, r](const std::vector<unsigned char>& out) {
            return check_window(pad, out, W, H, r, true);
        };
        ops.push_back(op);
    }
    for (int r : {1, 5}) {  // box 3x3, 11x11: border-less, interior ROI of the padded source
        const NppiSize mask{2 * r + 1, 2 * r + 1};
        const NppiPoint anchor{r, r};
        Op op = make_op("box" + std::to_string(2 * r + 1), "rgba8",
                        "nppiFilterBox_8u_C4R_Ctx " + std::to_string(2 * r + 1) + "x" +
                            std::to_string(2 * r + 1) +
                            ", all 4 channels, no border (interior ROI of a padded image)",
                        px * 4 * 2);
        op.run = [&sets, roi, mask, anchor, ctx](int s) {
            NPP_CHECK(nppiFilterBox_8u_C4R_Ctx(sets[s].rgba_roi, sets[s].rgba_padded.step(),
                                               sets[s].rgba_dst.ptr, sets[s].rgba_dst.step(), roi,
                                               mask, anchor, ctx));
        };
        op.out = sets[0].rgba_dst;
        op.reference = [&pad, W, H, r](const std::vector<unsigned char>& out) {
            return check_window(pad, out, W, H, r, false);
        };
        ops.push_back(op);
    }
    for (auto [name, mask, text] :
         {std::tuple<const char*, NppiMaskSize, const char*>{
              "gauss5", NPP_MASK_SIZE_5_X_5, "5x5 (NPP's sigma 0.4 + 2 * 0.6 = 1.6)"},
          std::tuple<const char*, NppiMaskSize, const char*>{
              "gauss15", NPP_MASK_SIZE_15_X_15, "15x15 (NPP's sigma 0.4 + 7 * 0.6 = 4.6)"}}) {
        Op op = make_op(name, "rgba8",
                        std::string("nppiFilterGaussBorder_8u_C4R_Ctx ") + text +
                            ", all 4 channels, NPP_BORDER_REPLICATE",
                        px * 4 * 2);
        const NppiMaskSize m = mask;
        op.run = [&sets, roi, origin, m, ctx](int s) {
            NPP_CHECK(nppiFilterGaussBorder_8u_C4R_Ctx(
                sets[s].rgba_src.ptr, sets[s].rgba_src.step(), roi, origin, sets[s].rgba_dst.ptr,
                sets[s].rgba_dst.step(), roi, m, NPP_BORDER_REPLICATE, ctx));
        };
        op.out = sets[0].rgba_dst;
        ops.push_back(op);
    }
    {  // Gaussian sigma 2 with vfx's own taps (13), separable, replicate border
        const std::vector<float> taps = gaussian_taps(2.0);
        auto* d_taps = static_cast<Npp32f*>(mem.linear(taps.size() * sizeof(float)));
        CUDA_CHECK(
            cudaMemcpy(d_taps, taps.data(), taps.size() * sizeof(float), cudaMemcpyHostToDevice));
        const int n = static_cast<int>(taps.size());
        Op op =
            make_op("gauss_sigma2", "rgba8",
                    "nppiFilterGaussAdvancedBorder_8u_C4R_Ctx, " + std::to_string(n) +
                        " taps = vfx gaussian=sigma=2 (radius ceil(3 sigma), exp(-k^2/2 sigma^2) "
                        "normalised, in device memory), all 4 channels, NPP_BORDER_REPLICATE",
                    px * 4 * 2);
        op.run = [&sets, roi, origin, n, d_taps, ctx](int s) {
            NPP_CHECK(nppiFilterGaussAdvancedBorder_8u_C4R_Ctx(
                sets[s].rgba_src.ptr, sets[s].rgba_src.step(), roi, origin, sets[s].rgba_dst.ptr,
                sets[s].rgba_dst.step(), roi, n, d_taps, NPP_BORDER_REPLICATE, ctx));
        };
        op.out = sets[0].rgba_dst;
        ops.push_back(op);
    }
    {  // bilateral radius 4 (9x9), RGB8: NPP has 8u C1R and C3R only
        const float sigma_s = 2.0f, sigma_r = 25.5f;  // vfx bilateral=sigma_s=2:sigma_r=0.1
        Op op =
            make_op("bilateral_r4", "rgb8",
                    "nppiFilterBilateralGaussBorder_8u_C3R_Ctx radius 4, step 1, nValSquareSigma " +
                        std::to_string(sigma_r * sigma_r) +
                        " (sigma_r 25.5 = 0.1 of 255), "
                        "nPosSquareSigma " +
                        std::to_string(sigma_s * sigma_s) +
                        " (sigma_s 2), NPP_BORDER_REPLICATE; C3R (no 8u C4R in NPP)",
                    px * 3 * 2);
        op.run = [&sets, roi, origin, sigma_s, sigma_r, ctx](int s) {
            NPP_CHECK(nppiFilterBilateralGaussBorder_8u_C3R_Ctx(
                sets[s].rgb_src.ptr, sets[s].rgb_src.step(), roi, origin, sets[s].rgb_dst.ptr,
                sets[s].rgb_dst.step(), roi, 4, 1, sigma_r * sigma_r, sigma_s * sigma_s,
                NPP_BORDER_REPLICATE, ctx));
        };
        op.out = sets[0].rgb_dst;
        ops.push_back(op);
    }
    {  // Bayer RGGB -> RGB / RGBA, NPP's only interpolation (bilinear-class, NPPI_INTER_UNDEFINED)
        const NppiRect src_rect{0, 0, W, H};
        Op rgb =
            make_op("cfa_rgb", "bayer8->rgb8",
                    "nppiCFAToRGB_8u_C1C3R_Ctx NPPI_BAYER_RGGB, NPPI_INTER_UNDEFINED (NPP's one "
                    "demosaic), whole frame",
                    px * (1 + 3));
        rgb.run = [&sets, roi, src_rect, ctx](int s) {
            NPP_CHECK(nppiCFAToRGB_8u_C1C3R_Ctx(
                sets[s].bayer.ptr, sets[s].bayer.step(), roi, src_rect, sets[s].rgb_dst.ptr,
                sets[s].rgb_dst.step(), NPPI_BAYER_RGGB, NPPI_INTER_UNDEFINED, ctx));
        };
        rgb.out = sets[0].rgb_dst;
        ops.push_back(rgb);
        Op rgba =
            make_op("cfa_rgba", "bayer8->rgba8",
                    "nppiCFAToRGBA_8u_C1AC4R_Ctx NPPI_BAYER_RGGB, NPPI_INTER_UNDEFINED, alpha 255, "
                    "whole frame",
                    px * (1 + 4));
        rgba.run = [&sets, roi, src_rect, ctx](int s) {
            NPP_CHECK(nppiCFAToRGBA_8u_C1AC4R_Ctx(
                sets[s].bayer.ptr, sets[s].bayer.step(), roi, src_rect, sets[s].rgba_dst.ptr,
                sets[s].rgba_dst.step(), NPPI_BAYER_RGGB, NPPI_INTER_UNDEFINED, 255, ctx));
        };
        rgba.out = sets[0].rgba_dst;
        ops.push_back(rgba);
    }
    {  // NV12 -> RGB (every NPP), and -> RGBA where this NPP has it
        Op rgb =
            make_op("nv12_rgb", "nv12->rgb8",
                    "nppiNV12ToRGB_8u_P2C3R_Ctx (NPP's default matrix), Y and UV planes one pitch",
                    px * (1.5 + 3));
        rgb.run = [&sets, roi, H, ctx](int s) {
            const Npp8u* planes[2] = {
                sets[s].nv12.ptr, sets[s].nv12.ptr + sets[s].nv12.pitch * static_cast<size_t>(H)};
            NPP_CHECK(nppiNV12ToRGB_8u_P2C3R_Ctx(planes, sets[s].nv12.step(), sets[s].rgb_dst.ptr,
                                                 sets[s].rgb_dst.step(), roi, ctx));
        };
        rgb.out = sets[0].rgb_dst;
        ops.push_back(rgb);
#ifdef VFX_NPP_HAS_NV12_RGBA
        Op rgba = make_op(
            "nv12_rgba", "nv12->rgba8",
            "nppiNV12ToRGB_8u_P2C4R_Ctx NPP_BT709HDTV, alpha 255, Y and UV planes one pitch",
            px * (1.5 + 4));
        rgba.run = [&sets, roi, H, ctx](int s) {
            const Npp8u* planes[2] = {
                sets[s].nv12.ptr, sets[s].nv12.ptr + sets[s].nv12.pitch * static_cast<size_t>(H)};
            NPP_CHECK(nppiNV12ToRGB_8u_P2C4R_Ctx(planes, sets[s].nv12.step(), sets[s].rgba_dst.ptr,
                                                 sets[s].rgba_dst.step(), roi, NPP_BT709HDTV, 255,
                                                 ctx));
        };
        rgba.out = sets[0].rgba_dst;
        ops.push_back(rgba);
#endif
    }
    return ops;
}

// Writes every output byte twice, over two different poisons: a byte that differs between the
// two runs was not written by the operation.
static std::pair<bool, std::vector<unsigned char>> written_everywhere(Op& op, cudaStream_t stream) {
    std::vector<unsigned char> a, b;
    for (int poison : {0x00, 0xFF}) {
        CUDA_CHECK(cudaMemset2D(op.out.ptr, op.out.pitch, poison,
                                static_cast<size_t>(op.out.row_bytes()),
                                static_cast<size_t>(op.out.height)));
        CUDA_CHECK(cudaDeviceSynchronize());
        op.run(0);
        CUDA_CHECK(cudaStreamSynchronize(stream));
        (poison ? b : a) = download(op.out);
    }
    return {a == b, a};
}

static Result time_op(Op& op, const Size& sz, const Options& o, cudaStream_t stream) {
    Result r;
    r.op = op.name;
    r.size = sz.text();
    r.format = op.format;
    r.note = op.note;
    r.bytes = op.bytes;
    if (op.out.ptr) {
        auto [all, out] = written_everywhere(op, stream);
        if (!all) {
            r.check = "output NOT fully written";
            r.ok = false;
        } else if (op.reference) {
            const Check c = op.reference(out);
            r.check = c.text;
            r.ok = c.ok;
        } else {
            r.check = "every output byte written";
        }
    } else {
        r.check = "n/a";
    }
    for (int i = 0; i < o.warmup; ++i)
        op.run(i % o.rotate);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaGetLastError());
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    std::vector<float> ms;
    for (int i = 0; i < o.runs; ++i) {
        CUDA_CHECK(cudaEventRecord(start, stream));
        op.run(i % o.rotate);
        CUDA_CHECK(cudaEventRecord(stop, stream));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float t = 0;
        CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
        ms.push_back(t);
    }
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    std::vector<float> s = ms;
    std::sort(s.begin(), s.end());
    r.runs = static_cast<int>(s.size());
    r.ms_median = median_sorted(s);
    r.ms_min = s.front();
    r.ms_p90 = percentile_sorted(s, 0.9);
    double sum = 0;
    for (float v : s)
        sum += v;
    r.ms_mean = sum / static_cast<double>(s.size());
    return r;
}

// ---------------------------------------------------------------------------------------------
// Output.

static std::string json_escape(const std::string& s) {
    std::string o;
    for (char c : s) {
        if (c == '"' || c == '\\') {
            o += '\\';
            o += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            o += buf;
        } else {
            o += c;
        }
    }
    return o;
}

static std::string num(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

static std::string driver_version() {
    std::ifstream f("/proc/driver/nvidia/version");
    std::string line;
    if (f && std::getline(f, line)) {
        const auto k = line.find("Kernel Module");
        if (k != std::string::npos) {
            std::istringstream is(line.substr(k + 13));
            std::string v;
            if (is >> v) return v;
        }
    }
    int d = 0;
    CUDA_CHECK(cudaDriverGetVersion(&d));
    return "CUDA driver API " + std::to_string(d / 1000) + "." + std::to_string(d % 1000 / 10);
}

static void usage(FILE* f) {
    std::fprintf(f,
                 "usage: npp_bench [--size WxH]... [--json FILE] [--runs N] [--warmup N]\n"
                 "                 [--rotate N] [--ops LIST] [--input random|image] [--device N]\n"
                 "                 [--list]\n"
                 "  --size WxH      frame size, repeatable (default 1920x1080 and 3840x2160)\n"
                 "  --json FILE     also write the results as JSON\n"
                 "  --runs N        timed runs per operation and size (default 100)\n"
                 "  --warmup N      untimed runs first (default 10)\n"
                 "  --rotate N      cycle through N input/output sets (default 1; use N >= 4 to\n"
                 "                  keep 1080p frames from being served by the L2 cache)\n"
                 "  --ops LIST      comma-separated operations (see --list)\n"
                 "  --input KIND    random (default, uniform bytes) or image (smooth + noise)\n");
}

static int parse_int(const std::string& opt, const char* v, int lo) {
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (!*v || *end || n < lo || n > 1000000)
        die("%s: expected an integer >= %d, got '%s'", opt.c_str(), lo, v);
    return static_cast<int>(n);
}

static Options parse(int argc, char** argv) {
    Options o;
    std::set<std::string> known(std::begin(kOpNames), std::end(kOpNames));
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> const char* {
            if (i + 1 >= argc) die("%s needs a value (see --help)", a.c_str());
            return argv[++i];
        };
        if (a == "--help" || a == "-h") {
            usage(stdout);
            std::exit(0);
        } else if (a == "--size") {
            const char* v = value();
            Size s;
            char x = 0;
            char tail = 0;
            if (std::sscanf(v, "%d%c%d%c", &s.w, &x, &s.h, &tail) != 3 || (x != 'x' && x != 'X') ||
                s.w < 16 || s.h < 16 || s.w > 16384 || s.h > 16384 || s.w % 2 || s.h % 2)
                die("--size: expected WxH with even W, H in 16..16384, got '%s'", v);
            o.sizes.push_back(s);
        } else if (a == "--json") {
            o.json = value();
        } else if (a == "--runs") {
            o.runs = parse_int(a, value(), 1);
        } else if (a == "--warmup") {
            o.warmup = parse_int(a, value(), 0);
        } else if (a == "--rotate") {
            o.rotate = parse_int(a, value(), 1);
        } else if (a == "--device") {
            o.device = parse_int(a, value(), 0);
        } else if (a == "--input") {
            const std::string v = value();
            if (v == "random")
                o.input = Input::random;
            else if (v == "image")
                o.input = Input::image;
            else
                die("--input: expected random or image, got '%s'", v.c_str());
        } else if (a == "--ops") {
            std::stringstream ss(value());
            std::string item;
            while (std::getline(ss, item, ',')) {
                if (item.empty()) continue;
                if (item == "nv12_rgba" && !known.count(item))
                    die("--ops: nv12_rgba: this NPP has no nppiNV12ToRGB_8u_P2C4R_Ctx");
                if (!known.count(item))
                    die("--ops: unknown operation '%s' (see --list)", item.c_str());
                o.ops.insert(item);
            }
        } else if (a == "--list") {
            o.list = true;
        } else {
            die("unknown option '%s' (see --help)", a.c_str());
        }
    }
    if (o.sizes.empty()) o.sizes = {{1920, 1080}, {3840, 2160}};
    return o;
}

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    if (o.list) {
        for (const char* n : kOpNames)
            std::printf("%s\n", n);
        return 0;
    }
    if (!o.json.empty()) {  // fail before the long run, not after it; leave nothing behind
        const bool existed = static_cast<bool>(std::ifstream(o.json));
        std::ofstream probe(o.json, std::ios::app);
        if (!probe) die("--json: cannot write '%s'", o.json.c_str());
        probe.close();
        if (!existed) std::remove(o.json.c_str());
    }

    int count = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count));
    if (o.device >= count) die("--device %d: only %d CUDA device(s)", o.device, count);
    CUDA_CHECK(cudaSetDevice(o.device));
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, o.device));
    int rt = 0;
    CUDA_CHECK(cudaRuntimeGetVersion(&rt));
    const std::string cuda = std::to_string(rt / 1000) + "." + std::to_string(rt % 1000 / 10);
    const std::string driver = driver_version();
#ifdef NPP_VER_MAJOR
    const std::string npp = std::to_string(NPP_VER_MAJOR) + "." + std::to_string(NPP_VER_MINOR) +
                            "." + std::to_string(NPP_VER_PATCH);
#else
    const std::string npp = "unknown";
#endif
    std::printf("device: %s (driver %s, CUDA runtime %s, NPP %s)\n", prop.name, driver.c_str(),
                cuda.c_str(), npp.c_str());
    std::printf(
        "method: %d warm-up, %d timed runs, CUDA events around each call, %d buffer set(s), "
        "%s input\n\n",
        o.warmup, o.runs, o.rotate, o.input == Input::random ? "random" : "image");

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const NppStreamContext ctx = make_context(o.device, stream);

    std::vector<Result> results;
    bool all_ok = true;
    std::printf("%-13s %-10s %-14s %10s %10s %10s %9s  %s\n", "op", "size", "format", "median ms",
                "min ms", "p90 ms", "GB/s", "check");
    for (const Size& sz : o.sizes) {
        DevMem mem;
        std::vector<Buffers> sets(static_cast<size_t>(o.rotate));
        PadHost pad;
        for (size_t k = 0; k < sets.size(); ++k) {
            Buffers& b = sets[k];
            b.rgba_padded = mem.image(sz.w + 2 * kPadX, sz.h + 2 * kPadY, 4);
            b.rgba_roi = b.rgba_padded.ptr + b.rgba_padded.pitch * kPadY + kPadX * 4;
            b.rgba_src = mem.image(sz.w, sz.h, 4);
            b.rgba_dst = mem.image(sz.w, sz.h, 4);
            b.rgb_src = mem.image(sz.w, sz.h, 3);
            b.rgb_dst = mem.image(sz.w, sz.h, 3);
            b.bayer = mem.image(sz.w, sz.h, 1);
            b.nv12 = mem.image(sz.w, sz.h + sz.h / 2, 1);
            b.copy_src = mem.linear(static_cast<size_t>(sz.w) * sz.h * 4);
            b.copy_dst = mem.linear(static_cast<size_t>(sz.w) * sz.h * 4);
            auto padded = make_host(b.rgba_padded.width, b.rgba_padded.height, 4, o.input);
            upload(b.rgba_padded, padded);
            if (k == 0) pad = {std::move(padded), b.rgba_padded.width};
            const auto rgba = make_host(sz.w, sz.h, 4, o.input);
            upload(b.rgba_src, rgba);
            CUDA_CHECK(cudaMemcpy(b.copy_src, rgba.data(), rgba.size(), cudaMemcpyHostToDevice));
            upload(b.rgb_src, make_host(sz.w, sz.h, 3, o.input));
            upload(b.bayer, make_host(sz.w, sz.h, 1, o.input));
            upload(b.nv12, make_host(sz.w, sz.h + sz.h / 2, 1, o.input));
        }
        std::vector<Op> ops = make_ops(sz, sets, ctx, stream, mem, pad);
        for (Op& op : ops) {
            if (!o.ops.empty() && !o.ops.count(op.name)) continue;
            const Result r = time_op(op, sz, o, stream);
            all_ok = all_ok && r.ok;
            std::printf("%-13s %-10s %-14s %10.4f %10.4f %10.4f %9.1f  %s\n", r.op.c_str(),
                        r.size.c_str(), r.format.c_str(), r.ms_median, r.ms_min, r.ms_p90,
                        r.bytes / (r.ms_median * 1e-3) / 1e9, r.check.c_str());
            std::fflush(stdout);
            results.push_back(r);
        }
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    CUDA_CHECK(cudaStreamDestroy(stream));

    if (!o.json.empty()) {
        const std::string tmp = o.json + ".tmp";
        std::ofstream f(tmp, std::ios::trunc);
        if (!f) die("--json: cannot write '%s'", tmp.c_str());
        f << "{\n  \"peer\": \"npp\",\n  \"device\": \"" << json_escape(prop.name) << "\",\n"
          << "  \"driver\": \"" << json_escape(driver) << "\",\n  \"cuda\": \"" << cuda
          << "\",\n  \"npp\": \"" << npp << "\",\n"
          << "  \"method\": {\"timer\": \"cudaEvent pair around each call\", \"warmup\": "
          << o.warmup << ", \"runs\": " << o.runs << ", \"rotate\": " << o.rotate
          << ", \"input\": \"" << (o.input == Input::random ? "random" : "image") << "\"},\n"
          << "  \"results\": [\n";
        for (size_t i = 0; i < results.size(); ++i) {
            const Result& r = results[i];
            f << "    {\"peer\": \"npp\", \"op\": \"" << r.op << "\", \"size\": \"" << r.size
              << "\", \"format\": \"" << json_escape(r.format)
              << "\", \"ms_median\": " << num(r.ms_median) << ", \"ms_min\": " << num(r.ms_min)
              << ", \"ms_p90\": " << num(r.ms_p90) << ", \"ms_mean\": " << num(r.ms_mean)
              << ", \"runs\": " << r.runs << ", \"bytes\": " << num(r.bytes)
              << ", \"gbps\": " << num(r.bytes / (r.ms_median * 1e-3) / 1e9) << ", \"check\": \""
              << json_escape(r.check) << "\", \"ok\": " << (r.ok ? "true" : "false")
              << ", \"note\": \"" << json_escape(r.note) << "\"}"
              << (i + 1 < results.size() ? ",\n" : "\n");
        }
        f << "  ]\n}\n";
        f.close();
        if (!f || std::rename(tmp.c_str(), o.json.c_str()) != 0) {
            std::remove(tmp.c_str());
            die("--json: writing '%s' failed", o.json.c_str());
        }
        std::printf("\nwrote %s\n", o.json.c_str());
    }
    if (!all_ok) {
        std::fprintf(stderr, "npp_bench: some outputs failed their check (see the table)\n");
        return 3;
    }
    return 0;
}
