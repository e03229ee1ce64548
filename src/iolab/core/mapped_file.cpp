#include "iolab/io/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstdint>

namespace iolab {

namespace {
int advice_of(MappedFile::Access a) {
    switch (a) {
        case MappedFile::Access::sequential: return MADV_SEQUENTIAL;
        case MappedFile::Access::random: return MADV_RANDOM;
        case MappedFile::Access::willneed: return MADV_WILLNEED;
        case MappedFile::Access::normal: break;
    }
    return MADV_NORMAL;
}
}  // namespace

MappedFile::MappedFile(const std::string& path, Access access) : fd_(sys::open(path, O_RDONLY | O_CLOEXEC)) {
    const std::uint64_t size = sys::file_size(fd_);
    if (size > SIZE_MAX) throw IoError(EFBIG, "map", path);
    map_ = sys::map(fd_, static_cast<std::size_t>(size), PROT_READ, MAP_SHARED);
    if (map_.size() > 0 && access != Access::normal) map_.advise(advice_of(access));
}

}  // namespace iolab
