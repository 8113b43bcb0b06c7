#include "compute/builtin_filters.hpp"

namespace vfx {

std::vector<FilterInfo> builtin_filters() {
    std::vector<FilterInfo> all;
    for (auto family : {blur_filters, isp_filters, color_filters, convolution_filters,
                        noise_filters, stylise_filters, composite_filters})
        for (FilterInfo& f : family())
            all.push_back(std::move(f));
    return all;
}

}  // namespace vfx
