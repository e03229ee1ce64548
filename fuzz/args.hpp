#pragma once
// The command-line fuzz targets' input: one argument per line, NULs dropped, at most 31.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

inline std::vector<std::string> fuzz_arguments(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> args = {"iolab"};
    std::string current;
    for (std::size_t i = 0; i < size && args.size() < 32; ++i) {
        const char c = static_cast<char>(data[i]);
        if (c == '\n') {
            args.push_back(current);
            current.clear();
        } else if (c != '\0') {
            current += c;
        }
    }
    if (!current.empty()) args.push_back(current);
    return args;
}

// argv for args (which must outlive it), ending with a null pointer.
inline std::vector<char*> fuzz_argv(std::vector<std::string>& args) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    return argv;
}
