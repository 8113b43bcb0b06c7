#include "core/files.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string_view>
#include <thread>

#include "core/error.hpp"

namespace vfx {

namespace fs = std::filesystem;

namespace {

// The temporary names that may exist on disk, and the calls making one on disk now
// (CreationGate). The interrupt thread sets `interrupted`, waits until no call is making a file,
// then takes the lock for good before removing them: no name is added and no file made behind
// its back.
struct Registry {
    std::mutex mu;
    std::condition_variable cv;  // `creating` fell, or never again (interrupted)
    std::set<std::string> names;
    int creating = 0;
    bool interrupted = false;
};

Registry& registry() {
    static Registry* r = new Registry;  // never destroyed: the interrupt thread may outlive main
    return *r;
}

void remember(const fs::path& p) {
    std::lock_guard lk(registry().mu);
    registry().names.insert(p.string());
}

void forget(const fs::path& p) {
    std::lock_guard lk(registry().mu);
    registry().names.erase(p.string());
}

void remove_quietly(const fs::path& p) {
    std::error_code ec;
    fs::remove(p, ec);
}

// Long enough to tell files apart, short enough that ".NAME.vfx-PID-N.tmp" fits NAME_MAX
// (255 on every Linux file system) whatever the final name's length.
constexpr size_t kKeptNameBytes = 200;

fs::path temp_path_for(const fs::path& final_path) {
    static std::atomic<uint64_t> counter{0};
    std::string name = final_path.filename().string();
    if (name.size() > kKeptNameBytes) name.resize(kKeptNameBytes);
    return final_path.parent_path() / fmt::format(".{}.vfx-{}-{}.tmp", name, ::getpid(), counter++);
}

}  // namespace

namespace detail {

CreationGate::CreationGate() {
    Registry& r = registry();
    std::unique_lock lk(r.mu);
    // Interrupted: the process is ending; this call must not make its file.
    r.cv.wait(lk, [&] { return !r.interrupted; });
    ++r.creating;
}

CreationGate::~CreationGate() {
    const int e = errno;  // the call's, which its caller reads next
    Registry& r = registry();
    {
        std::lock_guard lk(r.mu);
        --r.creating;
    }
    r.cv.notify_all();
    errno = e;
}

}  // namespace detail

bool is_special_file(const fs::path& path) {
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    return !ec && fs::exists(st) && !fs::is_regular_file(st) && !fs::is_directory(st);
}

fs::path folder_of(const fs::path& file) {
    return file.parent_path().empty() ? fs::path(".") : file.parent_path();
}

size_t longest_name_in(const fs::path& folder) {
    const long name_max = ::pathconf(folder.c_str(), _PC_NAME_MAX);
    return name_max > 0 ? static_cast<size_t>(name_max) : 0;
}

void check_can_create(const std::string& path, const char* what) {
    const fs::path p(path);
    if (p.filename().empty()) fail("{} '{}' names a folder, not a file", what, path);
    if (is_special_file(p)) {
        if (::access(p.c_str(), W_OK) != 0)
            fail("{} '{}': not writable ({})", what, path, std::strerror(errno));
        return;
    }
    const fs::path dir = folder_of(p);
    std::error_code ec;
    const bool dir_exists = fs::exists(dir, ec);
    if (ec) fail("{} '{}': folder '{}': {}", what, path, dir.string(), ec.message());
    if (!dir_exists) fail("{} '{}': folder '{}' does not exist", what, path, dir.string());
    if (!fs::is_directory(dir, ec)) fail("{} '{}': '{}' is not a folder", what, path, dir.string());
    if (fs::is_directory(p, ec)) fail("{} '{}': a folder of that name exists", what, path);
    const size_t name_max = longest_name_in(dir);
    if (name_max > 0 && p.filename().string().size() > name_max)
        fail("{} '{}': the name is longer than the file system allows ({} bytes)", what, path,
             name_max);
    const fs::path probe = temp_path_for(p);
    remember(probe);  // an interrupt between the create and the remove removes it too
    const int fd = [&] {
        detail::CreationGate gate;
        return ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    }();
    if (fd < 0) {
        const int e = errno;
        forget(probe);
        fail("{} '{}': folder '{}' is not writable ({})", what, path, dir.string(),
             std::strerror(e));
    }
    ::close(fd);
    remove_quietly(probe);
    forget(probe);
}

std::string local_file(const std::string& input) {
    return input.rfind("file:", 0) == 0 ? input.substr(5) : input;
}

std::optional<NumberPattern> find_number_pattern(const std::string& name) {
    for (size_t i = 0; i + 1 < name.size(); ++i) {
        if (name[i] != '%') continue;
        if (name[i + 1] == '%') {  // "%%": a literal '%'
            ++i;
            continue;
        }
        size_t j = i + 1;
        while (j < name.size() && name[j] >= '0' && name[j] <= '9')
            ++j;
        if (j < name.size() && name[j] == 'd') {
            NumberPattern p;
            p.begin = i;
            p.end = j + 1;
            // The width, capped far above any name a file system takes (no overflow).
            for (size_t k = i + 1; k < j; ++k)
                p.width = std::min(p.width * 10 + (name[k] - '0'), 1 << 20);
            return p;
        }
    }
    return std::nullopt;
}

namespace {

// Literal text of a numbered name: "%%" is one '%'.
std::string unescape_percent(std::string_view text) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        out += text[i];
        if (text[i] == '%' && i + 1 < text.size() && text[i + 1] == '%') ++i;
    }
    return out;
}

}  // namespace

