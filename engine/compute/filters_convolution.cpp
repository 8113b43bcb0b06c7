// The convolution family (see builtin_filters.hpp). Being written.
#include "compute/builtin_filters.hpp"

namespace vfx {

std::vector<FilterInfo> convolution_filters() { return {}; }

}  // namespace vfx
