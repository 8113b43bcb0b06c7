#pragma once
// A single-launch stencil filter over a local-memory tile with a clamp-to-edge apron (used by
// filters_noise.cpp and filters_stylise.cpp). The kernel's arguments start with
//   src, src_pitch, width, height, dst, dst_pitch, then one __local buffer per entry of
//   `tile_bytes` ((local width + 2r) x (local height + 2r) elements of that many bytes),
// and go on with the filter's own extras, set by the caller between prepare() and launch().
#include <fmt/format.h>

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "compute/cl_args.hpp"
#include "compute/filter.hpp"
#include "core/error.hpp"

namespace vfx {

class TiledStencil {
public:
    // `tile_bytes(format)`: bytes per tile element of each __local buffer, in argument order.
    using TileBytes = std::vector<size_t> (*)(WorkFormat);

    TiledStencil(std::string file, std::string kernel, std::string options, int radius,
                 TileBytes tile_bytes)
        : file_(std::move(file)),
          kernel_(std::move(kernel)),
          options_(std::move(options)),
          radius_(radius),
          tile_bytes_(tile_bytes) {}

    int radius() const { return radius_; }

    // The kernel for io's working format (built on first use) with its leading arguments set;
    // returns the index of its first extra argument.
    cl_kernel prepare(FilterIo& io, cl_uint& next_arg) {
        Entry& e = entry(io);
        cl_kernel k = e.kernel.get();
        set_args(k, io.src, static_cast<cl_int>(io.g.pitch), static_cast<cl_int>(io.g.width),
                 static_cast<cl_int>(io.g.height), io.dst, static_cast<cl_int>(io.g.pitch));
        cl_uint i = 6;
        for (size_t b : tile_bytes_(io.g.format))
            set_arg(k, i++, LocalMem{tile_elements(e.local) * b});
        next_arg = i;
        return k;
    }

    void launch(FilterIo& io, cl_kernel k) {
        io.events.push_back(enqueue_2d(io.queue, k, io.g.width, io.g.height, entry(io).local));
    }

private:
    struct Entry {
        ClKernel kernel;
        std::array<size_t, 2> local{};
    };

    size_t tile_elements(std::array<size_t, 2> local) const {
        const size_t apron = 2 * static_cast<size_t>(radius_);
        return (local[0] + apron) * (local[1] + apron);
    }

    size_t tile_total(std::array<size_t, 2> local, WorkFormat f) const {
        size_t per = 0;
        for (size_t b : tile_bytes_(f))
            per += b;
        return tile_elements(local) * per;
    }

    Entry& entry(FilterIo& io) {
        Entry& e = entries_[io.g.format == WorkFormat::rgba16 ? 1 : 0];
        if (e.kernel) return e;
        const std::string opts =
            fmt::format("-DWORK16={}{}{}", io.g.format == WorkFormat::rgba16 ? 1 : 0,
                        options_.empty() ? "" : " ", options_);
        e.kernel = io.cl.kernel(file_, kernel_.c_str(), opts);
        cl_kernel k = e.kernel.get();
        // 16 x 16 where the device allows it; halve y, then x, until the tiles fit.
        std::array<size_t, 2> local = fit_local_2d(k, io.cl.device(), 16, 16);
        const size_t used = kernel_static_local(k, io.cl.device());
        const size_t avail =
            io.cl.info().local_mem_bytes > used ? io.cl.info().local_mem_bytes - used : 0;
        while (tile_total(local, io.g.format) > avail) {
            if (local[1] > 1)
                local[1] /= 2;
            else if (local[0] > 1)
                local[0] /= 2;
            else
                throw GpuError(fmt::format("{}: radius {} needs more local memory than the "
                                           "device has ({} bytes)",
                                           kernel_, radius_, avail),
                               CL_OUT_OF_RESOURCES);
        }
        e.local = local;
        return e;
    }

    std::string file_, kernel_, options_;
    int radius_ = 0;
    TileBytes tile_bytes_;
    Entry entries_[2];
};

}  // namespace vfx
