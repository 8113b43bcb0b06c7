// traffic_probe: the DRAM ceiling of each traffic shape the vfx kernels have, on this GPU.
//
// `vfx bench` rates a kernel against a copy (read + write of one RGBA8 frame). Demosaic reads a
// one-byte frame and writes a four-byte one (4 : 1 written to read), the mosaic the reverse,
// the stencils 1 : 1. Whether a shape other than the copy's can itself reach the copy's rate
// says how far a kernel of that shape could go. Each probe is the plainest kernel of its
// shape: every work-item one aligned 16-byte access per frame it writes (and the reads that
// go with it), no arithmetic. Timed like `vfx bench`: warm-up, then the median of many runs,
// each bracketed by its own events; buffers rotate through sets of >= 256 MB so no run reads
// the previous run's frame from L2. The *_cs probes repeat three shapes with streaming stores
// (st.global.cs), to see whether a store's cache policy moves a write-heavy shape's ceiling (on
// the H200 of 2026-11-26 it did not).
//
//   traffic_probe [--size WxH] [--runs N]        (build: nvcc -O3 -o traffic_probe
//   traffic_probe.cu)

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(call)                                                                   \
    do {                                                                           \
        const cudaError_t e_ = (call);                                             \
        if (e_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "traffic_probe: %s failed: %s at %s:%d\n", #call, \
                         cudaGetErrorString(e_), __FILE__, __LINE__);              \
            std::exit(1);                                                          \
        }                                                                          \
    } while (0)

// Copy of an RGBA8 frame: one uint4 (4 pixels) in, one out.
__global__ void copy4(const uint4* __restrict__ in, uint4* __restrict__ out, size_t n) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}
// Write only (the 4 : 1 shape's limit as its reads go to 0).
__global__ void fill4(uint4* __restrict__ out, size_t n) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = make_uint4((uint32_t)i, 0u, 0u, 0xFF000000u);
}
// Demosaic's shape: 4 one-byte samples (one uint) in, 4 RGBA8 pixels (one uint4) out.
__global__ void expand4(const uint32_t* __restrict__ in, uint4* __restrict__ out, size_t n) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) {
        const uint32_t s = in[i];
        out[i] = make_uint4(s & 0xFFu, (s >> 8) & 0xFFu, (s >> 16) & 0xFFu, s >> 24);
    }
}
// Demosaic's shape with its rows: 16 samples (one uint4) in, 16 pixels (4 uint4) out, the
// four stores of one work-item 16 bytes x blockDim apart (each store instruction of a warp
// one contiguous 512-byte run).
__global__ void expand16(const uint4* __restrict__ in, uint4* __restrict__ out, size_t n) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) {
        const uint4 s = in[i];
        const size_t base = 4 * (blockIdx.x * (size_t)blockDim.x) + threadIdx.x;
        out[base] = make_uint4(s.x, 0u, 0u, 0u);
        out[base + blockDim.x] = make_uint4(s.y, 0u, 0u, 0u);
        out[base + 2 * blockDim.x] = make_uint4(s.z, 0u, 0u, 0u);
        out[base + 3 * blockDim.x] = make_uint4(s.w, 0u, 0u, 0u);
    }
}
// The same shapes with streaming stores (st.global.cs, evict-first: __stcs), to see whether the
// store's cache policy moves a write-heavy shape's ceiling.
__global__ void copy4_cs(const uint4* __restrict__ in, uint4* __restrict__ out, size_t n) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) __stcs(out + i, in[i]);
}
__global__ void fill4_cs(uint4* __restrict__ out, size_t n) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) __stcs(out + i, make_uint4((uint32_t)i, 0u, 0u, 0xFF000000u));
}
__global__ void expand4_cs(const uint32_t* __restrict__ in, uint4* __restrict__ out, size_t n) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) {
        const uint32_t s = in[i];
        __stcs(out + i, make_uint4(s & 0xFFu, (s >> 8) & 0xFFu, (s >> 16) & 0xFFu, s >> 24));
    }
}
// The mosaic's shape: 4 pixels (one uint4) in, 4 samples (one uint) out.
__global__ void contract4(const uint4* __restrict__ in, uint32_t* __restrict__ out, size_t n) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) {
        const uint4 p = in[i];
        out[i] = (p.x & 0xFFu) | (p.y & 0xFFu) << 8 | (p.z & 0xFFu) << 16 | p.w << 24;
    }
}

struct Probe {
    const char* name;
    size_t read, written;  // bytes per run
};

