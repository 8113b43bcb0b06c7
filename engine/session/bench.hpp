#pragma once
// `vfx bench`: kernel times by the benchmark method (warm-up, many runs, the median of the
// OpenCL profiling times), effective bandwidth and its ratio to the device's copy bandwidth
// measured in the same run.
//
// Bytes moved per case: each input frame read once plus each output frame written once, in
// packed pixels (no row padding): a colour filter moves 2 x w x h x 4 bytes at RGBA8, a
// demosaic w x h (mosaic) + w x h x 4, the conversion its source planes + the RGBA frame, an
// observer (histogram) its input only. The copy reference is clEnqueueCopyBuffer of one RGBA
// frame of that size (read + written: 2 x bytes).
//
// Every case rotates through enough buffer sets that one run's frames are not still in the
// GPU's L2 cache from the run before (at least 256 MB touched per rotation): figures are
// DRAM-to-DRAM, like the copy they are compared with. With `cache_resident` every case (the copy
// included) runs on one buffer set instead, so a frame that fits the L2 is read from it: the
// kernel's cost without DRAM behind it, nearer a stage's inside a chain at 1080p, where the frame
// the stage before wrote is still in L2. (It does not predict a GPU of the same chip with faster
// memory: on an H100 it ranked kernels otherwise than an H200 does, BENCHMARKS.md.)
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "compute/cl_context.hpp"

namespace vfx {

struct BenchOptions {
    std::vector<std::pair<uint32_t, uint32_t>> sizes;  // empty: 1920x1080 and 3840x2160
    std::vector<std::string> filters;  // filter names (and "convert", "chain"); empty: all
    int warmup = 10;
    int runs = 100;
    bool cache_resident = false;  // one buffer set per case (see above)
};

struct BenchResult {
    std::string filter;  // registry name, "convert", "copy", "pointwise run" or "chain"
    std::string chain;   // what ran, in chain syntax (conversion: "convert nv12")
    uint32_t width = 0, height = 0;
    std::string format;  // working format of the frame ("rgba8", "mono8")
    double ms_median = 0, ms_min = 0, ms_p95 = 0;
    uint64_t bytes = 0;     // moved per run (see above)
    double gbps = 0;        // bytes / ms_median
    double copy_ratio = 0;  // gbps / the copy's gbps at this size
    std::string variant;    // what the tuner chose, where a stage reports it
    std::string note;       // e.g. "fused: 1 kernel for 5 filters"
};

struct BenchReport {
    std::string device, driver;
    bool cache_resident = false;
    std::vector<std::pair<std::string, double>> copy_gbps;  // "WxH" -> GB/s
    std::vector<BenchResult> results;
};

// Runs the cases (see bench.cpp: every registered filter at its defaults plus the sizes the
// peers are compared at, the conversions, a fused point-wise run and the default chain).
// Throws vfx::Error for an unknown filter name.
BenchReport run_bench(ClContext& cl, const BenchOptions& opts, const std::string& default_chain);

std::string bench_table(const BenchReport& r);  // the table `vfx bench` prints
nlohmann::json to_json(const BenchReport& r);

}  // namespace vfx
