#pragma once
// What the two ways of holding the page cache to a budget share: a memory cgroup of the budget
// (cgroup.hpp) and, where none can be made, memory locked away from the cache (reserve.hpp).
// Each is made by a factory that gives nullptr and says why not, holds its memory while it
// lives, gives it back when it goes, and is never copied; each reads the kernel's memory counts
// from a file of "key number" lines.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace iolab::sys {

class MemoryLimit {
public:
    MemoryLimit(const MemoryLimit&) = delete;
    MemoryLimit& operator=(const MemoryLimit&) = delete;

protected:
    MemoryLimit() = default;
    ~MemoryLimit() = default;
    // A factory's refusal: text in *why (when asked for), and no object.
    static std::nullptr_t refuse(std::string* why, std::string text);
};

// The number after key in a file of "key number [unit]" lines (/proc/meminfo, memory.stat), or
// nullopt when no line has it.
std::optional<std::uint64_t> memory_count(const std::string& path, const std::string& key);

}  // namespace iolab::sys