std::string expand_number(const std::string& name, const NumberPattern& p, int64_t n) {
    std::string digits = std::to_string(n);
    if (static_cast<int>(digits.size()) < p.width)
        digits.insert(0, static_cast<size_t>(p.width) - digits.size(), '0');
    return unescape_percent(std::string_view(name).substr(0, p.begin)) + digits +
           unescape_percent(std::string_view(name).substr(p.end));
}

namespace {

// Whether file name `name` is one a numbered name expands to: its text around the number, and
// in the number's place the digits of a number as expand_number writes them (at least the
// width, zero-padded to it, no other leading zero: %d never makes "01", %02d never "007").
bool expands_to(const std::string& pattern, const NumberPattern& p, const std::string& name) {
    const std::string head = unescape_percent(std::string_view(pattern).substr(0, p.begin));
    const std::string tail = unescape_percent(std::string_view(pattern).substr(p.end));
    if (name.size() <= head.size() + tail.size() || !name.starts_with(head) ||
        !name.ends_with(tail))
        return false;
    const std::string digits = name.substr(head.size(), name.size() - head.size() - tail.size());
    if (!std::all_of(digits.begin(), digits.end(),
                     [](unsigned char c) { return std::isdigit(c) != 0; }))
        return false;
    const size_t width = static_cast<size_t>(std::max(p.width, 1));
    return digits.size() == width || (digits.size() > width && digits[0] != '0');
}

}  // namespace

