// clCreateCommandQueue is only used for OpenCL 1.x platforms (no *WithProperties there).
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include "compute/cl_context.hpp"

#include <CL/cl_ext.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compute/tuner.hpp"
#include "core/embedded.hpp"
#include "core/error.hpp"

namespace vfx {

namespace {

std::string device_string(cl_device_id dev, cl_device_info what) {
    size_t size = 0;
    if (clGetDeviceInfo(dev, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
    std::string s(size, '\0');
    VFX_CL(clGetDeviceInfo(dev, what, size, s.data(), nullptr));
    while (!s.empty() && s.back() == '\0')
        s.pop_back();
    return s;
}

std::string platform_string(cl_platform_id p, cl_platform_info what) {
    size_t size = 0;
    if (clGetPlatformInfo(p, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
    std::string s(size, '\0');
    VFX_CL(clGetPlatformInfo(p, what, size, s.data(), nullptr));
    while (!s.empty() && s.back() == '\0')
        s.pop_back();
    return s;
}

template <typename T>
T device_value(cl_device_id dev, cl_device_info what, T fallback = T{}) {
    T v{};
    if (clGetDeviceInfo(dev, what, sizeof(T), &v, nullptr) != CL_SUCCESS) return fallback;
    return v;
}

// "OpenCL 3.0 ..." -> 300; 0 when unparsable.
int parse_cl_version(const std::string& text) {
    int major = 0, minor = 0;
    if (std::sscanf(text.c_str(), "OpenCL %d.%d", &major, &minor) != 2) return 0;
    return major * 100 + minor;
}

// OpenCL C 3.0 when the device lists it (CL_DEVICE_OPENCL_C_ALL_VERSIONS, a 3.0 query), 1.2
// otherwise. Our kernels are plain OpenCL C 1.2 and compile as either.
const char* cl_std_option(cl_device_id dev) {
    if (parse_cl_version(device_string(dev, CL_DEVICE_VERSION)) >= 300) {
        size_t size = 0;
        if (clGetDeviceInfo(dev, CL_DEVICE_OPENCL_C_ALL_VERSIONS, 0, nullptr, &size) ==
                CL_SUCCESS &&
            size >= sizeof(cl_name_version)) {
            std::vector<cl_name_version> versions(size / sizeof(cl_name_version));
            VFX_CL(clGetDeviceInfo(dev, CL_DEVICE_OPENCL_C_ALL_VERSIONS, size, versions.data(),
                                   nullptr));
            for (const auto& v : versions)
                if (CL_VERSION_MAJOR(v.version) == 3) return "-cl-std=CL3.0";
        }
    }
    return "-cl-std=CL1.2";
}

std::string read_text_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) fail("cannot read kernel file '{}'", path.string());
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

bool ClDeviceInfo::has_extension(std::string_view ext) const {
    size_t pos = 0;
    while (pos < extensions.size()) {
        size_t end = extensions.find(' ', pos);
        if (end == std::string::npos) end = extensions.size();
        if (std::string_view(extensions).substr(pos, end - pos) == ext) return true;
        pos = end + 1;
    }
    return false;
}

std::string ClDeviceInfo::correctly_rounded_option() const {
    return correctly_rounded_divide_sqrt ? "-cl-fp32-correctly-rounded-divide-sqrt" : "";
}

std::string ClDeviceInfo::sqrt_cr_options() const {
    // The step alone was checked against the correctly rounded sqrt() on every float of
    // vfx_sqrt_cr's domain on sm_90 (H100; the H200 is the same SM): an approximate reciprocal
    // square root of another generation may round otherwise.
    std::string o = correctly_rounded_option();
    if (!o.empty() && nv_compute_capability == 90) o += " -DVFX_SQRT_STEP=1";
    return o;
}

std::string ClDeviceInfo::arch_options() const {
    return nv_compute_capability ? fmt::format("-DVFX_NV_SM={}", nv_compute_capability) : "";
}

std::string ClDeviceInfo::type_name() const {
    if (type & CL_DEVICE_TYPE_GPU) return "GPU";
    if (type & CL_DEVICE_TYPE_CPU) return "CPU";
    if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
    if (type & CL_DEVICE_TYPE_CUSTOM) return "custom";
    return "unknown";
}

std::vector<ClDeviceInfo> list_cl_devices() {
    std::vector<ClDeviceInfo> out;
    cl_uint nplat = 0;
    cl_int err = clGetPlatformIDs(0, nullptr, &nplat);
    if (err == CL_PLATFORM_NOT_FOUND_KHR || nplat == 0) return out;
    VFX_CL_ERR(err, "clGetPlatformIDs");
    std::vector<cl_platform_id> platforms(nplat);
    VFX_CL(clGetPlatformIDs(nplat, platforms.data(), nullptr));

    for (cl_platform_id p : platforms) {
        cl_uint ndev = 0;
        err = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &ndev);
        if (err == CL_DEVICE_NOT_FOUND || ndev == 0) continue;
        if (err != CL_SUCCESS) {  // one broken platform must not hide the others
            spdlog::warn("OpenCL platform '{}': clGetDeviceIDs failed: {} ({})",
                         platform_string(p, CL_PLATFORM_NAME), cl_error_name(err), err);
            continue;
        }
        std::vector<cl_device_id> devices(ndev);
        VFX_CL(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, ndev, devices.data(), nullptr));
        const std::string pname = platform_string(p, CL_PLATFORM_NAME);
        for (cl_device_id d : devices) {
            ClDeviceInfo info;
            info.platform = p;
            info.id = d;
            info.index = static_cast<int>(out.size());
            info.platform_name = pname;
            info.name = device_string(d, CL_DEVICE_NAME);
            info.vendor = device_string(d, CL_DEVICE_VENDOR);
            info.version = device_string(d, CL_DEVICE_VERSION);
            info.driver_version = device_string(d, CL_DRIVER_VERSION);
            info.type = device_value<cl_device_type>(d, CL_DEVICE_TYPE);
            info.vendor_id = device_value<cl_uint>(d, CL_DEVICE_VENDOR_ID);
            info.extensions = device_string(d, CL_DEVICE_EXTENSIONS);
            if (info.has_extension("cl_khr_device_uuid")) {
                Uuid uuid{};
                if (clGetDeviceInfo(d, CL_DEVICE_UUID_KHR, uuid.size(), uuid.data(), nullptr) ==
                    CL_SUCCESS)
                    info.uuid = uuid;
            }
            // Deprecated in 2.0 but still answered by every 3.0 implementation we target.
            info.host_unified_memory = device_value<cl_bool>(d, CL_DEVICE_HOST_UNIFIED_MEMORY) != 0;
            info.global_mem_bytes = device_value<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE);
            info.local_mem_bytes = device_value<cl_ulong>(d, CL_DEVICE_LOCAL_MEM_SIZE);
            info.global_cache_bytes = device_value<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE);
            info.max_alloc_bytes = device_value<cl_ulong>(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
            info.compute_units = device_value<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS);
            info.max_work_group = device_value<size_t>(d, CL_DEVICE_MAX_WORK_GROUP_SIZE);
            info.correctly_rounded_divide_sqrt =
                (device_value<cl_device_fp_config>(d, CL_DEVICE_SINGLE_FP_CONFIG) &
                 CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
            if (info.has_extension("cl_nv_device_attribute_query")) {
                cl_uint major = 0;
                cl_uint minor = 0;
                if (clGetDeviceInfo(d, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof major, &major,
                                    nullptr) == CL_SUCCESS &&
                    clGetDeviceInfo(d, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, sizeof minor, &minor,
                                    nullptr) == CL_SUCCESS)
                    info.nv_compute_capability = major * 10 + minor;
            }
            out.push_back(std::move(info));
        }
    }
    return out;
}

ClContext::ClContext(const ClDeviceInfo& dev)
    : info_(dev), tuner_(dev, Tuner::default_cache_dir()) {
    eviction_bytes_ = eviction_bytes(info_);
    if (const char* t = std::getenv("VFX_TUNE"); t && *t) {
        const std::string_view mode(t);
        if (mode == "fixed")
            tuner_.set_mode(TuneMode::fixed);
        else if (mode == "retune")
            tuner_.set_mode(TuneMode::retune);
        else if (mode != "cached")
            spdlog::warn("VFX_TUNE={}: expected cached, retune or fixed; using cached", mode);
    }
    const cl_context_properties props[] = {
        CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(dev.platform), 0};
    cl_int err = CL_SUCCESS;
    context_ = ClContextHandle(clCreateContext(props, 1, &dev.id, nullptr, nullptr, &err));
    VFX_CL_ERR(err, "clCreateContext");
    queue_ = make_queue(CL_QUEUE_PROFILING_ENABLE);
    spdlog::debug("OpenCL device: {} ({}, {}), {}", info_.name, info_.platform_name, info_.version,
                  cl_std_option(info_.id));
}

ClQueue ClContext::make_queue(cl_command_queue_properties props) const {
    cl_int err = CL_SUCCESS;
    ClQueue q;
    if (parse_cl_version(info_.version) >= 200) {
        const cl_queue_properties qprops[] = {CL_QUEUE_PROPERTIES, props, 0};
        q = ClQueue(clCreateCommandQueueWithProperties(context(), info_.id, qprops, &err));
        VFX_CL_ERR(err, "clCreateCommandQueueWithProperties");
    } else {
        q = ClQueue(clCreateCommandQueue(context(), info_.id, props, &err));
        VFX_CL_ERR(err, "clCreateCommandQueue");
    }
    return q;
}

ClMem ClContext::buffer(cl_mem_flags flags, size_t size, void* host) const {
    cl_int err = CL_SUCCESS;
    ClMem m(clCreateBuffer(context(), flags, size, host, &err));
    VFX_CL_ERR(err, "clCreateBuffer");
    return m;
}

size_t eviction_bytes(const ClDeviceInfo& dev) {
    if ((dev.type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR)) == 0) return 0;
    uint64_t bytes = std::max<uint64_t>(2 * dev.global_cache_bytes, uint64_t{128} << 20);
    bytes = std::min(bytes, dev.global_mem_bytes / 8);
    if (dev.max_alloc_bytes != 0) bytes = std::min(bytes, dev.max_alloc_bytes);
    bytes &= ~uint64_t{63};
    return bytes < (uint64_t{1} << 20) ? 0 : static_cast<size_t>(bytes);
}

ClEvent ClContext::evict_caches(cl_command_queue queue, std::span<const cl_event> wait) {
    ClMem scratch;
    size_t bytes = 0;
    {
        std::lock_guard lock(scratch_mutex_);
        bytes = eviction_bytes_;
        if (eviction_off_ || bytes == 0) return ClEvent();
        if (!scratch_) {
            cl_int err = CL_SUCCESS;
            scratch_ = ClMem(clCreateBuffer(context(), CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS,
                                            bytes, nullptr, &err));
            if (err != CL_SUCCESS) {
                scratch_.reset();
                eviction_off_ = true;
                spdlog::warn(
                    "tuner: no {} MiB scratch to empty the caches with ({}); measuring "
                    "without",
                    bytes >> 20, cl_error_name(err));
                return ClEvent();
            }
        }
        scratch = scratch_;  // a reference of this copy's own
    }
    // A copy from one half of the scratch to the other: lines read and lines written, as the
    // previous frame's kernel leaves the caches in the bench and in playback (a fill leaves
    // only written ones; compute/tuner.cpp says what that changed).
    const size_t half = bytes / 2 & ~size_t{63};
    cl_event ev = nullptr;
    const cl_int err = clEnqueueCopyBuffer(queue, scratch.get(), scratch.get(), 0, half, half,
                                           static_cast<cl_uint>(wait.size()),
                                           wait.empty() ? nullptr : wait.data(), &ev);
    if (err != CL_SUCCESS) {
        std::lock_guard lock(scratch_mutex_);
        if (!eviction_off_)
            spdlog::warn(
                "tuner: cannot copy through the {} MiB scratch that empties the caches ({}); "
                "measuring without",
                bytes >> 20, cl_error_name(err));
        eviction_off_ = true;
        scratch_.reset();
        return ClEvent();
    }
    ++evictions_;
    return ClEvent(ev);
}

void ClContext::release_eviction_scratch() {
    std::lock_guard lock(scratch_mutex_);
    scratch_.reset();
}

void ClContext::set_eviction_bytes(size_t bytes) {
    std::lock_guard lock(scratch_mutex_);
    // (Whole 128-byte units: two halves of whole 64-byte units, neither empty.)
    eviction_bytes_ = bytes != 0 ? (bytes + 127) & ~size_t{127} : eviction_bytes(info_);
    eviction_off_ = false;
    scratch_.reset();
}

void ClContext::add_source(const std::string& name, std::string text) {
    std::lock_guard lock(generated_mutex_);
    auto [it, added] = generated_.try_emplace(name, std::move(text));
    if (!added && it->second != text) fail("generated kernel source '{}' registered twice", name);
}

std::string ClContext::kernel_source(std::string_view file) const {
    {
        std::lock_guard lock(generated_mutex_);
        if (auto it = generated_.find(file); it != generated_.end()) return it->second;
    }
    if (!kernel_dir_.empty()) {
        std::filesystem::path p = std::filesystem::path(kernel_dir_) / std::string(file);
        std::error_code ec;
        if (std::filesystem::is_regular_file(p, ec)) return read_text_file(p);
    }
    for (const EmbeddedText& k : embedded_kernels())
        if (k.name == file) return std::string(k.text);
    fail("OpenCL kernel source '{}' is not embedded in this build", file);
}

namespace {
thread_local bool t_cache_only = false;
thread_local uint64_t t_builds = 0;

std::string program_key(std::string_view file, const std::string& options) {
    return std::string(file) + '\n' + options;
}
}  // namespace

ClContext::CacheOnlyScope::CacheOnlyScope() : previous_(t_cache_only) {
    t_cache_only = true;
}
ClContext::CacheOnlyScope::~CacheOnlyScope() {
    t_cache_only = previous_;
}

bool ClContext::cache_only() {
    return t_cache_only;
}

uint64_t ClContext::builds_on_this_thread() {
    return t_builds;
}

const std::string& ClContext::snapshot_locked(const std::string& file) {
    auto it = sources_.find(file);
    if (it == sources_.end()) it = sources_.emplace(file, kernel_source(file)).first;
    return it->second;
}

std::string ClContext::source_snapshot(const std::string& file) {
    std::lock_guard lock(mutex_);
    return snapshot_locked(file);
}

ClProgram ClContext::build_program(std::string_view file, const std::string& options,
                                   const std::string& common_text,
                                   const std::string& file_text) const {
    // Two source strings: the shared include, then the file. #line keeps the compiler's
    // messages pointing at the right file and line.
    const std::string common = "#line 1 \"common.h\"\n" + common_text;
    const std::string text = "\n#line 1 \"" + std::string(file) + "\"\n" + file_text + "\n";
    const char* strings[] = {common.c_str(), text.c_str()};
    const size_t lengths[] = {common.size(), text.size()};
    cl_int err = CL_SUCCESS;
    ClProgram prog(clCreateProgramWithSource(context(), 2, strings, lengths, &err));
    VFX_CL_ERR(err, "clCreateProgramWithSource");

    const std::string opts =
        std::string(cl_std_option(info_.id)) + " " + info_.arch_options() + " " + options;
    std::string log;
    ++t_builds;  // programs built, however many tries one takes
    int attempt = 0;
    // PoCL 3.1 (Debian 12's) loses a build now and then when several run at once, in one process
    // (the tuner compiles candidates side by side) or in several sharing its kernel cache (ctest
    // -j): a temporary file of its cache vanishes under clang ("unable to rename temporary
    // '.../kcache/tempfile_...'"; pocl/pocl#1480). Such a build is tried again; a program that
    // does not compile fails the same way every time and is reported at once.
    for (;;) {
        if (++attempt > 1) {
            prog = ClProgram(clCreateProgramWithSource(context(), 2, strings, lengths, &err));
            VFX_CL_ERR(err, "clCreateProgramWithSource");
        }
        err = clBuildProgram(prog.get(), 1, &info_.id, opts.c_str(), nullptr, nullptr);
        log.clear();
        size_t log_size = 0;
        if (clGetProgramBuildInfo(prog.get(), info_.id, CL_PROGRAM_BUILD_LOG, 0, nullptr,
                                  &log_size) == CL_SUCCESS &&
            log_size > 1) {
            log.resize(log_size);
            if (clGetProgramBuildInfo(prog.get(), info_.id, CL_PROGRAM_BUILD_LOG, log_size,
                                      log.data(), nullptr) != CL_SUCCESS)
                log.clear();
            while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
                log.pop_back();
        }
        const bool lost = err == CL_BUILD_PROGRAM_FAILURE &&
                          log.find("unable to rename temporary") != std::string::npos &&
                          log.find("tempfile_") != std::string::npos;
        if (!lost || attempt == 3) break;
        spdlog::warn(
            "building OpenCL kernel file {}: the compiler lost a temporary file of its "
            "cache (a PoCL race); building again",
            file);
    }
    if (err != CL_SUCCESS) {
        std::string msg = fmt::format(
            "building OpenCL kernel file {} (options '{}') failed: {} ({}){}\n{}", file, opts,
            cl_error_name(err), err, attempt > 1 ? fmt::format(" after {} tries", attempt) : "",
            log.empty() ? std::string("(no build log)") : log);
        // The caller says it once (vfx: GPU error, the overlay, the reload's warning): a tuner
        // trying each candidate of a broken kernel would otherwise print the log per candidate.
        spdlog::debug("{}", msg);
        throw GpuError(std::move(msg), err);
    }
    if (!log.empty()) spdlog::debug("OpenCL build log for {} ({}):\n{}", file, opts, log);
    if (const char* dir = std::getenv("VFX_DUMP_BINARIES"); dir && *dir)
        dump_binary(prog.get(), dir, file, opts);
    return prog;
}

// VFX_DUMP_BINARIES=DIR: every program built is written to DIR as the driver's binary (PTX
// on NVIDIA: `ptxas -v` and `cuobjdump -sass` show registers, spills and instructions) with its
// options in a .txt beside it. A developer's tool for kernel work; failures only log.
void ClContext::dump_binary(cl_program prog, const char* dir, std::string_view file,
                            const std::string& opts) const {
    size_t size = 0;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr) !=
            CL_SUCCESS ||
        size == 0)
        return;
    std::string bin(size, '\0');
    unsigned char* ptr = reinterpret_cast<unsigned char*>(bin.data());
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof(ptr), &ptr, nullptr) != CL_SUCCESS)
        return;
    while (!bin.empty() && bin.back() == '\0')  // NVIDIA's PTX comes NUL-terminated
        bin.pop_back();
    std::string stem(file);
    std::replace(stem.begin(), stem.end(), '/', '_');
    stem = fmt::format("{}/{}-{:016x}", dir, stem, stable_hash(opts));
    std::ofstream(stem + ".bin", std::ios::binary) << bin;
    std::ofstream(stem + ".txt") << file << "\n" << opts << "\n";
    spdlog::debug("program binary of {} ({}) written to {}.bin", file, opts, stem);
}

