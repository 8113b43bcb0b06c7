#pragma once
// Point-wise filters and their fusion. A point-wise filter is an operation on one pixel: its
// kernel file defines OpenCL C functions (no kernels) of the form
//   float4 NAME_rgba(float4 v, int x, int y, ARGS...)   colour: R, G, B in pixel units (.w is
//                                                       ignored; alpha is passed through)
//   float  NAME_mono(float v, int x, int y, ARGS...)    a mosaic sample (when it takes mosaics)
// or, for an operation from stored values to stored values (a table lookup: `stored`),
//   uint4 NAME_rgba(uint4 s, int x, int y, ARGS...)    uint NAME_mono(uint s, ...)
// (s: the values as integers, 0..PIX_MAX; .w is to be ignored; the results must lie in
// 0..PIX_MAX too: they are stored as they are, not saturated)
// and the kernel that runs them is generated at run time: one work-item loads PX pixels (vector
// loads), applies every operation of the run in order, and stores them (vector stores). A run
// of N adjacent point-wise filters in a chain becomes one such kernel (see make_stages), so the
// frame is read and written once instead of N times.
//
// Between two operations of a fused run each value is rounded and saturated to the working
// format exactly as a separate filter would store it (a stored op's results are stored values
// already), so a fused run computes the same pixels, bit for bit, as its filters run one by
// one.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compute/filter.hpp"
#include "compute/tuner.hpp"

namespace vfx {

struct FilterInstance;
struct Chain;

inline constexpr const char* kTableArg = "table";

struct PointwiseOp {
    std::string file;  // the kernel file defining the functions
    std::string name;  // NAME: NAME_rgba (and NAME_mono when takes_mono)
    bool takes_mono = false;
    // OpenCL C types of ARGS ("float", "int", "float4"), or kTableArg: a table of PIX_MAX + 1
    // stored values (mono_t), which the functions take as `VFX_TABLE_AS const mono_t*` (the
    // kernel may copy an 8-bit one into __local memory) and set_args sets as a buffer.
    std::vector<std::string> arg_types;
    // Sets the op's arguments, arg_types.size() of them, from kernel argument `first` on, for
    // a frame of working format `f` and a source of `source_bits` significant bits.
    std::function<void(cl_kernel k, cl_uint first, WorkFormat f, int source_bits)> set_args;
    // The op maps stored values to stored values (its functions take and give uint4 / uint): a
    // table indexed by them needs no conversion of its index or of its entry, and the next op
    // of a fused run takes them with no rounding.
    bool stored = false;
};

// One generated kernel running `ops` in order over every pixel.
class PointwiseFilter final : public GpuFilter {
public:
    explicit PointwiseFilter(std::vector<PointwiseOp> ops);
    void enqueue(FilterIo& io) override;
    const std::vector<PointwiseOp>& ops() const { return ops_; }
    // The candidates the tuner chooses among (KernelVariant::label), for tests.
    // `tables`: those of a run with a table op (which has the LT candidates too), for frames of
    // format `f`.
    static std::vector<std::string> variant_labels(bool tables, WorkFormat f);
    // The variant the last enqueue ran; null before the first.
    const KernelVariant* last_choice() const { return last_; }

    // The generated OpenCL C source for these ops (without common.h), for `mono` frames and
    // PX pixels per work-item: what enqueue() builds (tests and --dump).
    std::string source(ClContext& cl, bool mono) const;

private:
    std::vector<PointwiseOp> ops_;
    std::unique_ptr<TunedKernel> kernel_[2];  // colour, mono
    const KernelVariant* last_ = nullptr;
};

// A chain's filters as the GPU runs them: each run of two or more adjacent filters made by
// PointwiseFilter becomes one PointwiseFilter. `first`/`count`: the chain filters it covers.
struct ChainStage {
    std::string name;  // the filter's stage name, or "a+b+c" for a fused run
    std::unique_ptr<GpuFilter> filter;
    size_t first = 0, count = 1;
};
// Makes each filter of `chain` (its factory) and fuses point-wise runs when `fuse`.
// `stage_name(i)` names chain filter i (FrameProcessor's "#N" convention).
std::vector<ChainStage> make_stages(ClContext& cl, const Chain& chain, bool fuse,
                                    const std::function<std::string(size_t)>& stage_name);

}  // namespace vfx