void check_distinct_files(const std::vector<std::pair<const char*, std::string>>& paths) {
    std::error_code ec;
    auto canonical = [&](const fs::path& p) {
        return fs::weakly_canonical(fs::absolute(p, ec), ec);
    };
    // The same file: equivalent where both exist, else the same absolute, normalised path. A
    // numbered name (a sequence) is the same as any file of its folder whose name it expands to,
    // and as another numbered name in that folder whose first file it would be. Special files
    // (/dev/null twice) are written in place, never replaced: no clash.
    auto same = [&](const std::string& a, const std::string& b) {
        const fs::path pa(a), pb(b);
        if (is_special_file(pa) || is_special_file(pb)) return false;
        const std::string na = pa.filename().string(), nb = pb.filename().string();
        const auto qa = find_number_pattern(na), qb = find_number_pattern(nb);
        if (qa || qb) {
            if (canonical(folder_of(pa)) != canonical(folder_of(pb))) return false;
            // Against another numbered name: the other's first file (number 1).
            const std::string fa = qa ? expand_number(na, *qa, 1) : na;
            const std::string fb = qb ? expand_number(nb, *qb, 1) : nb;
            return (qa && expands_to(na, *qa, fb)) || (qb && expands_to(nb, *qb, fa));
        }
        if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec) && !ec;
        return canonical(pa) == canonical(pb);
    };
    // Entries under one name are the files one thing reads (the parts of a concat: input, a
    // glob's matches): reading a file twice is no clash, so only entries of different names are
    // compared, group against group (a glob of 100000 frames against one output: 100000
    // comparisons, not 5 billion).
    std::vector<std::vector<size_t>> groups;
    std::vector<std::string_view> names;
    for (size_t i = 0; i < paths.size(); ++i) {
        if (paths[i].second.empty()) continue;
        const auto at = std::find(names.begin(), names.end(), std::string_view(paths[i].first));
        if (at == names.end()) {
            names.emplace_back(paths[i].first);
            groups.push_back({i});
        } else {
            groups[static_cast<size_t>(at - names.begin())].push_back(i);
        }
    }
    for (size_t g = 0; g < groups.size(); ++g)
        for (size_t h = g + 1; h < groups.size(); ++h)
            for (const size_t i : groups[g])
                for (const size_t j : groups[h])
                    if (same(paths[i].second, paths[j].second))
                        fail("{} and {} name the same file ('{}'): nothing was written",
                             paths[i].first, paths[j].first, paths[j].second);
}

TempFile::TempFile(fs::path final_path, std::string shown)
    : final_(std::move(final_path)), shown_(std::move(shown)), in_place_(is_special_file(final_)) {
    if (in_place_) {
        tmp_ = final_;
        return;
    }
    tmp_ = temp_path_for(final_);
    remember(tmp_);
}

TempFile::TempFile(TempFile&& o) noexcept
    : final_(std::move(o.final_)),
      tmp_(std::move(o.tmp_)),
      shown_(std::move(o.shown_)),
      live_(o.live_),
      published_(o.published_),
      in_place_(o.in_place_) {
    o.live_ = false;
}

TempFile::~TempFile() {
    discard();
}

void TempFile::discard() {
    if (!live_) return;
    if (!in_place_) {
        remove_quietly(tmp_);
        forget(tmp_);
    }
    live_ = false;
}

void TempFile::publish() {
    if (!live_) fail("'{}': the finished file was already published or discarded", shown_);
    if (in_place_) {
        live_ = false;
        published_ = true;
        return;
    }
    std::error_code ec;
    fs::rename(tmp_, final_, ec);
    if (ec) {
        discard();
        fail("cannot write '{}': renaming the finished file failed ({})", shown_, ec.message());
    }
    forget(tmp_);
    live_ = false;
    published_ = true;
}

void write_file(TempFile& tmp, const void* data, size_t size, const std::string& shown) {
    std::FILE* f = tmp.create([&] { return std::fopen(tmp.path().c_str(), "wb"); });
    if (!f) fail("{}: {}", shown, std::strerror(errno));
    const bool written = std::fwrite(data, 1, size, f) == size;
    const int write_errno = written ? 0 : errno;
    const bool closed = std::fclose(f) == 0;
    const int close_errno = closed ? 0 : errno;
    if (!written || !closed) {
        tmp.discard();  // (a special file written in place stays)
        fail("{}: {}", shown,
             std::strerror(write_errno   ? write_errno
                           : close_errno ? close_errno
                                         : EIO));
    }
}

TempFile write_text_file(const std::string& path, const std::string& text, const char* what) {
    TempFile tmp(path, path);
    write_file(tmp, text.data(), text.size(), fmt::format("{} '{}': cannot write", what, path));
    return tmp;
}

