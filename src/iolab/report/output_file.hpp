#pragma once
// Result files the user names: never written over unless forced, and written atomically
// (a temporary file in the same folder, fsynced, then renamed into place), so a crash never
// leaves a truncated result.
#include <string>
#include <string_view>
#include <vector>

#include "iolab/sys/error.hpp"

namespace iolab {

// Checks before a run starts: the folder exists and is a folder, and the file does not exist
// unless force. Throws InputError with a one-line message.
void check_output_path(const std::string& path, bool force, const char* option);

// The result files of one run, checked together before it starts: each as check_output_path;
// what exists there may be replaced only if it is a regular file or a symbolic link (replaced by
// a regular file), and only with force — never a folder, a device, a FIFO or a socket; no two
// results and no result and an input (a file the run or command reads) may be the same file (same
// name or same inode).
struct ResultPath {
    std::string option;  // "--json"
    std::string path;
};
void check_output_paths(const std::vector<ResultPath>& results, bool force,
                        const std::vector<std::string>& inputs = {});
// Throws IoError. Without force, an existing file at path is an error (EEXIST) and is left as is;
// with force, a regular file is replaced and keeps its mode (a new file gets 0666 less the
// umask), and anything but a regular file or a symbolic link is refused.
void write_file_atomically(const std::string& path, std::string_view content, bool force);

}  // namespace iolab
