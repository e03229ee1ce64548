#include "iolab/harness/cache.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <vector>

#include <sys/stat.h>

#include "iolab/core/checksum.hpp"
#include "iolab/core/tree.hpp"
#include "iolab/sys/cgroup.hpp"
#include "iolab/sys/error.hpp"
#include "iolab/sys/io.hpp"

namespace iolab {

namespace {

bool is_folder(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// (resident pages, pages) of an open file.
std::pair<std::size_t, std::size_t> resident_pages(const sys::Fd& fd) {
    const std::uint64_t size = sys::file_size(fd);
    if (size == 0) return {0, 0};
    const sys::Mapping m = sys::map(fd, size, PROT_READ, MAP_SHARED);
    const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t pages = (size + page - 1) / page;
    std::vector<unsigned char> vec(pages);
    // mincore only inspects page tables and the cache; it moves no data.
    if (::mincore(m.data(), m.size(), vec.data()) != 0) throw IoError(errno, "mincore", fd.path());
    std::size_t resident = 0;
    for (unsigned char v : vec) resident += v & 1;
    return {resident, pages};
}

// A file of a tree, opened to read.
sys::Fd tree_member(int dir_fd, const char* name) {
    const int fd = ::openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) throw IoError(errno, "open", name);
    return sys::Fd(fd, name);
}

}  // namespace

double resident_fraction(const std::string& path) {
    std::size_t resident = 0, pages = 0;
    const auto add = [&](const sys::Fd& fd) {
        const auto [r, p] = resident_pages(fd);
        resident += r;
        pages += p;
    };
    // A tree of files (the files family): the fraction of all its files' pages, file by file.
    if (is_folder(path))
        for_each_file(AT_FDCWD, path, [&](int dir, const char* name) { add(tree_member(dir, name)); });
    else
        add(sys::open(path, O_RDONLY));
    return pages == 0 ? 0 : static_cast<double>(resident) / static_cast<double>(pages);
}

void warm_file(const std::string& path) {
    if (is_folder(path)) {  // a tree: each of its files, read whole
        std::vector<std::byte> buf(1 << 16);
        for_each_file(AT_FDCWD, path, [&](int dir, const char* name) {
            const sys::Fd fd = tree_member(dir, name);
            while (sys::read_some(fd, buf.data(), buf.size()) > 0) {
            }
        });
        return;
    }
    read_blocks(path, [](const std::byte*, std::size_t) {});
}

void evict_file(const std::string& path, bool drop_caches) {
    const auto evict = [](const sys::Fd& fd) {
        sys::fsync(fd);
        sys::fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    };
    if (is_folder(path))  // a tree: each of its files
        for_each_file(AT_FDCWD, path, [&](int dir, const char* name) { evict(tree_member(dir, name)); });
    else
        evict(sys::open(path, O_RDONLY));
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
