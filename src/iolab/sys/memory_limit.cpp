#include "iolab/sys/memory_limit.hpp"

#include <fstream>
#include <sstream>

namespace iolab::sys {

std::nullptr_t MemoryLimit::refuse(std::string* why, std::string text) {
    if (why) *why = std::move(text);
    return nullptr;
}

std::optional<std::uint64_t> memory_count(const std::string& path, const std::string& key) {
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
        std::istringstream fields(line);
        std::string k;
        std::uint64_t n = 0;
        if (fields >> k >> n && k == key) return n;
    }
    return std::nullopt;
}

}  // namespace iolab::sys
