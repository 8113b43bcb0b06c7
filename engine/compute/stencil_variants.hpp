#pragma once
// The tuned candidates (compute/tuner.hpp) of each rewritten stencil kernel, one list per
// kernel. Every candidate of a list computes exactly the same frame (the tests force each
// label in turn); the first is the one a fixed-mode run (VFX_TUNE=fixed, the tests) takes.
#include <vector>

#include "compute/tuner.hpp"

namespace vfx::stencil {

std::vector<KernelVariant> demosaic_variants();  // demosaic.cl: 4 x PY pixels per work-item
std::vector<KernelVariant> mosaic_variants();    // mosaic.cl: 4 x PY pixels per work-item
// gaussian.cl's gaussian_strip (gaussian and unsharp up to radius 8): 4 x PY per work-item.
std::vector<KernelVariant> gaussian_variants();
std::vector<KernelVariant> box_variants();        // box.cl: 4 x PY pixels per work-item
std::vector<KernelVariant> sharpen_variants();    // sharpen.cl: 4 x PY pixels per work-item
std::vector<KernelVariant> sobel_variants();      // sobel.cl: 4 x PY pixels per work-item
std::vector<KernelVariant> median_variants();     // median.cl: 4 x PY pixels per work-item
std::vector<KernelVariant> bilateral_variants();  // bilateral.cl: 4 x PY per work-item
std::vector<KernelVariant> oilpaint_variants();   // oilpaint.cl: 1 x PY per work-item

}  // namespace vfx::stencil
