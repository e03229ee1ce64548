#include "iolab/harness/cache.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <vector>

#include "iolab/core/checksum.hpp"
#include "iolab/sys/cgroup.hpp"
#include "iolab/sys/error.hpp"
#include "iolab/sys/io.hpp"

namespace iolab {

double resident_fraction(const std::string& path) {
    const sys::Fd fd = sys::open(path, O_RDONLY);
    const std::uint64_t size = sys::file_size(fd);
    if (size == 0) return 0;
    const sys::Mapping m = sys::map(fd, size, PROT_READ, MAP_SHARED);
    const long page = ::sysconf(_SC_PAGESIZE);
    const std::size_t pages = (size + static_cast<std::uint64_t>(page) - 1) / static_cast<std::uint64_t>(page);
    std::vector<unsigned char> vec(pages);
    // mincore only inspects page tables and the cache; it moves no data.
    if (::mincore(m.data(), m.size(), vec.data()) != 0) throw IoError(errno, "mincore", path);
    std::size_t resident = 0;
    for (unsigned char v : vec) resident += v & 1;
    return static_cast<double>(resident) / static_cast<double>(pages);
}

void warm_file(const std::string& path) {
    read_blocks(path, [](const std::byte*, std::size_t) {});
}

void evict_file(const std::string& path, bool drop_caches) {
    {
        const sys::Fd fd = sys::open(path, O_RDONLY);
        sys::fsync(fd);
        sys::fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    }
    if (drop_caches) {
        ::sync();
        const sys::Fd fd = sys::open("/proc/sys/vm/drop_caches", O_WRONLY);
        sys::write_all(fd, "1", 1);
    }
}

namespace {
sys::MemoryCgroup* budget_cgroup = nullptr;
std::uint64_t budget_bytes = 0, room_bytes = 0;
}  // namespace

void set_cache_budget(sys::MemoryCgroup* cgroup, std::uint64_t budget, std::uint64_t room) {
    budget_cgroup = cgroup;
    budget_bytes = budget;
    room_bytes = room;
}

void hold_cache_budget() {
    if (budget_cgroup && !budget_cgroup->hold_cache_to(budget_bytes + room_bytes))
        throw std::runtime_error("the memory cgroup refused the page-cache budget");
}

}  // namespace iolab
