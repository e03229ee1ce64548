#pragma once
// The page cache, chosen and proven: warm a file, evict it, and measure how much of it is
// resident (mincore) just before a timed iteration.
#include <string>

namespace iolab {

// Fraction (0..1) of the file's pages in the page cache; 0 for an empty file.
double resident_fraction(const std::string& path);
// Reads the whole file once.
void warm_file(const std::string& path);
// fsync, then POSIX_FADV_DONTNEED over the whole file; with drop_caches, also
// /proc/sys/vm/drop_caches (root only: throws IoError otherwise).
void evict_file(const std::string& path, bool drop_caches);

}  // namespace iolab
