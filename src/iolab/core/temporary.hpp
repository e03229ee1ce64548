#pragma once
// The library's temporary files: beside the file they will replace (the same folder, so a rename
// can put them in its place), under a short unique name.
#include <string>

#include "iolab/io/syscalls.hpp"

namespace iolab {

// The folder a path's file is in: "." for a bare name, "/" for a file at the root.
std::string folder_of(const std::string& path);

// A new, empty temporary file "<folder of path>/.iolab-<stem>-XXXXXX" (mkostemp: mode 0600,
// close-on-exec). Its name is the descriptor's path(). Throws IoError.
sys::Fd temporary_beside(const std::string& path, const char* stem);

}  // namespace iolab
