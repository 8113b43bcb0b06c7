// ptx_profile: runs one kernel of a PTX program that NVIDIA's OpenCL compiler produced (what
// `VFX_DUMP_BINARIES` writes) through the CUDA driver API, so that Nsight Compute (`ncu`), which
// does not profile OpenCL, can read its hardware counters: stall reasons, DRAM and L2 traffic,
// issue efficiency. A developer's tool for kernel work on the GPU machine (issue 4); it times
// the kernel too (CUDA events, median after a warm-up), to check it runs as fast as through
// OpenCL.
//
//   ptx_profile PTX KERNEL --grid GXxGY --block LXxLY --args SPEC [--bytes N] [--runs N]
//               [--warmup N]
//
// --grid counts work-items (OpenCL's global size), a multiple of --block. The runs are queued
// back to back, each between its own pair of events, on the same buffers (unlike `vfx bench`,
// which rotates buffers so that every run reads from DRAM: part of a 4K frame stays in L2 here).
//
// The PTX is adapted as text before it is loaded, the only two places where OpenCL's PTX
// differs from CUDA's: %envreg registers (what the OpenCL runtime passes: the group offsets
// and global offsets, read as 0, and in %envreg6..8 the groups along x, y, z, get_num_groups,
// read as %nctaid), and each `.ptr .const` parameter (an OpenCL __constant pointer) becomes a
// module constant that the harness fills. SPEC lists the kernel's arguments, comma-separated: `in`
// (a device buffer of --bytes random bytes), `out` (a device buffer of --bytes bytes), `i:N`
// (int), `f:X` (float), `c:X;Y;...` (a __constant float array), `v:X;Y;...` (a float16 by
// value: up to 16 floats, the rest 0).
// Build: nvcc -O2 -o ptx_profile peers/ptx_profile.cu -lcuda

#include <cuda.h>

#include <algorithm>
#include <array>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

[[noreturn]] static void die(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::fprintf(stderr, "ptx_profile: ");
    std::vfprintf(stderr, fmt, ap);
    std::fprintf(stderr, "\n");
    va_end(ap);
    std::exit(1);
}

static void cu_check(CUresult r, const char* call, const char* file, int line) {
    if (r == CUDA_SUCCESS) return;
    const char* name = nullptr;
    const char* text = nullptr;
    cuGetErrorName(r, &name);
    cuGetErrorString(r, &text);
    die("%s failed: %s (%s) at %s:%d", call, name ? name : "?", text ? text : "?", file, line);
}
#define CU_CHECK(call) cu_check((call), #call, __FILE__, __LINE__)

static void parse_pair(const char* s, unsigned* a, unsigned* b, const char* what) {
    if (std::sscanf(s, "%ux%u", a, b) != 2 || *a == 0 || *b == 0)
        die("%s: expected WxH, got '%s'", what, s);
}

static std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string t; std::getline(in, t, sep);)
        out.push_back(t);
    return out;
}

// The PTX with %envreg6..8 read as %nctaid.x..z (NVIDIA's OpenCL PTX takes get_num_groups
// from them: gaussian.cl's PG read 0 groups and its groups returned at once, benchmarks/
// 2026-11-28-s25), the other %envreg as 0 (offsets), and the kernel's k-th `.ptr .const`
// parameter loaded as the address of module constant ptx_profile_c<k> (its loads keep going to
// the constant space).
static std::string adapt_ptx(std::string ptx, const std::string& kernel, int* nconst) {
    const char* dims[] = {"x", "y", "z"};
    for (int d = 0; d < 3; ++d)
        ptx = std::regex_replace(
            ptx, std::regex(R"(mov\.b32(\s+%r\d+),\s*%envreg)" + std::to_string(6 + d) + ";"),
            std::string("mov.u32$1, %nctaid.") + dims[d] + ";");
    ptx = std::regex_replace(ptx, std::regex(R"(mov\.b32(\s+%r\d+),\s*%envreg\d+;)"),
                             "mov.b32$1, 0;");
    if (ptx.find("%envreg") != std::string::npos) die("an %%envreg use the tool does not know");
    std::smatch m;
    std::string decls;
    *nconst = 0;
    const std::regex param(R"(\.param \.u64 \.ptr \.const \.align \d+ ()" + kernel +
                           R"(_param_\d+))");
    std::string rest = ptx;
    std::vector<std::string> names;
    while (std::regex_search(rest, m, param)) {
        names.push_back(m[1].str());
        rest = m.suffix();
    }
    for (const std::string& name : names) {
        const std::string var = "ptx_profile_c" + std::to_string((*nconst)++);
        decls += ".const .align 16 .b8 " + var + "[4096];\n";
        const std::string before = ptx;
        ptx = std::regex_replace(ptx,
                                 std::regex(R"(ld\.param\.u64(\s+%rd\d+),\s*\[)" + name + R"(\];)"),
                                 "mov.u64$1, " + var + ";");
        if (ptx == before) die("no load of %s to rewrite", name.c_str());
    }
    // The other kernels of the program go: the driver refuses a module whose kernels take
    // __local pointers (`.ptr .shared` parameters) with CUDA_ERROR_INVALID_IMAGE.
    for (size_t at = 0; (at = ptx.find("\n.entry ", at)) != std::string::npos;) {
        const size_t name_at = at + 8;
        const std::string name = ptx.substr(name_at, ptx.find_first_of("( \n", name_at) - name_at);
        size_t open = ptx.find('{', at), end = open;
        for (int depth = 0; end < ptx.size(); ++end) {
            if (ptx[end] == '{') ++depth;
            if (ptx[end] == '}' && --depth == 0) break;
        }
        if (name == kernel || open == std::string::npos || end >= ptx.size()) {
            at = name_at;
            continue;
        }
        ptx.erase(at + 1, end + 1 - at);
    }
    // Module-level declarations go after the .address_size directive.
    const size_t at = ptx.find(".address_size");
    if (at == std::string::npos) die("no .address_size in the PTX");
    const size_t eol = ptx.find('\n', at);
    ptx.insert(eol + 1, decls);
    return ptx;
}