int main(int argc, char** argv) {
    int w = 3840, h = 2160, runs = 200, warmup = 20;
    for (int a = 1; a < argc; ++a) {
        if (!std::strcmp(argv[a], "--size") && a + 1 < argc) {
            if (std::sscanf(argv[++a], "%dx%d", &w, &h) != 2 || w <= 0 || h <= 0 || w % 16) {
                std::fprintf(stderr, "traffic_probe: --size WxH, W a multiple of 16\n");
                return 1;
            }
        } else if (!std::strcmp(argv[a], "--runs") && a + 1 < argc) {
            runs = std::max(1, std::atoi(argv[++a]));
        } else {
            std::fprintf(stderr, "usage: traffic_probe [--size WxH] [--runs N]\n");
            return 1;
        }
    }
    const size_t px = (size_t)w * h, big = 4 * px, small = px;
    const int sets = (int)std::max<size_t>(2, (256u << 20) / (big + big) + 1);
    std::vector<void*> a(sets), b(sets), m(sets);
    for (int s = 0; s < sets; ++s) {
        CK(cudaMalloc(&a[s], big));
        CK(cudaMalloc(&b[s], big));
        CK(cudaMalloc(&m[s], small));
        CK(cudaMemset(a[s], s, big));
        CK(cudaMemset(m[s], s, small));
    }
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    const int bs = 256;
    auto grid = [&](size_t n) { return (unsigned)((n + bs - 1) / bs); };
    const Probe probes[] = {{"cudaMemcpy D2D (RGBA8)", big, big},
                            {"copy4   (RGBA8 -> RGBA8, 1:1)", big, big},
                            {"fill4   (-> RGBA8, write only)", 0, big},
                            {"expand4 (mono8 -> RGBA8, 4:1)", small, big},
                            {"expand16 (mono8 x16 -> RGBA8, 4:1)", small, big},
                            {"contract4 (RGBA8 -> mono8, 1:4)", big, small},
                            {"copy4_cs   (copy4, streaming stores)", big, big},
                            {"fill4_cs   (fill4, streaming stores)", 0, big},
                            {"expand4_cs (expand4, streaming stores)", small, big}};
    std::printf("device: ");
    cudaDeviceProp prop{};
    CK(cudaGetDeviceProperties(&prop, 0));
    std::printf("%s, %dx%d, %d runs after %d, %d buffer sets\n", prop.name, w, h, runs, warmup,
                sets);
    double copy_rate = 0;
    for (int p = 0; p < (int)(sizeof probes / sizeof probes[0]); ++p) {
        std::vector<float> ms;
        for (int r = 0; r < warmup + runs; ++r) {
            const int s = r % sets;
            CK(cudaEventRecord(e0));
            switch (p) {
                case 0:
                    CK(cudaMemcpyAsync(b[s], a[s], big, cudaMemcpyDeviceToDevice));
                    break;
                case 1:
                    copy4<<<grid(big / 16), bs>>>((const uint4*)a[s], (uint4*)b[s], big / 16);
                    break;
                case 2:
                    fill4<<<grid(big / 16), bs>>>((uint4*)b[s], big / 16);
                    break;
                case 3:
                    expand4<<<grid(small / 4), bs>>>((const uint32_t*)m[s], (uint4*)b[s],
                                                     small / 4);
                    break;
                case 4:
                    expand16<<<grid(small / 16), bs>>>((const uint4*)m[s], (uint4*)b[s],
                                                       small / 16);
                    break;
                case 5:
                    contract4<<<grid(big / 16), bs>>>((const uint4*)a[s], (uint32_t*)m[s],
                                                      big / 16);
                    break;
                case 6:
                    copy4_cs<<<grid(big / 16), bs>>>((const uint4*)a[s], (uint4*)b[s], big / 16);
                    break;
                case 7:
                    fill4_cs<<<grid(big / 16), bs>>>((uint4*)b[s], big / 16);
                    break;
                case 8:
                    expand4_cs<<<grid(small / 4), bs>>>((const uint32_t*)m[s], (uint4*)b[s],
                                                        small / 4);
                    break;
            }
            CK(cudaGetLastError());
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            float t = 0;
            CK(cudaEventElapsedTime(&t, e0, e1));
            if (r >= warmup) ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        const double med = ms[ms.size() / 2];
        const double rate = (double)(probes[p].read + probes[p].written) / (med * 1e-3) / 1e9;
        if (p == 0) copy_rate = rate;
        std::printf("%-40s %8.4f ms (min %.4f)  %7.1f GB/s  %5.1f%% of the copy\n", probes[p].name,
                    med, ms.front(), rate, 100.0 * rate / copy_rate);
    }
    return 0;
}
