#pragma once
// The filters built into the engine, one function per family (each in its filters_*.cpp with
// its kernels in kernels/); builtin_filters() joins them and the registry adds them on first use.
#include <vector>

#include "compute/registry.hpp"

namespace vfx {

std::vector<FilterInfo> builtin_filters();

std::vector<FilterInfo> blur_filters();  // filters_blur.cpp: gaussian, unsharp
std::vector<FilterInfo>
isp_filters();  // filters_isp.cpp: demosaic, mosaic, blacklevel, wb, ccm, gamma
std::vector<FilterInfo> color_filters();        // filters_color.cpp: color, grayscale, sepia
std::vector<FilterInfo> convolution_filters();  // filters_convolution.cpp: box, sharpen, sobel
std::vector<FilterInfo> noise_filters();        // filters_noise.cpp: median, bilateral
std::vector<FilterInfo> stylise_filters();      // filters_stylise.cpp: oilpaint
std::vector<FilterInfo> composite_filters();    // filters_composite.cpp: blend, histogram

// Taps of the engine's Gaussian: radius ceil(3 sigma), exp(-x^2 / 2 sigma^2) normalised to a
// sum of 1; element k applies to offset k - radius.
std::vector<double> gaussian_taps(double sigma);
// The same taps in fixed point, as gaussian and unsharp use them on RGBA8 up to radius 8
// (gaussian.cl's GS_FX): element d is n_d for distance d = 0 .. radius, tap n_d / 4096;
// n_d = round(4096 w_d) for d >= 1 and n_0 = 4096 - 2 (n_1 + .. + n_r), so the taps sum to 1.
std::vector<int> gaussian_taps_q12(double sigma);

}  // namespace vfx
