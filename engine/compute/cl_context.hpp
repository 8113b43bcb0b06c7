#pragma once
// The OpenCL device, context and queue, and the program cache.
#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "compute/cl_handle.hpp"
#include "compute/tuner.hpp"

namespace vfx {

using Uuid = std::array<uint8_t, 16>;

struct ClDeviceInfo {
    cl_platform_id platform = nullptr;
    cl_device_id id = nullptr;
    int index = 0;  // position in list_cl_devices(), what --cl-device takes
    std::string platform_name, name, vendor, version, driver_version;
    cl_device_type type = 0;
    uint32_t vendor_id = 0;    // PCI vendor id for GPUs (0x10DE NVIDIA)
    std::optional<Uuid> uuid;  // cl_khr_device_uuid; PoCL reports none
    std::string extensions;    // space separated
    bool host_unified_memory = false;
    uint64_t global_mem_bytes = 0;
    uint64_t local_mem_bytes = 0;  // CL_DEVICE_LOCAL_MEM_SIZE
    // CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, as the driver says it: NVIDIA's is the SMs' L1 in all
    // (4.1 MiB on an H100), not its 50 MB L2.
    uint64_t global_cache_bytes = 0;
    uint64_t max_alloc_bytes = 0;  // CL_DEVICE_MAX_MEM_ALLOC_SIZE
    uint32_t compute_units = 0;
    size_t max_work_group = 0;
    // NVIDIA's compute capability as major * 10 + minor (cl_nv_device_attribute_query; 90 on
    // an H100); 0 elsewhere.
    uint32_t nv_compute_capability = 0;
    // CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT in CL_DEVICE_SINGLE_FP_CONFIG: the device builds
    // programs with -cl-fp32-correctly-rounded-divide-sqrt (PoCL and NVIDIA do).
    bool correctly_rounded_divide_sqrt = false;

    bool has_extension(std::string_view ext) const;
    // "-cl-fp32-correctly-rounded-divide-sqrt" where the device takes it, else "" (a build
    // with the option fails there): kernels whose frames must not depend on the device's
    // division and sqrt add it.
    std::string correctly_rounded_option() const;
    // The options of a program that calls common.h's vfx_sqrt_cr: correctly_rounded_option(),
    // and on the GPUs where its Newton step alone was checked on every float of its domain
    // (NVIDIA sm_90) -DVFX_SQRT_STEP=1, which drops sqrt()'s range check and branch.
    std::string sqrt_cr_options() const;
    // What every program of the device is built with besides its own options: on NVIDIA
    // "-DVFX_NV_SM=<compute capability>" (90 on an H100), so that common.h uses inline PTX only
    // where the GPU has the instruction (cvt.pack.sat: sm_72 and up); "" elsewhere.
    std::string arch_options() const;
    std::string type_name() const;  // "GPU", "CPU", ...
};

// Every device of every platform; empty when no ICD is installed.
std::vector<ClDeviceInfo> list_cl_devices();

// Bytes of the scratch through which ClContext::evict_caches copies (its first half to its
// second) to empty a device's caches: on a GPU or
// accelerator max(2 x global_cache_bytes, 128 MiB) (drivers report the L1, not the L2 or an
// AMD Infinity Cache: 128 MiB covers the H100's and H200's 50 MB L2 and the 96-128 MB of
// other GPUs' last levels), at most an eighth of the device's memory and its largest
// allocation, in whole 64-byte units; 0 (no eviction) on a CPU device, whose caches a frame
// overflows anyway, or where that comes to less than 1 MiB.
size_t eviction_bytes(const ClDeviceInfo& dev);

// Thrown by ClContext::program()/kernel() for a program that is not built yet while a
// ClContext::CacheOnlyScope is alive on the calling thread (no build was started).
class ProgramNotCached : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class ClContext {
public:
    // Creates the context and one in-order queue with profiling enabled on `dev`.
    explicit ClContext(const ClDeviceInfo& dev);
    ClContext(const ClContext&) = delete;
    ClContext& operator=(const ClContext&) = delete;

    cl_context context() const { return context_.get(); }
    cl_device_id device() const { return info_.id; }
    cl_command_queue queue() const { return queue_.get(); }
    const ClDeviceInfo& info() const { return info_; }

    // The program built from the shared include (kernels/common.h) and the embedded kernel
    // file `file` (e.g. "convert.cl"), with `options` (e.g. "-DWORK16=1"). Built once per
    // (file, options) and cached. A build failure throws GpuError whose message names the file
    // and carries the compiler's full log; the log is also written to the error log.
    //
    // Threading: program(), kernel() and reload() may be called from any thread. A build runs
    // outside the cache's lock, so one thread's build never blocks another thread's cache hit
    // (two threads building the same program both build; the first one cached wins). Kernel
    // objects are never shared: each kernel() call makes a new one for its caller
    // (clSetKernelArg on one kernel object from two threads is not safe).
    // Sources: each file's text is read once, on its first build (DIR/file or the embedded
    // one), and that snapshot is replaced only by a successful reload(); so a file that is
    // broken on disk never reaches a build other than reload()'s. A program stays valid until
    // the context is destroyed, also after reload() replaced it in the cache.
    cl_program program(std::string_view file, const std::string& options = "");
    ClKernel kernel(std::string_view file, const char* name, const std::string& options = "");

    // Another queue on this context and device (in-order unless `props` says otherwise).
    ClQueue make_queue(cl_command_queue_properties props = 0) const;
    // clCreateBuffer; throws GpuError on failure.
    ClMem buffer(cl_mem_flags flags, size_t size, void* host = nullptr) const;

