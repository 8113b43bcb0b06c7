#pragma once
// The tuned candidates (compute/tuner.hpp) of each rewritten stencil kernel, one list per
// kernel. Every candidate of a list computes exactly the same frame (the tests force each
// label in turn); the first is the one a fixed-mode run (VFX_TUNE=fixed, the tests) takes.
#include <cstddef>
#include <string>
#include <vector>

#include "compute/tuner.hpp"

namespace vfx::stencil {

// The local-memory candidates of gaussian, box and sharpen carry "-DLM=1 -DLX=.. -DLY=.." in
// their options (the work-group shape, which sizes the kernel's static __local tiles); each
// work-item still makes a 4 x PY block. The __local bytes such a candidate needs when built
// with the common `options` (-DWORK16=0|1 picks the quad size): staged input quads, with
// `apron_quads` quads left and right, over the tile's LY PY rows + 2 `radius`, plus one
// `h_bytes` horizontal-pass element per tile column and row. 0 for candidates without LM.
size_t tile_local_bytes(const KernelVariant& v, const std::string& options, int apron_quads,
                        int radius, size_t h_bytes);

std::vector<KernelVariant> demosaic_variants();  // demosaic.cl: PX (4/8) x PY per item
std::vector<KernelVariant> mosaic_variants();    // mosaic.cl: 4 x PY pixels per work-item
// gaussian.cl's gaussian_strip (gaussian and unsharp up to radius 8): 4 x PY per work-item
// (4 x PY NCH for the streaming -DLM=2 candidates).
std::vector<KernelVariant> gaussian_variants();
// __local bytes of a gaussian_strip streaming candidate (-DLM=2) at radius r; 0 for the others.
size_t gaussian_ring_bytes(const KernelVariant& v, int r);
std::vector<KernelVariant> box_variants();  // box.cl: 4 x PY pixels per work-item
// __local bytes of a box.cl candidate with the window ring in __local (-DSW=1) at radius r; 0
// for the others.
size_t box_ring_bytes(const KernelVariant& v, int radius);
// box.cl with -DSHARPEN=1 (what the sharpen filter runs): box's QW candidates.
std::vector<KernelVariant> sharpen_box_variants();
std::vector<KernelVariant> sobel_variants();      // sobel.cl: 4 x PY pixels per work-item
std::vector<KernelVariant> median_variants();     // median.cl: 4 x PY pixels per work-item
std::vector<KernelVariant> bilateral_variants();  // bilateral.cl: 4 x PY per work-item
std::vector<KernelVariant> oilpaint_variants();   // oilpaint.cl: 1 x PY per work-item

}  // namespace vfx::stencil