int main(int argc, char** argv) {
    if (argc < 3) die("usage: ptx_profile PTX KERNEL --grid GXxGY --block LXxLY --args SPEC ...");
    const std::string path = argv[1], kernel = argv[2];
    unsigned gx = 0, gy = 0, lx = 0, ly = 0;
    std::string spec;
    size_t bytes = 3840u * 2160u * 4u;
    int runs = 200, warmup = 20;
    for (int i = 3; i < argc; ++i) {
        const std::string a = argv[i];
        if (a.rfind("--", 0) != 0) die("unexpected argument '%s'", a.c_str());
        if (i + 1 >= argc) die("%s needs a value", a.c_str());
        const char* v = argv[++i];
        if (a == "--grid")
            parse_pair(v, &gx, &gy, "--grid");
        else if (a == "--block")
            parse_pair(v, &lx, &ly, "--block");
        else if (a == "--args")
            spec = v;
        else if (a == "--bytes")
            bytes = std::strtoull(v, nullptr, 10);
        else if (a == "--runs")
            runs = std::max(1, std::atoi(v));
        else if (a == "--warmup")
            warmup = std::max(0, std::atoi(v));
        else
            die("unknown option '%s'", a.c_str());
    }
    if (gx == 0 || lx == 0 || spec.empty()) die("--grid, --block and --args are required");
    if (gx % lx || gy % ly) die("--grid %ux%u is not a multiple of --block %ux%u", gx, gy, lx, ly);

    std::ifstream f(path);
    if (!f) die("cannot read '%s'", path.c_str());
    std::stringstream ss;
    ss << f.rdbuf();
    int nconst = 0;
    const std::string ptx = adapt_ptx(ss.str(), kernel, &nconst);

    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));
    if (const char* keep = std::getenv("PTX_PROFILE_KEEP")) std::ofstream(keep) << ptx;
    char log[8192] = {}, info[8192] = {};
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                           CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void* vals[] = {log, reinterpret_cast<void*>(sizeof(log)), info,
                    reinterpret_cast<void*>(sizeof(info))};
    CUmodule mod;
    // PTX_PROFILE_PTXAS=sm_XX: assembled by ptxas into a cubin first (the driver's JIT refused
    // some of OpenCL's PTX with CUDA_ERROR_INVALID_IMAGE and no log, where ptxas took it).
    if (const char* arch = std::getenv("PTX_PROFILE_PTXAS")) {
        if (!std::regex_match(arch, std::regex("sm_[0-9]+a?")))
            die("PTX_PROFILE_PTXAS=%s: expected sm_NN", arch);
        const std::string base = "/tmp/ptx_profile_" + std::to_string(getpid());
        std::ofstream(base + ".ptx") << ptx;
        // PTX_PROFILE_PTXAS_OPTS: more ptxas options (e.g. --maxrregcount=32, -v), checked
        // against a plain character set since they reach a shell.
        const char* more = std::getenv("PTX_PROFILE_PTXAS_OPTS");
        if (more && !std::regex_match(more, std::regex("[-A-Za-z0-9_= ]*")))
            die("PTX_PROFILE_PTXAS_OPTS=%s: unexpected characters", more);
        const std::string cmd = "ptxas -arch=" + std::string(arch) + " " + (more ? more : "") +
                                " " + base + ".ptx -o " + base + ".cubin";
        const int rc = std::system(cmd.c_str());
        std::remove((base + ".ptx").c_str());
        if (rc != 0) die("%s failed", cmd.c_str());
        CU_CHECK(cuModuleLoad(&mod, (base + ".cubin").c_str()));
        std::remove((base + ".cubin").c_str());
    } else if (const CUresult r = cuModuleLoadDataEx(&mod, ptx.c_str(), 4, opts, vals);
               r != CUDA_SUCCESS) {
        const char* name = nullptr;
        cuGetErrorName(r, &name);
        die("the PTX does not load (%s): %s %s", name ? name : "?", log, info);
    }
    CUfunction fn;
    CU_CHECK(cuModuleGetFunction(&fn, mod, kernel.c_str()));

    // Arguments.
    std::vector<CUdeviceptr> bufs;
    std::vector<uint64_t> storage;  // one 8-byte slot per argument
    const std::vector<std::string> items = split(spec, ',');
    storage.resize(items.size());
    std::vector<void*> params;
    std::vector<std::array<float, 16>> vectors(items.size());  // v: arguments (never resized)
    std::mt19937 rng(1234);
    int next_const = 0;
    for (size_t k = 0; k < items.size(); ++k) {
        const std::string& it = items[k];
        void* slot = &storage[k];
        if (it == "in" || it == "out") {
            CUdeviceptr p;
            CU_CHECK(cuMemAlloc(&p, bytes));
            if (it == "in") {
                std::vector<uint8_t> host(bytes);
                for (auto& b : host)
                    b = static_cast<uint8_t>(rng());
                CU_CHECK(cuMemcpyHtoD(p, host.data(), bytes));
            } else {
                CU_CHECK(cuMemsetD8(p, 0, bytes));
            }
            bufs.push_back(p);
            std::memcpy(slot, &p, sizeof(p));
            params.push_back(slot);
        } else if (it.rfind("i:", 0) == 0) {
            const int v = std::atoi(it.c_str() + 2);
            std::memcpy(slot, &v, sizeof(v));
            params.push_back(slot);
        } else if (it.rfind("f:", 0) == 0) {
            const float v = std::strtof(it.c_str() + 2, nullptr);
            std::memcpy(slot, &v, sizeof(v));
            params.push_back(slot);
        } else if (it.rfind("v:", 0) == 0) {
            std::array<float, 16>& v = vectors[k];
            v.fill(0.0f);
            size_t n = 0;
            for (const std::string& t : split(it.substr(2), ';')) {
                if (n == v.size()) die("v: takes at most 16 numbers");
                char* end = nullptr;
                v[n++] = std::strtof(t.c_str(), &end);
                if (end == t.c_str() || *end) die("v: '%s' is not a number", t.c_str());
            }
            params.push_back(v.data());
        } else if (it.rfind("c:", 0) == 0) {
            // The parameter itself was replaced by the module constant: no kernel argument.
            if (next_const >= nconst) die("more c: arguments than __constant parameters");
            std::vector<float> vals;
            for (const std::string& t : split(it.substr(2), ';')) {
                char* end = nullptr;
                vals.push_back(std::strtof(t.c_str(), &end));
                if (end == t.c_str() || *end) die("c: '%s' is not a number", t.c_str());
            }
            CUdeviceptr p;
            size_t size = 0;
            const std::string var = "ptx_profile_c" + std::to_string(next_const++);
            CU_CHECK(cuModuleGetGlobal(&p, &size, mod, var.c_str()));
            if (vals.size() * sizeof(float) > size) die("too many constants");
            CU_CHECK(cuMemcpyHtoD(p, vals.data(), vals.size() * sizeof(float)));
            // The PTX parameter stays declared: pass a dummy value for it.
            storage[k] = 0;
            params.push_back(slot);
        } else {
            die("unknown argument kind '%s'", it.c_str());
        }
    }

    // As many arguments as the kernel's parameters (cuLaunchKernel would read past `params`).
    const std::string head = ptx.substr(ptx.find(".entry " + kernel));
    const size_t declared =
        static_cast<size_t>(std::count(
            head.begin(), head.begin() + static_cast<std::ptrdiff_t>(head.find(')')), ',')) +
        1;
    if (declared != params.size())
        die("the kernel has %zu parameters, --args lists %zu", declared, params.size());
    CUstream stream;
    CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    auto launch = [&] {
        CU_CHECK(
            cuLaunchKernel(fn, gx / lx, gy / ly, 1, lx, ly, 1, 0, stream, params.data(), nullptr));
    };
    for (int i = 0; i < warmup; ++i)
        launch();
    std::vector<CUevent> ev(2 * static_cast<size_t>(runs));
    for (CUevent& e : ev)
        CU_CHECK(cuEventCreate(&e, CU_EVENT_DEFAULT));
    for (int i = 0; i < runs; ++i) {
        CU_CHECK(cuEventRecord(ev[2 * i], stream));
        launch();
        CU_CHECK(cuEventRecord(ev[2 * i + 1], stream));
    }
    CU_CHECK(cuStreamSynchronize(stream));
    std::vector<float> ms;
    for (int i = 0; i < runs; ++i) {
        float t = 0;
        CU_CHECK(cuEventElapsedTime(&t, ev[2 * i], ev[2 * i + 1]));
        ms.push_back(t);
    }
    for (CUevent e : ev)
        cuEventDestroy(e);
    std::sort(ms.begin(), ms.end());
    std::printf("%s %s grid %ux%u block %ux%u: median %.4f ms, min %.4f ms over %d runs\n",
                path.c_str(), kernel.c_str(), gx, gy, lx, ly, ms[ms.size() / 2], ms[0], runs);
    cuStreamDestroy(stream);
    for (CUdeviceptr p : bufs)
        cuMemFree(p);
    cuModuleUnload(mod);
    cuDevicePrimaryCtxRelease(dev);
    return 0;
}