ClProgram ClContext::cached_program(std::string_view file, const std::string& options) {
    const std::string key = program_key(file, options);
    for (;;) {
        std::string common, text;
        uint64_t generation = 0;
        {
            std::lock_guard lock(mutex_);
            if (auto it = programs_.find(key); it != programs_.end()) return it->second;
            if (t_cache_only)
                throw ProgramNotCached(
                    fmt::format("OpenCL kernel file {} ({}) is not built yet", file, options));
            common = snapshot_locked("common.h");
            text = snapshot_locked(std::string(file));
            generation = generation_;
        }
        ClProgram prog = build_program(file, options, common, text);
        std::lock_guard lock(mutex_);
        if (generation != generation_) continue;  // a reload replaced the sources meanwhile
        return programs_.emplace(key, std::move(prog)).first->second;
    }
}

cl_program ClContext::program(std::string_view file, const std::string& options) {
    // The cache (or, after a reload, retired_) keeps its reference: the raw handle stays valid.
    return cached_program(file, options).get();
}

size_t ClContext::reload(const std::vector<std::string>& files) {
    std::lock_guard one_at_a_time(reload_mutex_);
    std::map<std::string, std::string> fresh;
    for (const std::string& f : files) {
        try {
            fresh[f] = kernel_source(f);
        } catch (const Error&) {
            // Neither in DIR nor embedded (a file of no kernel was deleted): nothing uses it.
        }
    }
    const bool all = fresh.count("common.h") > 0;
    struct Job {
        std::string key, file, options, common, text;
        ClProgram program;
    };
    std::vector<Job> jobs;
    {
        std::lock_guard lock(mutex_);
        for (const auto& [key, prog] : programs_) {
            const size_t nl = key.find('\n');
            std::string file = key.substr(0, nl);
            if (!all && fresh.count(file) == 0) continue;
            Job j;
            j.key = key;
            j.options = key.substr(nl + 1);
            j.common = all ? fresh["common.h"] : snapshot_locked("common.h");
            j.text = fresh.count(file) ? fresh[file] : snapshot_locked(file);
            j.file = std::move(file);
            jobs.push_back(std::move(j));
        }
    }
    for (Job& j : jobs)  // throws on the first failure: nothing was replaced
        j.program = build_program(j.file, j.options, j.common, j.text);
    // A file no cached program is built from (e.g. a point-wise operation, used only inside
    // generated kernels) is still compiled on its own once, so a broken one is refused here.
    size_t generated = 0;  // such files: the kernels made from them are rebuilt on next use
    for (const auto& [file, text] : fresh) {
        if (file == "common.h") continue;
        const bool built =
            std::any_of(jobs.begin(), jobs.end(), [&](const Job& j) { return j.file == file; });
        if (!built) {
            std::string common;
            {
                std::lock_guard lock(mutex_);
                common = all ? fresh["common.h"] : snapshot_locked("common.h");
            }
            (void)build_program(file, "-DWORK16=0", common, text);
            ++generated;
        }
    }

    std::lock_guard lock(mutex_);
    // Programs of those files cached since the list was taken were built from the old text:
    // retire them too (they are built again on demand, from the new snapshot).
    for (auto it = programs_.begin(); it != programs_.end();) {
        const std::string file = it->first.substr(0, it->first.find('\n'));
        if (all || fresh.count(file)) {
            retired_.push_back(std::move(it->second));
            it = programs_.erase(it);
        } else {
            ++it;
        }
    }
    for (Job& j : jobs)
        programs_[j.key] = std::move(j.program);
    for (auto& [file, text] : fresh)
        sources_[file] = std::move(text);
    ++generation_;
    spdlog::info("kernels reloaded: {} ({} programs rebuilt{})", fmt::join(files, ", "),
                 jobs.size(),
                 generated ? fmt::format("; {} file(s) used in generated kernels, which are "
                                         "rebuilt on their next use",
                                         generated)
                           : "");
    return jobs.size();
}

