#pragma once
// A stdio stream (FILE*) made with fopencookie(3): glibc buffers as for fopen, but the final
// read(2)/write(2) is the syscall layer's, so it is counted and can be faulted.
#include <cstdio>
#include <exception>
#include <memory>

#include "iolab/sys/io.hpp"

namespace iolab::sys {

class StdioFile {
public:
    // mode: "r" or "w". buffer: the stdio buffer size (0 keeps glibc's default).
    StdioFile(Fd fd, const char* mode, std::size_t buffer = 0);
    ~StdioFile();
    StdioFile(const StdioFile&) = delete;
    StdioFile& operator=(const StdioFile&) = delete;

    FILE* get() const { return file_; }
    // Throws the error behind a failed stdio call (ferror), if any.
    void check();
    // fclose: flushes, closes, throws on any error.
    void close();

    struct Cookie {
        Fd fd;
        std::exception_ptr error;
    };

private:
    std::unique_ptr<Cookie> cookie_;
    FILE* file_ = nullptr;
};

}  // namespace iolab::sys
