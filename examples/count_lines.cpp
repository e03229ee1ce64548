// Counts the lines of a file, as wc -l does, reading it through iolab's BufferedReader (the
// count itself is in count_lines.hpp).
//
//     count_lines FILE
#include <cstdio>

#include "count_lines.hpp"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: count_lines FILE\n");
        return 2;
    }
    try {
        std::printf("%llu\n", static_cast<unsigned long long>(count_lines(argv[1])));
        return 0;
    } catch (const iolab::IoError& e) {
        std::fprintf(stderr, "count_lines: %s\n", e.what());
        return 1;
    }
}
