#pragma once
// Result files the user names: never written over unless forced, and written atomically
// (a temporary file in the same folder, fsynced, then renamed into place), so a crash never
// leaves a truncated result.
#include <string>
#include <string_view>

namespace iolab {

// Checks before a run starts: the folder exists and is a folder, and the file does not exist
// unless force. Throws std::invalid_argument with a one-line message.
void check_output_path(const std::string& path, bool force, const char* option);
// Throws IoError. Without force, an existing file at path is an error (EEXIST) and is left as is.
void write_file_atomically(const std::string& path, std::string_view content, bool force);

}  // namespace iolab
