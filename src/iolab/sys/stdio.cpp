#include "iolab/sys/stdio.hpp"

#include <cerrno>
#include <new>

#include "iolab/sys/error.hpp"

namespace iolab::sys {

namespace {

// The callbacks run inside C code: nothing may be thrown through them.
template <class F>
ssize_t guarded(StdioFile::Cookie* c, F&& f) {
    try {
        return f();
    } catch (const IoError& e) {
        if (!c->error) c->error = std::current_exception();
        errno = e.code();
    } catch (...) {
        if (!c->error) c->error = std::current_exception();
        errno = EIO;
    }
    return -1;
}

ssize_t cookie_read(void* cookie, char* buf, size_t n) {
    auto* c = static_cast<StdioFile::Cookie*>(cookie);
    return guarded(c, [&] { return static_cast<ssize_t>(read_some(c->fd, buf, n)); });
}

ssize_t cookie_write(void* cookie, const char* buf, size_t n) {
    auto* c = static_cast<StdioFile::Cookie*>(cookie);
    // glibc treats a short count as an error here, so write it all.
    return guarded(c, [&] {
        write_all(c->fd, buf, n);
        return static_cast<ssize_t>(n);
    });
}

int cookie_close(void* cookie) {
    auto* c = static_cast<StdioFile::Cookie*>(cookie);
    return static_cast<int>(guarded(c, [&] {
        c->fd.close();
        return ssize_t{0};
    }));
}

}  // namespace

StdioFile::StdioFile(Fd fd, const char* mode, std::size_t buffer) : cookie_(new Cookie{std::move(fd), nullptr}) {
    const cookie_io_functions_t io{cookie_read, cookie_write, nullptr, cookie_close};
    file_ = ::fopencookie(cookie_.get(), mode, io);
    if (!file_) throw std::bad_alloc();
    if (buffer > 0 && ::setvbuf(file_, nullptr, _IOFBF, buffer) != 0) {
        ::fclose(file_);
        file_ = nullptr;
        throw std::bad_alloc();
    }
}

StdioFile::~StdioFile() {
    if (file_) ::fclose(file_);
}

void StdioFile::check() {
    if (cookie_->error) std::rethrow_exception(cookie_->error);
    if (file_ && ::ferror(file_)) throw IoError(EIO, "use stdio stream on", cookie_->fd.path());
}

void StdioFile::close() {
    if (!file_) return;
    const std::string path = cookie_->fd.path();
    const int r = ::fclose(file_);
    file_ = nullptr;
    if (cookie_->error) std::rethrow_exception(cookie_->error);
    if (r != 0) throw IoError(errno, "close", path);
}

}  // namespace iolab::sys
