// The isp family (see builtin_filters.hpp). Being written.
#include "compute/builtin_filters.hpp"

namespace vfx {

std::vector<FilterInfo> isp_filters() { return {}; }

}  // namespace vfx
