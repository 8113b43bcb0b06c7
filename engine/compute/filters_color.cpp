// The color family (see builtin_filters.hpp). Being written.
#include "compute/builtin_filters.hpp"

namespace vfx {

std::vector<FilterInfo> color_filters() { return {}; }

}  // namespace vfx