void publish_all(std::vector<TempFile>& files) {
    // Under the registry's lock: an interrupt either comes before the first rename (and removes
    // every temporary) or waits until the last is done. A rename that fails takes back the ones
    // this call made, so the set is not left half published (unless removing one fails, which
    // the message then says). (The names are erased from the
    // registry directly: its lock is held, which discard() would take again.)
    std::lock_guard lk(registry().mu);
    std::vector<TempFile*> renamed;
    for (TempFile& f : files) {
        if (!f.live_) continue;
        if (f.in_place_) {  // written already; nothing to rename or take back
            f.live_ = false;
            f.published_ = true;
            continue;
        }
        std::error_code ec;
        fs::rename(f.tmp_, f.final_, ec);
        if (ec) {
            std::string kept;
            for (TempFile* r : renamed) {
                std::error_code gone;
                fs::remove(r->final_, gone);
                if (gone) kept += (kept.empty() ? "" : ", ") + r->final_.string();
                r->published_ = false;
            }
            const size_t n = renamed.size();
            const std::string after =
                !kept.empty() ? "; the files renamed before it could not all be removed: " + kept
                : n > 0       ? fmt::format("; the {} file{} renamed before it {} removed", n,
                                      n == 1 ? "" : "s", n == 1 ? "was" : "were")
                              : std::string();
            fail("cannot write '{}': renaming the finished file failed ({}){}", f.final_.string(),
                 ec.message(), after);
        }
        registry().names.erase(f.tmp_.string());
        f.live_ = false;
        f.published_ = true;
        renamed.push_back(&f);
    }
}

namespace {

// The end of the process's files (an interrupt, or exit()): takes the registry's lock, lets no
// file-making call begin from here on, waits for those in progress to return, and removes every
// temporary. Returns the lock, held: no new temporary name either.
std::unique_lock<std::mutex> remove_all_temporaries() {
    Registry& r = registry();
    std::unique_lock lk(r.mu);
    r.interrupted = true;
    r.cv.wait(lk, [&] { return r.creating == 0; });
    for (const std::string& n : r.names)
        remove_quietly(n);
    r.names.clear();
    return lk;
}

}  // namespace

void install_interrupt_cleanup() {
    // A library that ends the process by exit() (LLVM's fatal errors in PoCL's compiler, say)
    // skips the destructors of the TempFiles on the stack: their files go at exit, as with an
    // interrupt: no file-making call begins from here on, those in progress are waited for
    // (other threads run until the process ends). After a normal return from main none is left.
    // An interrupt's thread, once it has the lock, keeps it and ends the process itself: this
    // waits for that end. (No thread calls exit() while it holds the lock.)
    std::atexit([] { remove_all_temporaries(); });
    ::signal(SIGPIPE, SIG_IGN);
    ::signal(SIGXFSZ, SIG_IGN);
    static sigset_t set;
    sigemptyset(&set);
    // Only signals at their default action: one the parent ignores (nohup's SIGHUP, a shell's
    // SIGINT for a background job) stays ignored, as it would without this thread, and one that
    // already has a handler keeps it. SIGPROF and SIGVTALRM, a profiler's timers, which no user
    // sends, stay as they are.
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU}) {
        struct sigaction old {};
        if (sigaction(s, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
        sigaddset(&set, s);
    }
    if (pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0) return;  // left to the defaults
    std::thread([] {
        int sig = 0;
        if (sigwait(&set, &sig) != 0) return;
        remove_all_temporaries().release();  // the lock held until the end
        static const char line[] = "vfx: interrupted\n";
        [[maybe_unused]] const ssize_t w = ::write(STDERR_FILENO, line, sizeof line - 1);
        ::signal(sig, SIG_DFL);
        sigset_t one;
        sigemptyset(&one);
        sigaddset(&one, sig);
        pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
        ::raise(sig);
        ::_exit(128 + sig);  // not reached: the default action ends the process
    }).detach();
}

}  // namespace vfx
