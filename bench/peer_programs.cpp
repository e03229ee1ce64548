// The plain C and C++ ways to do the byte-at-a-time and record workloads, as a user would write
// them, for bench/peers to time against iolab: each mode times only its I/O loop and prints
// "seconds bytes". The modes are listed below the includes.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

// Modes:
//   peer_programs getc FILE          read with getc_unlocked
//   peer_programs istream-get FILE   read with std::istream::get
//   peer_programs putc FILE BYTES    write with putc_unlocked
//   peer_programs ostream-put FILE BYTES
//   peer_programs fwrite FILE RECORD COUNT [fsync]
//   peer_programs ofstream FILE RECORD COUNT [fsync]

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void die(const char* what, const char* path) {
    std::fprintf(stderr, "peer_programs: %s %s: %s\n", what, path, std::strerror(errno));
    std::exit(1);
}

void report(Clock::time_point t0, unsigned long long bytes, unsigned long long sum) {
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    std::printf("%.9f %llu %llu\n", s, bytes, sum);
}

std::vector<char> random_bytes(std::size_t n) {
    std::vector<char> v(n);
    std::mt19937_64 rng(42);
    for (std::size_t i = 0; i + 8 <= n; i += 8) {
        const auto x = rng();
        std::memcpy(v.data() + i, &x, 8);
    }
    return v;
}

void sync_file(const char* path) {
    const int fd = ::open(path, O_RDONLY);
    if (fd < 0 || ::fsync(fd) != 0) die("fsync", path);
    ::close(fd);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: see the comment at the top of peer_programs.cpp\n");
        return 2;
    }
    const std::string mode = argv[1];
    const char* path = argv[2];
    if (mode == "getc") {
        FILE* f = std::fopen(path, "rb");
        if (!f) die("open", path);
        unsigned long long n = 0, sum = 0;
        const auto t0 = Clock::now();
        for (int c; (c = getc_unlocked(f)) != EOF; ++n) sum += static_cast<unsigned>(c);
        report(t0, n, sum);
        std::fclose(f);
    } else if (mode == "istream-get") {
        std::ifstream in(path, std::ios::binary);
        if (!in) die("open", path);
        unsigned long long n = 0, sum = 0;
        const auto t0 = Clock::now();
        for (int c; (c = in.get()) != std::char_traits<char>::eof(); ++n) sum += static_cast<unsigned>(c);
        report(t0, n, sum);
    } else if ((mode == "putc" || mode == "ostream-put") && argc >= 4) {
        const auto bytes = std::strtoull(argv[3], nullptr, 10);
        const auto data = random_bytes(bytes);
        const auto t0 = Clock::now();
        if (mode == "putc") {
            FILE* f = std::fopen(path, "wbx");
            if (!f) die("create", path);
            for (char c : data) putc_unlocked(c, f);
            if (std::fclose(f) != 0) die("write", path);
        } else {
            std::ofstream out(path, std::ios::binary);
            for (char c : data) out.put(c);
            out.close();
            if (!out) die("write", path);
        }
        report(t0, bytes, 0);
    } else if ((mode == "fwrite" || mode == "ofstream") && argc >= 5) {
        const auto record = std::strtoull(argv[3], nullptr, 10);
        const auto count = std::strtoull(argv[4], nullptr, 10);
        const bool sync = argc >= 6 && std::string(argv[5]) == "fsync";
        const auto data = random_bytes(record * count);
        const auto t0 = Clock::now();
        if (mode == "fwrite") {
            FILE* f = std::fopen(path, "wbx");
            if (!f) die("create", path);
            for (unsigned long long i = 0; i < count; ++i)
                if (std::fwrite(data.data() + i * record, 1, record, f) != record) die("write", path);
            if (std::fclose(f) != 0) die("write", path);
        } else {
            std::ofstream out(path, std::ios::binary);
            for (unsigned long long i = 0; i < count; ++i)
                out.write(data.data() + i * record, static_cast<std::streamsize>(record));
            out.close();
            if (!out) die("write", path);
        }
        if (sync) sync_file(path);
        report(t0, record * count, 0);
    } else {
        std::fprintf(stderr, "peer_programs: unknown mode or missing arguments: %s\n", mode.c_str());
        return 2;
    }
    return 0;
}
