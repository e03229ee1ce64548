#pragma once
// iolab's private scratch folder (mkdtemp, mode 0700), used through its descriptor and removed
// with everything in it, never following a link out of it. It holds a marker with a random
// identity and a lock that names it, taken before its name appears: `iolab clean` removes only a
// folder it can prove is iolab's and no live run holds.
#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace iolab {

// The files iolab keeps in each scratch folder for itself.
inline constexpr const char* kScratchMarker = ".iolab-scratch";  // "id <32 hex digits>"
inline constexpr const char* kScratchLock = "lock";              // flocked; names the same id
inline constexpr const char* kScratchKept = "kept";              // kept by --keep

class ScratchDir {
public:
    // parent empty: $TMPDIR, else /tmp. Throws IoError when the folder cannot be made.
    explicit ScratchDir(const std::string& parent = {});
    ~ScratchDir();
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;

    // The folder's name, for people and other processes (tests, --keep).
    const std::string& path() const { return path_; }
    std::string file(const std::string& name) const { return path_ + "/" + name; }
    // A file inside, named through the folder's descriptor ("/proc/self/fd/N/name"): iolab's own
    // opens, creations and removals use it, so that renaming the folder or putting a symbolic
    // link in its place mid-run cannot send them anywhere else.
    std::string at(const std::string& name) const { return base_ + "/" + name; }
    int fd() const { return dir_fd_; }
    // The folder's own name (iolab.XXXXXX).
    const std::string& name() const { return name_; }
    // A file in another scratch folder beside this one (another rank's, under MPI, in a shared
    // parent), named through the parent's descriptor. folder must be a plain name.
    std::string sibling_at(const std::string& folder, const std::string& file) const;
    // Keep the folder when the object goes (and when a signal ends iolab); a kept folder is
    // marked so (a file "kept"): never taken for a killed run's, removed only by clean --kept.
    void keep(bool k);
    // The random identity in its marker and its lock (32 hex digits).
    const std::string& id() const { return id_; }
    // The files iolab keeps in every scratch folder for itself: the lock, the marker, "kept".
    static bool bookkeeping(std::string_view name);
    // For tests: called with the folder's path after each step of making it (the folder made, the
    // lock in place, the marker written), to look at it as clean would in between.
    static void (*on_step)(const std::string& path);
    // Removes the folder now (the destructor then does nothing). Safe to call twice. What could
    // not be removed stays, with the marker and the lock, for `iolab clean`; left() says what.
    void remove();
    // After remove(): what stayed in the folder and why ("'d1' is a mount point"); empty: gone.
    const std::vector<std::string>& left() const { return left_; }
    // Whether what stayed still holds its marker and lock, for `iolab clean` to prove and take.
    bool left_proven() const { return left_proven_; }

private:
    // The lock made and taken under a name of its own, renamed into place, then the marker.
    void claim();

    std::string path_;
    std::string base_;         // "/proc/self/fd/N", or path_ where /proc is not mounted
    std::string parent_base_;  // the same for the parent
    std::string name_;         // iolab.XXXXXX
    std::string id_;
    int parent_fd_ = -1;
    int dir_fd_ = -1;
    int lock_fd_ = -1;  // the flock'ed "lock" file inside: held while the folder is in use
    bool keep_ = false;
    bool removed_ = false;
    std::vector<std::string> left_;
    bool left_proven_ = false;
};

// What a scratch folder's removal needs, held by descriptors: its parent, its name there, the
// folder itself and its identity. The name is removed only if it still is that folder.
struct ScratchTree {
    int parent_fd = -1;
    std::string name;
    int dir_fd = -1;
    dev_t dev = 0;
    ino_t ino = 0;
};
// Everything in it but the marker and the lock first; then, if nothing else stayed, those and the
// folder itself.
void remove_scratch_tree(const ScratchTree& t);
// The names in a scratch folder besides the marker, the lock and "kept", sorted; nullopt when it
// cannot be listed.
std::optional<std::vector<std::string>> entries_besides_bookkeeping(int dir_fd);
// What stays in a scratch folder besides its bookkeeping, and why, one line each.
std::vector<std::string> what_stays(int dir_fd);

// An iolab.* folder under a parent, as clean sees it.
struct ScratchFolder {
    enum class State {
        in_use,   // proven iolab's, its lock held by a live run
        stale,    // proven iolab's, its lock free: left by a run that was killed
        kept,     // proven iolab's, kept by --keep
        foreign,  // not proven iolab's: never touched (why says what is missing)
    };
    std::string path;
    State state = State::foreign;
    std::string owner;  // "pid 1234 started 2026-11-30T13:45:02Z", from the lock
    std::string why;    // for foreign: "its mode is 0755, not 0700"
    bool removed = false;
    std::vector<std::string> left;  // tried and not removed: what stayed ("'d1' is a mount point")
};
// Every folder directly under parent whose name starts with "iolab.", and what it is. With
// remove_stale (and remove_kept), the stale (and kept) ones are removed, each while its lock is
// held, and only if its name still is the folder that was proven.
std::vector<ScratchFolder> survey_scratch(const std::string& parent, bool remove_stale = false,
                                          bool remove_kept = false);
// The stale ones only (what a run names at its start).
std::vector<ScratchFolder> find_stale_scratch(const std::string& parent);

std::string default_scratch_parent();
// Removes everything inside the folder open at dir_fd, without following symbolic links.
void empty_folder(int dir_fd);
// Whether dirfd/name is another mount than dirfd (another filesystem, or a bind mount).
bool mount_point(int dirfd, const char* name);
// Removes the tree under dirfd/name without following symlinks or entering another mount. Errors are ignored:
// cleanup must never stop a program from reporting what went wrong before it.
void remove_tree_at(int dirfd, const std::string& name);

}  // namespace iolab
