#pragma once
// A tree of many small files (the files family): N files of S bytes spread over D folders, file i
// in folder i % D as "d<i % D>/f<i>", its bytes record i of Records(data, S, N) (a bounded pool
// made before any run: handing out a file's bytes costs an addition, not their generation). Its digest is an
// order-free sum of a term per file that mixes the file's index with its content's checksum, so a
// file missing, repeated, or two files swapped change it, whatever order they were read in. Made,
// read back and removed only through descriptors (openat, mkdirat, unlinkat) below a folder held
// by one (the scratch folder's), holding one file's bytes at a time: memory does not grow with N.
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "iolab/core/records.hpp"
#include "iolab/core/workload.hpp"

namespace iolab {

struct TreeShape {
    std::uint64_t files = 0;
    std::uint64_t file_size = 0;
    unsigned folders = 1;
    std::uint64_t bytes() const { return files * file_size; }
};

// The tree a case's values give: its files, their size, its folders (a Workload's, a Job's).
inline TreeShape tree_shape(const CaseValues& v) {
    const TreeValues& t = v.tree_of();
    return {t.files, t.file_size, t.folders};
}

// "d3": folder f; "d3/f123": file i's path from the tree's root.
std::string tree_folder(unsigned folder);
std::string tree_file(const TreeShape& t, std::uint64_t index);
// The file's index from its name ("f123" -> 123), or UINT64_MAX for any other name.
std::uint64_t tree_index(const char* name);

struct TreeSum {
    std::uint64_t sum = 0;
    std::uint64_t files = 0;
    std::uint64_t bytes = 0;
    bool operator==(const TreeSum&) const = default;
};

// One file's term of the sum.
std::uint64_t tree_term(std::uint64_t index, std::uint64_t checksum);

// The digest of files read in any order, by any number of threads at once.
class TreeDigest {
public:
    void add(std::uint64_t index, std::uint64_t checksum, std::uint64_t bytes) {
        sum_.fetch_add(tree_term(index, checksum), std::memory_order_relaxed);
        files_.fetch_add(1, std::memory_order_relaxed);
        bytes_.fetch_add(bytes, std::memory_order_relaxed);
    }
    TreeSum sum() const { return {sum_.load(), files_.load(), bytes_.load()}; }
    void reset() {
        sum_ = 0;
        files_ = 0;
        bytes_ = 0;
    }

private:
    std::atomic<std::uint64_t> sum_{0}, files_{0}, bytes_{0};
};

// The tree's digest from its files' bytes alone (no files).
TreeSum expected_tree(const TreeShape& t, const Records& content);
// Makes the tree as `root` below the folder dir_fd holds; returns its digest. Whatever it made is
// removed when it fails or is stopped.
TreeSum lay_out_tree(int dir_fd, const std::string& root, const TreeShape& t, const Records& content);
// The digest of the tree found at `root` below dir_fd, reading each file of the shape by name (a
// missing one is left out of the sum). `entries` gets the number of entries its folders hold, so
// that a file too many shows.
TreeSum digest_tree(int dir_fd, const std::string& root, const TreeShape& t, std::uint64_t* entries = nullptr);
// Removes `root` below dir_fd and everything in it (nothing when it does not exist).
void remove_tree(int dir_fd, const std::string& root);
// Calls f(folder descriptor, name) for each regular file below `root`.
void for_each_file(int dir_fd, const std::string& root, const std::function<void(int, const char*)>& f);

}  // namespace iolab
