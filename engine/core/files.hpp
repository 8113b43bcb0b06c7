#pragma once
// Output files that appear whole or not at all. Each is written under a hidden temporary name
// next to its final one and renamed onto it when complete (TempFile). Every temporary name is
// registered while it may exist, so that an interrupted run (Ctrl-C, Ctrl-\, SIGTERM, `timeout`:
// see install_interrupt_cleanup) removes them before the process ends: no partial output, ever.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace vfx {

// Fails with one line ("{what} '{path}': ...") unless a new file can be made at `path`: its
// folder exists and takes a new file (tried, not guessed: root ignores permission bits but not
// read-only file systems), the name fits the file system, and no folder has that name. A special
// file there (/dev/null, a FIFO: see is_special_file) needs only to be writable: it is written
// in place.
void check_can_create(const std::string& path, const char* what);

// The folder a file name lies in ("." for a bare name, whose parent path is "").
std::filesystem::path folder_of(const std::filesystem::path& file);
// The longest file name that folder takes, in bytes (0: its file system does not say).
size_t longest_name_in(const std::filesystem::path& folder);

// Whether `path` names an existing file that is neither a regular file nor a folder (a device
// such as /dev/null, a FIFO, a socket), links followed. Output to one is written straight into
// it (TempFile), never replaced or removed, and the same-file check passes it over.
bool is_special_file(const std::filesystem::path& path);

// Fails with one line when two of the named paths (what, path; empty paths and non-files such
// as "null" or "lavfi:..." skipped by the caller) name the same file: `--output x.mp4 --report
// x.mp4`, or an output over its own input. Paths under the same `what` are not compared with
// each other (the files an input reads: `concat:a.ts|a.ts` is fine). A path with a frame number
// (%d, %04d: a sequence) names every file of its folder it expands to: `--input in_%04d.png
// --output in_0003.png`, `--input in_0001.png --output in_%04d.png`, the same pattern twice.
void check_distinct_files(const std::vector<std::pair<const char*, std::string>>& paths);

// The local path of an input as FFmpeg takes it: "file:NAME" is NAME; anything else as given.
std::string local_file(const std::string& input);

// A printf-style frame number (%d, %4d, %04d) in a file name, as FFmpeg's image sequences and vfx's
// PNG sequences take it: [begin, end) of the first one and its width.
struct NumberPattern {
    size_t begin = 0, end = 0;
    int width = 0;
};
std::optional<NumberPattern> find_number_pattern(const std::string& name);
// `name` with frame number n in the pattern's place (zero-padded to its width).
std::string expand_number(const std::string& name, const NumberPattern& p, int64_t n);

namespace detail {
// Held around each call that makes a temporary file on disk (TempFile::create). An interrupt
// waits for the calls in progress to return before it removes the temporaries, and a call that
// would begin after the interrupt did never begins (its thread waits for the process's end), so
// no temporary file appears after the removal.
class CreationGate {
public:
    CreationGate();
    ~CreationGate();
    CreationGate(const CreationGate&) = delete;
    CreationGate& operator=(const CreationGate&) = delete;
};
}  // namespace detail

// A hidden temporary file next to `final_path`, unique to this process and call, its name
// within the file system's limit. Nothing is created until the caller writes path(), through
// create(). Where `final_path` is a special file (is_special_file: `--report /dev/null`), path()
// is that file itself: written in place, never removed, and publish() has nothing to rename.
class TempFile {
public:
    // `shown`: the name errors give (the user's spelling of the output).
    TempFile(std::filesystem::path final_path, std::string shown);
    ~TempFile();  // removes the file unless published
    TempFile(TempFile&& o) noexcept;
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    TempFile& operator=(TempFile&&) = delete;

    const std::filesystem::path& path() const { return tmp_; }
    // Runs `open`, the call that makes path() on disk (fopen, an ofstream, avio_open), and
    // returns what it returns, as one step against an interrupt: the interrupt's clean-up comes
    // before the call (which then never runs) or after it returns (and removes the file).
    // A special file written in place is no temporary (nothing to remove) and may block in its
    // open (a FIFO with no reader yet): an interrupt does not wait for it.
    template <class F>
    decltype(auto) create(F&& open) const {
        if (in_place_) return std::forward<F>(open)();
        detail::CreationGate gate;
        return std::forward<F>(open)();
    }
    const std::filesystem::path& final_path() const { return final_; }
    bool published() const { return published_; }
    // Renames the finished file onto the final path. Error (the file removed) on failure.
    void publish();
    // Removes the file now (a failed write).
    void discard();

private:
    friend void publish_all(std::vector<TempFile>& files);
    std::filesystem::path final_, tmp_;
    std::string shown_;
    bool live_ = true;  // registered, and maybe on disk
    bool published_ = false;
    bool in_place_ = false;  // a special file, written directly (not registered)
};

// `size` bytes as the whole of tmp's file (made through create()). On failure the temporary is
// removed and vfx::Error thrown: "{shown}: {the reason}".
void write_file(TempFile& tmp, const void* data, size_t size, const std::string& shown);

// `text` written into a new TempFile for `path`, returned unpublished (publish() it, or
// publish_all it with the other files of a run). Throws vfx::Error "{what} '{path}': cannot
// write: ..." when the file cannot be made or written (the temporary then removed).
TempFile write_text_file(const std::string& path, const std::string& text, const char* what);

// Publishes every file of a set (a PNG sequence) with no interrupt between two renames. A failed
// rename throws after removing the files this call renamed before it (a file that had one of
// their names before the run was replaced by the rename, as any output replaces its name's file,
// and is gone too); its own temporary and those after it stay live, for their destructors.
void publish_all(std::vector<TempFile>& files);

// Blocks the signals whose default action ends the process and that a user or a supervisor sends
// (SIGINT, SIGTERM, SIGHUP, SIGQUIT; SIGALRM, SIGUSR1, SIGUSR2: `timeout -s`, a watchdog;
// SIGXCPU: `ulimit -t`), those at their default action at start, in the calling thread, and so in
// every thread it starts afterwards (a handler a library installs later for one of them is never
// called), and hands them to a thread of their own that removes every live TempFile, prints
// "vfx: interrupted" and ends the process by the same signal. exit() from anywhere (a library's
// fatal error) removes every live TempFile too. SIGPIPE and SIGXFSZ are ignored: a closed pipe
// or a file over `ulimit -f` fails the write (EPIPE, EFBIG), which the writer reports, instead
// of killing the process between a file's write and its rename. Call first thing in main(),
// before any thread exists.
void install_interrupt_cleanup();

}  // namespace vfx
