// Copies a folder tree, as cp -r does for files and folders: each file with iolab::copy_file
// (reflink, else copy_file_range, else sendfile, else read/write; holes kept), never over an
// existing file. Prints how many files and bytes were copied, and by which methods.
//
//     copy_tree FROM TO        (TO must not exist)
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>

#include <iolab/io.hpp>

namespace fs = std::filesystem;

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: copy_tree FROM TO\n");
        return 2;
    }
    const fs::path from = argv[1], to = argv[2];
    try {
        if (!fs::is_directory(from)) throw std::runtime_error(from.string() + " is not a folder");
        if (fs::exists(fs::symlink_status(to))) throw std::runtime_error(to.string() + " exists");
        fs::create_directory(to);
        std::uint64_t files = 0, bytes = 0;
        std::map<std::string, int> methods;
        for (auto it = fs::recursive_directory_iterator(from); it != fs::recursive_directory_iterator(); ++it) {
            const fs::path target = to / fs::relative(it->path(), from);
            if (it->is_symlink()) {
                fs::copy_symlink(it->path(), target);
            } else if (it->is_directory()) {
                fs::create_directory(target);
            } else if (it->is_regular_file()) {
                const iolab::CopyResult r = iolab::copy_file(it->path().string(), target.string());
                ++files;
                bytes += r.bytes;
                for (const auto m : r.methods) ++methods[std::string(iolab::to_string(m))];
            }
        }
        std::printf("%llu files, %llu bytes", static_cast<unsigned long long>(files),
                    static_cast<unsigned long long>(bytes));
        for (const auto& [m, n] : methods) std::printf(", %s: %d", m.c_str(), n);
        std::printf("\n");
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "copy_tree: %s\n", e.what());
        return 1;
    }
}
