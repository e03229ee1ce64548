#pragma once
// The machine a result was measured on; it travels with every result file.
#include <cstdint>
#include <string>
#include <vector>

namespace iolab {

struct Environment {
    std::string iolab_version;
    std::string commit;
    std::string compiler;
    std::string build_type;
    std::string kernel;
    std::string cpu_model;
    unsigned cpus = 0;
    std::uint64_t memory_bytes = 0;
    std::string scratch_dir;
    std::string fs_type;        // of the scratch folder: ext4, tmpfs, ...
    std::string mount_options;  // the mount's and its filesystem's, as mount(8) shows them (discard, data=...)
    std::string device;         // the block device under it, if any
    std::string device_model;
    int rotational = -1;  // 1 spinning, 0 not, -1 unknown
    std::string date;     // ISO 8601, UTC
    // Under MPI: each rank's host, by rank (empty: one process), and the ranks' shift of inputs.
    std::vector<std::string> hosts;
    unsigned rank_shift = 0;
    // Where jvm.* cases ran: the JVM's name and version, and the worker's command line.
    std::string jvm;

    std::string one_line() const;  // for table headers (and the JVM's, where one ran)
};

Environment collect_environment(const std::string& scratch_dir);
// A mount's options (mountinfo's sixth field: rw, relatime, noatime) and then its filesystem's
// (after the separator: discard, data=ordered, barrier=0), each once: what changes the cost of I/O
// is often only in the second. The second's rw or ro (the mount's own says it for this mount), its
// folders (overlayfs) and its security labels are left out; quoted commas do not split.
std::string merge_mount_options(const std::string& mount, const std::string& super);
// "iolab 0.1.0 (commit 628f783, Release build, GNU 12.2.0)": what --version prints.
std::string version_line();

}  // namespace iolab
