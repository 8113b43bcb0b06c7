// The stylise family: oilpaint (kernels/oilpaint.cl).
#include "compute/builtin_filters.hpp"
#include "compute/chain.hpp"
#include "compute/tiled_stencil.hpp"

namespace vfx {
namespace {

// The pixel tile, then the tile of luma bins (one uchar each).
std::vector<size_t> oilpaint_tiles(WorkFormat f) {
    return {bytes_per_pixel(f), 1};
}

class OilpaintFilter final : public GpuFilter {
public:
    OilpaintFilter(ClContext&, const FilterInstance& f)
        : levels_(static_cast<cl_int>(f.get_int("levels"))),
          stencil_("oilpaint.cl", "oilpaint", "", static_cast<int>(f.get_int("radius")),
                   oilpaint_tiles) {}

    void enqueue(FilterIo& io) override {
        cl_uint next = 0;
        cl_kernel k = stencil_.prepare(io, next);
        set_arg(k, next, static_cast<cl_int>(stencil_.radius()));
        set_arg(k, next + 1, levels_);
        stencil_.launch(io, k);
    }

private:
    cl_int levels_;
    TiledStencil stencil_;
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
