// The stylise family (see builtin_filters.hpp). Being written.
#include "compute/builtin_filters.hpp"

namespace vfx {

std::vector<FilterInfo> stylise_filters() { return {}; }

}  // namespace vfx
