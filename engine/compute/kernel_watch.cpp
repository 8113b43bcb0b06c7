#include "compute/kernel_watch.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace vfx {

namespace fs = std::filesystem;

KernelWatcher::KernelWatcher(std::string dir) : dir_(std::move(dir)) {
    std::error_code ec;
    if (!fs::is_directory(dir_, ec)) fail("--kernels-dir '{}' is not a directory", dir_);
    fs::directory_iterator probe(dir_, ec);
    if (ec) fail("--kernels-dir '{}' cannot be read: {}", dir_, ec.message());
    files_ = scan();
}

std::map<std::string, KernelWatcher::Stamp> KernelWatcher::scan() const {
    std::map<std::string, Stamp> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
        const fs::path& p = it->path();
        const std::string ext = p.extension().string();
        if (ext != ".cl" && ext != ".h") continue;
        std::error_code fe;
        if (!it->is_regular_file(fe)) continue;
        Stamp s;
        s.mtime = fs::last_write_time(p, fe);
        if (fe) continue;
        s.size = fs::file_size(p, fe);
        if (fe) continue;
        out.emplace(p.filename().string(), s);
    }
    return out;
}

std::vector<std::string> KernelWatcher::poll() {
    std::map<std::string, Stamp> now = scan();
    std::vector<std::string> changed;
    for (const auto& [name, stamp] : now) {
        auto it = files_.find(name);
        if (it == files_.end() || !(it->second == stamp)) changed.push_back(name);
    }
    for (const auto& [name, stamp] : files_)
        if (now.count(name) == 0) changed.push_back(name);
    std::sort(changed.begin(), changed.end());
    files_ = std::move(now);
    return changed;
}

}  // namespace vfx
