#include "iolab/core/text_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "iolab/sys/error.hpp"
#include "iolab/sys/io.hpp"

namespace iolab {

std::optional<std::string> read_text_file(const std::string& path, std::string* why, std::uint64_t limit) {
    const auto fail = [&](std::string reason) -> std::optional<std::string> {
        if (why) *why = std::move(reason);
        return std::nullopt;
    };
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return fail(std::strerror(errno));
    if (!S_ISREG(st.st_mode)) return fail("not a regular file");
    if (static_cast<std::uint64_t>(st.st_size) > limit)
        return fail("larger than " + std::to_string(limit >> 20) + " MiB");
    // O_NONBLOCK: should it have become a FIFO since the check, opening it does not wait.
    const int raw = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (raw < 0) return fail(std::strerror(errno));
    std::string text;
    try {
        const sys::Fd fd(raw, path);
        struct stat now {};
        if (::fstat(fd.get(), &now) != 0 || !S_ISREG(now.st_mode)) return fail("not a regular file");
        // Room for the whole file at once: a string that doubles as it grows holds its old and
        // its new storage together.
        text.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(static_cast<std::uint64_t>(now.st_size), limit)) +
                     1);
        char buf[65536];
        while (const std::size_t n = sys::read_some(fd, buf, sizeof buf)) {
            text.append(buf, n);
            if (text.size() > limit) return fail("larger than " + std::to_string(limit >> 20) + " MiB");
        }
    } catch (const IoError& e) {
        return fail(e.what());
    }
    return text;
}

}  // namespace iolab
