// The library iolab::io against the usual ways, as programs that bench/library.py times side by
// side: line counting (peek/consume, getc_unlocked, std::getline), whole-file reads (read_file),
// copies (copy_file). Each prints what it computed, so the script can check every run.
//
//     iolab_bench_library count-peek|count-getc|count-getline FILE     -> lines
//     iolab_bench_library read-file FILE                               -> bytes
//     iolab_bench_library copy-file SRC DST                            -> bytes
//
// and the bounds those ratios cannot pass on a machine, measured the same way:
//
//     iolab_bench_library read-only FILE      read(2) through 256 KiB, bytes untouched -> bytes
//     iolab_bench_library fresh-memory FILE   the file's size in new anonymous memory, each
//                                             page faulted in (MAP_POPULATE), nothing read -> bytes
//     iolab_bench_library map-file FILE       MappedFile, one byte of each page read -> bytes
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "count_lines.hpp"  // count-peek: the example examples/count_lines.cpp, as users see it
#include "iolab/io.hpp"

namespace {

unsigned long long count_getc(const char* path) {
    std::FILE* f = std::fopen(path, "r");
    if (!f) return 0;
    unsigned long long lines = 0;
    for (int c; (c = getc_unlocked(f)) != EOF;) lines += c == '\n';
    std::fclose(f);
    return lines;
}

unsigned long long count_getline(const char* path) {
    std::ifstream in(path);
    unsigned long long lines = 0;
    for (std::string line; std::getline(in, line);) ++lines;
    return lines;
}

// Any reader that brings the bytes in through read(2) pays at least this.
unsigned long long read_only(const char* path) {
    const iolab::sys::Fd fd = iolab::sys::open(path, O_RDONLY);
    iolab::AlignedBuffer buf(256 * 1024, 4096);
    unsigned long long bytes = 0;
    while (const std::size_t n = iolab::sys::read_some(fd, buf.data(), buf.size())) bytes += n;
    return bytes;
}

// Any copy of the file into memory the process did not have pays at least this: the kernel's
// page faults and zeroing, before a byte is copied.
unsigned long long fresh_memory(const char* path) {
    const iolab::sys::Fd fd = iolab::sys::open(path, O_RDONLY);
    const std::size_t size = iolab::sys::file_size(fd);
    void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) return 0;
    ::munmap(p, size);
    return size;
}

// The file's cached pages mapped, not copied; every page touched, so each is in the process.
unsigned long long map_file(const char* path) {
    const iolab::MappedFile file(path, iolab::MappedFile::Access::willneed);
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    unsigned sum = 0;
    for (std::size_t i = 0; i < file.size(); i += page) sum += static_cast<unsigned>(file.bytes()[i]);
    if (sum == 1) std::fputc(' ', stderr);  // keeps the loop
    return file.size();
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) return 2;
    const std::string mode = argv[1];
    try {
        if (mode == "count-peek")
            std::printf("%llu\n", static_cast<unsigned long long>(count_lines(argv[2])));
        else if (mode == "count-getc")
            std::printf("%llu\n", count_getc(argv[2]));
        else if (mode == "count-getline")
            std::printf("%llu\n", count_getline(argv[2]));
        else if (mode == "read-file")
            std::printf("%zu\n", iolab::read_file(argv[2]).size());
        else if (mode == "read-only")
            std::printf("%llu\n", read_only(argv[2]));
        else if (mode == "fresh-memory")
            std::printf("%llu\n", fresh_memory(argv[2]));
        else if (mode == "map-file")
            std::printf("%llu\n", map_file(argv[2]));
        else if (mode == "copy-file" && argc == 4)
            std::printf("%llu\n", static_cast<unsigned long long>(iolab::copy_file(argv[2], argv[3]).bytes));
        else
            return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
