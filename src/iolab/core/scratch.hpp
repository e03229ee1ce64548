#pragma once
// iolab's private scratch folder: created with mkdtemp (mode 0700) under a chosen parent and
// removed, with everything in it, when the object goes away. Removal works relative to the
// folder's own descriptor and never follows a symbolic link, so it cannot reach outside.
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

    const std::string& path() const { return path_; }
    std::string file(const std::string& name) const { return path_ + "/" + name; }
    // Keep the folder when the object goes (and when a signal ends iolab).
    void keep(bool k);
    // Removes the folder now (the destructor then does nothing). Safe to call twice.
    void remove();

private:
    std::string path_;
    int lock_fd_ = -1;  // the flock'ed "lock" file inside: held while the folder is in use
    bool keep_ = false;
    bool removed_ = false;
};

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
// Removes the tree under dirfd/name without following symlinks. Errors are ignored:
// cleanup must never stop a program from reporting what went wrong before it.
void remove_tree_at(int dirfd, const std::string& name);

}  // namespace iolab