    // Cache eviction for the tuner's measuring runs (compute/tuner.hpp), so that each reads its
    // frame from DRAM as the bench's rotating buffers make it do.
    // evict_caches() enqueues on `queue`, after `wait`, a copy from one half of a scratch buffer
    // of eviction_bytes(info()) bytes to the other and returns the copy's event: the command to
    // be measured must wait on it (the queue may be out of order). A null event where nothing
    // was enqueued: no eviction on this device, or eviction turned off by an earlier failure.
    // Best effort, it never throws: the first failure to allocate or copy through the scratch
    // (a device short of memory: allocation is often lazy, so the copy is where it shows) is
    // one warning in the log and turns eviction off for this context, and measuring goes on
    // without it.
    // Any thread may call it: the scratch is made once under a lock and each copy holds its own
    // reference to it; copies from two queues go through it unordered (what it holds is never
    // used). The scratch lives until release_eviction_scratch(), which TunedKernel calls when it
    // has measured, so the memory is held only while a kernel is measured (a copy still running
    // keeps it alive: OpenCL frees a buffer after the commands that use it).
    ClEvent evict_caches(cl_command_queue queue, std::span<const cl_event> wait = {});
    void release_eviction_scratch();
    // Evictions enqueued so far (tests).
    uint64_t evictions() const { return evictions_.load(); }
    // Tests: evict through a scratch of `bytes` (rounded up to 128) on any device (0:
    // eviction_bytes(info()) again), and turn eviction back on after a failure.
    void set_eviction_bytes(size_t bytes);

    // The auto-tuner (compute/tuner.hpp), its disk cache keyed by this device. Its mode starts
    // from $VFX_TUNE ("cached", "retune" or "fixed"; default cached).
    Tuner& tuner() { return tuner_; }

    // Extension entry point for this device's platform; nullptr when absent.
    void* extension_function(const char* name) const;

    // Source text of a kernel file: the embedded one, or DIR/file when set_kernel_dir(DIR) was
    // called and that file exists there (hot reload, later).
    std::string kernel_source(std::string_view file) const;
    // Call before the first build (kernel hot reload: `vfx play --kernels-dir DIR`).
    void set_kernel_dir(std::string dir) { kernel_dir_ = std::move(dir); }
    // Registers generated source text under `name` (e.g. a fused point-wise kernel), which
    // program()/kernel() then build like a kernel file. Thread-safe; re-registering a name
    // with other text throws (names are derived from the text).
    void add_source(const std::string& name, std::string text);
    const std::string& kernel_dir() const { return kernel_dir_; }
    // The text of `file` that programs are built from: read once, then replaced only by a
    // successful reload() (what code generated from kernel files, compute/pointwise.hpp, uses,
    // so a broken file on disk never reaches a build outside reload()).
    std::string source_snapshot(const std::string& file);

    // Hot reload: reads `files` again (file names as in program(); "common.h" stands for every
    // program) and builds every cached program that uses one of them, outside the cache. When
    // all build, replaces those programs and the files' source snapshots at once and returns
    // how many programs were rebuilt (files not in use are only re-read). When one fails,
    // throws GpuError (file, options and the compiler's log) and changes nothing: the cached
    // programs, and so every kernel made from them, stay the last good ones. One reload at a
    // time (a second caller waits).
    size_t reload(const std::vector<std::string>& files);
    // Successful reload() calls so far.
    uint64_t reload_count() const;

    // While one is alive on a thread, program() and kernel() calls of that thread throw
    // ProgramNotCached instead of building a program that is not cached (how the render thread
    // checks that a chain can run without waiting for a build). Nests.
    class CacheOnlyScope {
    public:
        CacheOnlyScope();
        ~CacheOnlyScope();
        CacheOnlyScope(const CacheOnlyScope&) = delete;
        CacheOnlyScope& operator=(const CacheOnlyScope&) = delete;

    private:
        bool previous_;
    };
    // True while a CacheOnlyScope is alive on the calling thread.
    static bool cache_only();
    // Programs the calling thread has compiled so far (any context), for tests.
    static uint64_t builds_on_this_thread();

private:
    ClProgram cached_program(std::string_view file, const std::string& options);
    ClProgram build_program(std::string_view file, const std::string& options,
                            const std::string& common_text, const std::string& file_text) const;
    void dump_binary(cl_program prog, const char* dir, std::string_view file,
                     const std::string& opts) const;
    const std::string& snapshot_locked(const std::string& file);

    ClDeviceInfo info_;
    ClContextHandle context_;
    ClQueue queue_;
    std::string kernel_dir_;
    mutable std::mutex mutex_;  // guards everything below
    std::map<std::string, ClProgram> programs_;
    mutable std::mutex generated_mutex_;
    std::map<std::string, std::string, std::less<>> generated_;
    Tuner tuner_;
    std::map<std::string, std::string> sources_;  // source snapshots by file name
    uint64_t generation_ = 0;                     // bumped by every successful reload()
    std::vector<ClProgram> retired_;              // replaced by reload(), kept valid
    std::mutex reload_mutex_;                     // one reload() at a time
    std::mutex scratch_mutex_;                    // guards the three below
    ClMem scratch_;                               // evict_caches()'s, made on first use
    size_t eviction_bytes_ = 0;                   // eviction_bytes(info_) unless a test set it
    bool eviction_off_ = false;                   // after a failure
    std::atomic<uint64_t> evictions_{0};
};

// Milliseconds between two profiling points of a completed event (CL_PROFILING_COMMAND_*).
double cl_event_ms(cl_event ev, cl_profiling_info from = CL_PROFILING_COMMAND_START,
                   cl_profiling_info to = CL_PROFILING_COMMAND_END);
// Milliseconds from the start of `first` to the end of `last` (both completed).
double cl_events_ms(cl_event first, cl_event last);

}  // namespace vfx
