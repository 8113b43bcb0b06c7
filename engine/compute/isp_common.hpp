#pragma once
// Helpers shared by filters_isp.cpp and filters_composite.cpp (format_options also by the
// point-wise generator and the processor's histogram view): kernels cached per build options,
// the common argument prefix (src, src_pitch, dst, dst_pitch, width, height) and Bayer
// pattern codes.
#include <fmt/format.h>

#include <array>
#include <map>
#include <string>

#include "compute/builtin_filters.hpp"
#include "compute/chain.hpp"
#include "compute/cl_args.hpp"
#include "compute/filter.hpp"

namespace vfx::isp {

// The 2x2 pattern ("rggb" ...) packed as kernels' cfa_at() reads it: colour (0 R, 1 G, 2 B) of
// site (x & 1) + 2 (y & 1) at bits 2 site.
int cfa_code(const std::string& pattern);
ParamSpec pattern_param();

struct Launch {
    ClKernel kernel;
    std::array<size_t, 2> local{};
};

class KernelCache {
public:
    const Launch& get(ClContext& cl, const char* file, const char* name,
                      const std::string& options);

private:
    std::map<std::string, Launch> kernels_;
};

// "-DWORK16=.. -DMONO=.." for a frame of format f.
std::string format_options(WorkFormat f);
// Arguments 0..5: io.src, src pitch, io.dst, dst pitch, width, height.
void set_frame_args(cl_kernel k, const FilterIo& io);
// Enqueues `l` over the frame; the event goes into io.events.
void launch(FilterIo& io, const Launch& l);

}  // namespace vfx::isp
