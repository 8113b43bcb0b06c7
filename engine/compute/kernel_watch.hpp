#pragma once
// Kernel hot reload: watches a directory of kernel overrides (`vfx play --kernels-dir DIR`,
// see ClContext::set_kernel_dir) by polling modification times, sizes and the file list; no
// file-system notification API (no dependency, works on every file system).
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace vfx {

class KernelWatcher {
public:
    // Takes the directory's current state as the baseline. Throws vfx::Error naming `dir` when
    // it is not a readable directory.
    explicit KernelWatcher(std::string dir);

    // The kernel files (`*.cl`, `*.h`; names without the directory) that appeared, disappeared
    // or changed (modification time or size) since the last call, sorted. A file being
    // written shows up again once it is complete. Never throws: an unreadable directory
    // reports nothing.
    std::vector<std::string> poll();

    const std::string& dir() const { return dir_; }

private:
    struct Stamp {
        std::filesystem::file_time_type mtime;
        uintmax_t size = 0;
        bool operator==(const Stamp&) const = default;
    };
    std::map<std::string, Stamp> scan() const;

    std::string dir_;
    std::map<std::string, Stamp> files_;
};

}  // namespace vfx
