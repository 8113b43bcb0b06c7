// The stylise family: oilpaint (kernels/oilpaint.cl).
#include <fmt/format.h>

#include "compute/builtin_filters.hpp"
#include "compute/chain.hpp"
#include "compute/cl_args.hpp"
#include "compute/filter.hpp"
#include "compute/stencil_variants.hpp"

namespace vfx {

namespace stencil {

// LW x LH work-groups, PY rows per work-item (a block of LW x LH*PY pixels per group).
std::vector<KernelVariant> oilpaint_variants() {
    return {
        {"-DLW=32 -DLH=4 -DPY=8", {32, 4}, {1, 8}}, {"-DLW=32 -DLH=8 -DPY=4", {32, 8}, {1, 4}},
        {"-DLW=64 -DLH=2 -DPY=8", {64, 2}, {1, 8}}, {"-DLW=32 -DLH=4 -DPY=16", {32, 4}, {1, 16}},
        {"-DLW=16 -DLH=8 -DPY=8", {16, 8}, {1, 8}}, {"-DLW=32 -DLH=2 -DPY=16", {32, 2}, {1, 16}}};
}

}  // namespace stencil

namespace {

// One launch of oilpaint.cl built per radius and levels, tuned (its tiles are static local
// arrays sized by the variant's shape).
class OilpaintFilter final : public GpuFilter {
public:
    OilpaintFilter(ClContext&, const FilterInstance& f)
        : radius_(static_cast<int>(f.get_int("radius"))),
          levels_(static_cast<int>(f.get_int("levels"))),
          kernel_("oilpaint.cl", "oilpaint", stencil::oilpaint_variants()) {}

    void enqueue(FilterIo& io) override {
        const auto pitch = static_cast<cl_int>(io.g.pitch);
        io.events.push_back(kernel_.enqueue(
            io.cl, io.queue,
            fmt::format("-DWORK16={} -DRADIUS={} -DLEVELS={}",
                        io.g.format == WorkFormat::rgba16 ? 1 : 0, radius_, levels_),
            io.g.width, io.g.height, [&](cl_kernel k, std::array<size_t, 2>) {
                set_args(k, io.src, pitch, io.dst, pitch, static_cast<cl_int>(io.g.width),
                         static_cast<cl_int>(io.g.height));
            }));
    }

private:
    int radius_;
    int levels_;
    TunedKernel kernel_;
};

}  // namespace

std::vector<FilterInfo> stylise_filters() {
    std::vector<FilterInfo> out;
    FilterInfo f;
    f.name = "oilpaint";
    f.help =
        "oil painting: per pixel, the mean colour of the fullest luma bin of the window "
        "(ties: the lower bin), clamp to edge";
    f.params.push_back(int_param("radius", 4, 1, 8, "window radius (a (2R+1)^2 window)"));
    f.params.push_back(int_param("levels", 16, 2, 64,
                                 "luma levels: bin = min(L-1, floor(Y L)), Y the BT.709 luma "
                                 "on 0..1"));
    f.factory = [](ClContext& cl, const FilterInstance& inst) -> std::unique_ptr<GpuFilter> {
        return std::make_unique<OilpaintFilter>(cl, inst);
    };
    out.push_back(std::move(f));
    return out;
}

}  // namespace vfx