uint64_t ClContext::reload_count() const {
    std::lock_guard lock(mutex_);
    return generation_;
}

ClKernel ClContext::kernel(std::string_view file, const char* name, const std::string& options) {
    const ClProgram prog = cached_program(file, options);
    cl_int err = CL_SUCCESS;
    ClKernel k(clCreateKernel(prog.get(), name, &err));
    if (err != CL_SUCCESS)
        cl_fail(err, fmt::format("clCreateKernel({}, {})", file, name).c_str(), __FILE__, __LINE__);
    return k;
}

void* ClContext::extension_function(const char* name) const {
    return clGetExtensionFunctionAddressForPlatform(info_.platform, name);
}

double cl_event_ms(cl_event ev, cl_profiling_info from, cl_profiling_info to) {
    cl_ulong t0 = 0, t1 = 0;
    VFX_CL(clGetEventProfilingInfo(ev, from, sizeof(t0), &t0, nullptr));
    VFX_CL(clGetEventProfilingInfo(ev, to, sizeof(t1), &t1, nullptr));
    return t1 >= t0 ? static_cast<double>(t1 - t0) * 1e-6 : 0.0;
}

double cl_events_ms(cl_event first, cl_event last) {
    cl_ulong t0 = 0, t1 = 0;
    VFX_CL(clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof(t0), &t0, nullptr));
    VFX_CL(clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof(t1), &t1, nullptr));
    return t1 >= t0 ? static_cast<double>(t1 - t0) * 1e-6 : 0.0;
}

}  // namespace vfx
