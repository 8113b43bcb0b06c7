// The noise family (see builtin_filters.hpp). Being written.
#include "compute/builtin_filters.hpp"

namespace vfx {

std::vector<FilterInfo> noise_filters() { return {}; }

}  // namespace vfx
