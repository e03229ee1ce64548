#pragma once
// iolab's private scratch folder (mkdtemp, mode 0700), used through its descriptor and removed
// with everything in it, never following a link out of it.
#include <sys/types.h>

#include <string>
#include <vector>

namespace iolab {

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
    // Keep the folder when the object goes (and when a signal ends iolab).
    void keep(bool k);
    // Removes the folder now (the destructor then does nothing). Safe to call twice.
    void remove();

private:
    std::string path_;
    std::string base_;         // "/proc/self/fd/N", or path_ where /proc is not mounted
    std::string parent_base_;  // the same for the parent
    std::string name_;         // iolab.XXXXXX
    int parent_fd_ = -1;
    int dir_fd_ = -1;
    int lock_fd_ = -1;  // the flock'ed "lock" file inside: held while the folder is in use
    bool keep_ = false;
    bool removed_ = false;
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
void remove_scratch_tree(const ScratchTree& t);

// A scratch folder left by a run that was killed (SIGKILL, a crash, a power cut): an iolab.*
// folder whose lock nobody holds.
struct StaleScratch {
    std::string path;
    std::string owner;  // "pid 1234 started 2026-11-30T13:45:02Z", or "" when there is no lock file
};
// The stale scratch folders directly under parent (only iolab's: named iolab.XXXXXX, a folder,
// owned by this user, whose lock file is not held; one without a lock file only if it is more
// than a minute old, so that a run still creating its folder is never taken for stale).
std::vector<StaleScratch> find_stale_scratch(const std::string& parent);

std::string default_scratch_parent();
// Removes everything inside the folder open at dir_fd, without following symbolic links.
void empty_folder(int dir_fd);
// Removes the tree under dirfd/name without following symlinks. Errors are ignored:
// cleanup must never stop a program from reporting what went wrong before it.
void remove_tree_at(int dirfd, const std::string& name);

}  // namespace iolab
