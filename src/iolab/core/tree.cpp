#include "iolab/core/tree.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "iolab/core/aligned.hpp"
#include "iolab/core/checksum.hpp"
#include "iolab/core/scratch.hpp"
#include "iolab/sys/error.hpp"
#include "iolab/sys/io.hpp"

namespace iolab {

namespace {

// A folder below dir_fd, opened to work in.
sys::Fd open_folder(int dir_fd, const std::string& name) {
    const int fd = ::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) throw IoError(errno, "open the folder", name);
    return sys::Fd(fd, name);
}

void make_folder(int dir_fd, const std::string& name) {
    if (::mkdirat(dir_fd, name.c_str(), 0700) != 0) throw IoError(errno, "make the folder", name);
}

}  // namespace

std::string tree_folder(unsigned folder) { return fmt::format("d{}", folder); }

std::string tree_file(const TreeShape& t, std::uint64_t index) {
    return fmt::format("d{}/f{}", index % t.folders, index);
}

std::uint64_t tree_index(const char* name) {
    if (name[0] != 'f' || name[1] == '\0' || (name[1] == '0' && name[2] != '\0')) return UINT64_MAX;
    const std::string_view digits(name + 1);
    std::uint64_t i = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), i);
    return ec == std::errc() && end == digits.data() + digits.size() && i != UINT64_MAX ? i : UINT64_MAX;
}

std::uint64_t tree_term(std::uint64_t index, std::uint64_t checksum) {
    return splitmix64(checksum ^ splitmix64(index + 0x7ee5));
}

TreeSum expected_tree(const TreeShape& t, const Records& content) {
    TreeSum s;
    for (std::uint64_t i = 0; i < t.files; ++i) s.sum += tree_term(i, checksum(content.at(i)));
    s.files = t.files;
    s.bytes = t.bytes();
    return s;
}

TreeSum lay_out_tree(int dir_fd, const std::string& root, const TreeShape& t, const Records& content) {
    make_folder(dir_fd, root);
    try {
        const sys::Fd top = open_folder(dir_fd, root);
        std::vector<sys::Fd> folders;  // D descriptors, not N
        for (unsigned f = 0; f < t.folders; ++f) {
            make_folder(top.get(), tree_folder(f));
            folders.push_back(open_folder(top.get(), tree_folder(f)));
        }
        TreeSum s;
        for (std::uint64_t i = 0; i < t.files; ++i) {
            const std::span<const std::byte> bytes = content.at(i);
            const std::string name = fmt::format("f{}", i);
            const int fd = ::openat(folders[i % t.folders].get(), name.c_str(),
                                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
            if (fd < 0) throw IoError(errno, "create", root + "/" + tree_file(t, i));
            sys::Fd out(fd, root + "/" + tree_file(t, i));
            sys::write_all(out, bytes.data(), bytes.size());
            out.close();
            s.sum += tree_term(i, checksum(bytes));
        }
        s.files = t.files;
        s.bytes = t.bytes();
        return s;
    } catch (...) {
        remove_tree(dir_fd, root);
        throw;
    }
}

TreeSum digest_tree(int dir_fd, const std::string& root, const TreeShape& t, std::uint64_t* entries) {
    TreeSum s;
    const sys::Fd top = open_folder(dir_fd, root);
    AlignedBuffer buf(std::max<std::uint64_t>(t.file_size, 1) + 1, 4096);
    std::uint64_t found = 0;
    for (unsigned f = 0; f < t.folders; ++f) {
        const sys::Fd folder = open_folder(top.get(), tree_folder(f));
        for (std::uint64_t i = f; i < t.files; i += t.folders) {
            const std::string name = fmt::format("f{}", i);
            const int fd = ::openat(folder.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
            if (fd < 0) {
                if (errno == ENOENT) continue;  // missing: left out of the sum
                throw IoError(errno, "open", root + "/" + tree_file(t, i));
            }
            const sys::Fd in(fd, root + "/" + tree_file(t, i));
            // One byte more than the file should hold: a longer file shows.
            const std::size_t n = sys::read_full(in, buf.data(), buf.size());
            s.sum += tree_term(i, checksum(std::span<const std::byte>(buf.data(), n)));
            ++s.files;
            s.bytes += n;
        }
    }
    if (entries) {
        for_each_file(dir_fd, root, [&](int, const char*) { ++found; });
        *entries = found;
    }
    return s;
}

void remove_tree(int dir_fd, const std::string& root) { remove_tree_at(dir_fd, root); }

void for_each_file(int dir_fd, const std::string& root, const std::function<void(int, const char*)>& f) {
    const int fd = ::openat(dir_fd, root.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) throw IoError(errno, "open the folder", root);
    DIR* d = ::fdopendir(fd);
    if (!d) {
        ::close(fd);
        throw IoError(errno, "list the folder", root);
    }
    // Closed however this ends (f may throw: a stop, a failed read).
    const std::unique_ptr<DIR, int (*)(DIR*)> closing(d, ::closedir);
    std::vector<std::string> folders;
    while (const dirent* e = ::readdir(d)) {
        const std::string_view n = e->d_name;
        if (n == "." || n == "..") continue;
        if (e->d_type == DT_DIR) {
            folders.emplace_back(n);
        } else if (e->d_type == DT_REG) {
            f(::dirfd(d), e->d_name);
        } else {
            struct stat st {};
            if (::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
                folders.emplace_back(n);
            else if (S_ISREG(st.st_mode))
                f(::dirfd(d), e->d_name);
        }
    }
    // Subfolders (a tree has D of them, not N) after the listing, each through this folder.
    for (const std::string& sub : folders) for_each_file(::dirfd(d), sub, f);
}

}  // namespace iolab
