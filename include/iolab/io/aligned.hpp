#pragma once
// A heap buffer aligned for O_DIRECT.
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include "iolab/io/export.hpp"

namespace iolab {

class IOLAB_IO_API AlignedBuffer {
public:
    AlignedBuffer() = default;
    AlignedBuffer(std::size_t size, std::size_t alignment) : size_(size) {
        void* p = nullptr;
        // posix_memalign needs a power of two that is a multiple of sizeof(void*).
        std::size_t a = sizeof(void*);
        while (a < alignment) a *= 2;
        if (::posix_memalign(&p, a, size ? size : 1) != 0) throw std::bad_alloc();
        ptr_.reset(static_cast<std::byte*>(p));
    }
    std::byte* data() const { return ptr_.get(); }
    std::size_t size() const { return size_; }

private:
    struct Free {
        void operator()(std::byte* p) const { std::free(p); }
    };
    std::unique_ptr<std::byte, Free> ptr_;
    std::size_t size_ = 0;
};

inline std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

}  // namespace iolab
