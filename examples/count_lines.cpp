// Counts the lines of a file, as wc -l does, reading it through iolab's BufferedReader: peek()
// hands out the buffered bytes and consume() marks them read, so the bytes are scanned where
// they lie, with no call and no copy per byte.
//
//     count_lines FILE
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cstdint>

#include <fcntl.h>

#include <iolab/io.hpp>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: count_lines FILE\n");
        return 2;
    }
    try {
        const iolab::sys::Fd fd = iolab::sys::open(argv[1], O_RDONLY);
        iolab::BufferedReader in(fd, 256 * 1024);
        std::uint64_t lines = 0;
        for (auto bytes = in.peek(); !bytes.empty(); bytes = in.peek()) {
            // memchr finds each newline at vector speed; a loop of compares over std::byte does not.
            const auto* p = reinterpret_cast<const char*>(bytes.data());
            const char* const end = p + bytes.size();
            while ((p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p))))) {
                ++lines;
                ++p;
            }
            in.consume(bytes.size());
        }
        std::printf("%llu\n", static_cast<unsigned long long>(lines));
        return 0;
    } catch (const iolab::IoError& e) {
        std::fprintf(stderr, "count_lines: %s\n", e.what());
        return 1;
    }
}
