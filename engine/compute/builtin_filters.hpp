#pragma once
// The filters built into the engine (filters.cpp); the registry adds them on first use.
#include <vector>

#include "compute/registry.hpp"

namespace vfx {

std::vector<FilterInfo> builtin_filters();

// Taps of the engine's Gaussian: radius ceil(3 sigma), exp(-x^2 / 2 sigma^2) normalised to a
// sum of 1; element k applies to offset k - radius.
std::vector<double> gaussian_taps(double sigma);

}  // namespace vfx
