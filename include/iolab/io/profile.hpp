#pragma once
// iolab::io's tuning: what `iolab tune` measured on this machine, used by read_file, copy_file and
// the buffered classes for files on the filesystem it was measured on.
//
// `iolab tune --dir FOLDER` measures, for small (under 1 MiB), medium (under 64 MiB) and large
// files in FOLDER, the fastest verified way to read a whole file and to copy one, and the
// buffer sizes of the fastest buffered reads and writes, and writes them to profile_path(). A
// profile is used only for files on the filesystem it was measured on (the same device), by the
// same version of iolab, on the same machine; otherwise the library keeps its documented
// defaults, and Profile::ignored says why.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include "iolab/io/export.hpp"

namespace iolab {

struct IOLAB_IO_API Tuned {
    std::string method;       // read: "read"; copy: "copy_file_range", "sendfile", "read/write"
    std::size_t buffer = 0;   // bytes per call (0: the whole file in one)
    double mib_s = 0;         // what it measured
};

struct IOLAB_IO_API Profile {
    std::string path;     // where it was read from
    std::string ignored;  // why it is not used, or "" when it is
    std::string version, machine, date, folder, filesystem;
    std::uint64_t device = 0;  // st_dev of the folder it was measured in
    // "read.small", "read.medium", "read.large", "copy.small", ...
    std::map<std::string, Tuned> choices;
    std::size_t read_buffer = 0, write_buffer = 0;  // for BufferedReader, BufferedWriter (0: none)

    bool usable() const { return ignored.empty() && device != 0; }
    // The choice for `kind` ("read" or "copy") and a file of `size` bytes on device `dev`, or
    // nullptr when there is none or the profile does not hold there.
    const Tuned* choice(std::string_view kind, std::uint64_t size, std::uint64_t dev) const;
    // The profile as its file holds it (key = value lines).
    std::string text() const;
};

// "small" (under 1 MiB), "medium" (under 64 MiB) or "large".
IOLAB_IO_API std::string_view size_class(std::uint64_t bytes);
// $XDG_CONFIG_HOME/iolab/profile (when absolute), else HOME/.config/iolab/profile with HOME from
// $HOME (when absolute) or the password database; "" when the user has no home folder but /.
IOLAB_IO_API std::string profile_path();
// /etc/machine-id, else the host name: what a profile's machine must equal.
IOLAB_IO_API std::string this_machine();
// The library's version ("0.1.0"): what a profile's version must equal.
IOLAB_IO_API std::string_view library_version();
// Reads a profile. A missing or unreadable file, a line it cannot read, another machine or
// another version: a Profile whose `ignored` says so (never an exception).
IOLAB_IO_API Profile load_profile(const std::string& path);
// The profile a file holding `text` at `path` gives (what load_profile does once it has read it).
IOLAB_IO_API Profile parse_profile(const std::string& text, const std::string& path);
// The process's profile: load_profile(profile_path()), once.
IOLAB_IO_API const Profile& profile();
// A profile that is never used (for code that must not be tuned, such as iolab's own measurements).
IOLAB_IO_API const Profile& no_profile();

}  // namespace iolab
