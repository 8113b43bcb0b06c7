// The convolution family: box, sharpen, sobel (kernels/box.cl, sharpen.cl, sobel.cl). Every
// stencil clamps to the edge; R, G, B are filtered, alpha copied.
#include <fmt/format.h>

#include <array>
#include <string>

#include "compute/builtin_filters.hpp"
#include "compute/chain.hpp"
#include "compute/cl_args.hpp"
#include "compute/filter.hpp"
#include "compute/stencil_variants.hpp"
#include "core/error.hpp"

namespace vfx {

namespace stencil {

std::vector<KernelVariant> box_variants() {
    return {{"-DPY=16", {32, 4}, {4, 16}},
            {"-DPY=8", {64, 4}, {4, 8}},
            {"-DPY=32", {32, 2}, {4, 32}},
            {"-DPY=16", {64, 2}, {4, 16}},
            {"-DPY=4", {32, 8}, {4, 4}}};
}

}  // namespace stencil

namespace {

std::string work_options(WorkFormat f) {
    return f == WorkFormat::rgba16 ? "-DWORK16=1" : "-DWORK16=0";
}
size_t work_index(WorkFormat f) {
    return f == WorkFormat::rgba16 ? 1 : 0;
}

// Local memory left to `k` on the device after its static use.
size_t local_left(ClContext& cl, cl_kernel k) {
    const size_t used = kernel_static_local(k, cl.device());
    return cl.info().local_mem_bytes > used ? cl.info().local_mem_bytes - used : 0;
}

// Box mean in one launch (kernels/box.cl's box_strip, built per radius), tuned.
class BoxFilter final : public GpuFilter {
public:
    explicit BoxFilter(const FilterInstance& f)
        : radius_(static_cast<int>(f.get_int("radius"))),
          kernel_("box.cl", "box_strip", stencil::box_variants()) {}

    void enqueue(FilterIo& io) override {
        const auto pitch = static_cast<cl_int>(io.g.pitch);
        io.events.push_back(kernel_.enqueue(
            io.cl, io.queue, fmt::format("{} -DRADIUS={}", work_options(io.g.format), radius_),
            io.g.width, io.g.height, [&](cl_kernel k, std::array<size_t, 2>) {
                set_args(k, io.src, pitch, io.dst, pitch, static_cast<cl_int>(io.g.width),
                         static_cast<cl_int>(io.g.height));
            }));
    }

private:
    int radius_;
    TunedKernel kernel_;
};

// A one-pass stencil over a local tile with an apron of `apron` pixels of `elem` bytes each
// (sharpen.cl, sobel.cl): arguments (src, src_pitch, dst, dst_pitch, width, height, extras...,
// tile); `extras` sets arguments 6 .. 6 + n_extras - 1.
class StencilFilter final : public GpuFilter {
public:
    StencilFilter(const char* file, const char* kernel, int apron, size_t elem, cl_int r,
                  cl_float amount, bool has_extras)
        : file_(file),
          kernel_(kernel),
          apron_(apron),
          elem_(elem),
          r_(r),
          amount_(amount),
          has_extras_(has_extras) {}

    void enqueue(FilterIo& io) override {
        const size_t wi = work_index(io.g.format);
        if (!k_[wi]) {
            k_[wi] = io.cl.kernel(file_, kernel_, work_options(io.g.format));
            local_[wi] = fit_local_2d(k_[wi].get(), io.cl.device(), 16, 16);
            const size_t avail = local_left(io.cl, k_[wi].get());
            while (tile_bytes(local_[wi]) > avail) {
                if (local_[wi][1] > 1)
                    local_[wi][1] /= 2;
                else if (local_[wi][0] > 1)
                    local_[wi][0] /= 2;
                else
                    throw GpuError(fmt::format("{}: the device has too little local memory ({} "
                                               "bytes)",
                                               kernel_, avail),
                                   CL_OUT_OF_RESOURCES);
            }
        }
        cl_kernel k = k_[wi].get();
        const auto pitch = static_cast<cl_int>(io.g.pitch);
        set_args(k, io.src, pitch, io.dst, pitch, static_cast<cl_int>(io.g.width),
                 static_cast<cl_int>(io.g.height));
        cl_uint next = 6;
        if (has_extras_) {
            set_arg(k, next++, r_);
            set_arg(k, next++, amount_);
        }
        set_arg(k, next, LocalMem{tile_bytes(local_[wi])});
        io.events.push_back(enqueue_2d(io.queue, k, io.g.width, io.g.height, local_[wi]));
    }

private:
    size_t tile_bytes(std::array<size_t, 2> local) const {
        const auto a = static_cast<size_t>(2 * apron_);
        return (local[0] + a) * (local[1] + a) * elem_;
    }

    const char* file_;
    const char* kernel_;
    int apron_;
    size_t elem_;
    cl_int r_;
    cl_float amount_;
    bool has_extras_;
    ClKernel k_[2];
    std::array<size_t, 2> local_[2] = {};
};

}  // namespace

std::vector<FilterInfo> convolution_filters() {
    std::vector<FilterInfo> out;
    {
        FilterInfo f;
        f.name = "box";
        f.help = "box blur: exact mean of the (2 radius + 1)^2 window, clamp to edge";
        f.params.push_back(
            int_param("radius", 2, 1, 64, "half width of the square window in pixels"));
        f.factory = [](ClContext&, const FilterInstance& inst) -> std::unique_ptr<GpuFilter> {
            return std::make_unique<BoxFilter>(inst);
        };
        out.push_back(std::move(f));
    }
    {
        FilterInfo f;
        f.name = "sharpen";
        f.help = "in + amount * (in - box_radius(in)), per channel, saturating";
        f.params.push_back(
            int_param("radius", 1, 1, 2, "radius of the box mean subtracted (1: 3x3, 2: 5x5)"));
        ParamSpec amount;
        amount.name = "amount";
        amount.type = ParamType::float_value;
        amount.default_value = 1.0;
        amount.min = 0;
        amount.max = 5;
        amount.help = "strength of the sharpening (0: none)";
        f.params.push_back(amount);
        f.factory = [](ClContext&, const FilterInstance& inst) -> std::unique_ptr<GpuFilter> {
            const auto radius = static_cast<cl_int>(inst.get_int("radius"));
            return std::make_unique<StencilFilter>(
                "sharpen.cl", "sharpen_apply", radius, sizeof(cl_float4), radius,
                static_cast<cl_float>(inst.get_float("amount")), true);
        };
        out.push_back(std::move(f));
    }
    {
        FilterInfo f;
        f.name = "sobel";
        f.help = "edges: sqrt(gx^2 + gy^2) / 4 of BT.709 luma (3x3 Sobel), to R = G = B";
        f.factory = [](ClContext&, const FilterInstance&) -> std::unique_ptr<GpuFilter> {
            return std::make_unique<StencilFilter>("sobel.cl", "sobel_apply", 1, sizeof(cl_float),
                                                   0, 0.0f, false);
        };
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace vfx
