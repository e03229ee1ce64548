#pragma once
// Shared by the files family's strategies (core/tree.hpp has the tree's layout): its folders
// opened or made, file names without allocation, each file read and hashed into the job's digest,
// and a pool of threads taking files from a shared counter.
#include <fcntl.h>

#include <charconv>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "iolab/core/aligned.hpp"
#include "iolab/core/checksum.hpp"
#include "iolab/strategies/common.hpp"
#include "iolab/strategies/strategy.hpp"
#include "iolab/sys/io.hpp"

namespace iolab::detail {

// "f123", in place.
struct FileName {
    explicit FileName(std::uint64_t i) {
        text[0] = 'f';
        *std::to_chars(text + 1, text + sizeof text - 1, i).ptr = '\0';
    }
    char text[24];
    const char* c_str() const { return text; }
};

// files.read-fio's --openfiles: the files fio holds open at once (by default it opens every file of
// the tree before it reads one, and a large tree runs out of descriptors).
inline constexpr unsigned kFioOpenFiles = 16;

// A tree's root and its D folders, each opened once.
struct TreeFolders {
    sys::Fd root;
    std::vector<sys::Fd> folder;
    const sys::Fd& of(std::uint64_t index) const { return folder[index % folder.size()]; }
};
// An existing tree (the job's src), or a new one made at the job's dst (its root and folders).
TreeFolders open_tree(const std::string& path, unsigned folders);
TreeFolders make_tree(const std::string& path, unsigned folders);

// Reads an open file to its end through buf, hashing it; adds it to the job's digest as file i.
void read_into_digest(const Job& j, const sys::Fd& in, std::uint64_t i, AlignedBuffer& buf, Hasher& h);
// File i's bytes (made before the clock: Job::records).
inline std::span<const std::byte> file_bytes(const Job& j, std::uint64_t i) { return j.records->at(i); }

// Calls f(i, thread) for every file on `threads` threads (thread 0 is the caller's) taking
// indices in turn, each call's time into the job's latency; the calls they make are counted as
// the caller's. The first error stops the others and is rethrown.
void on_threads(const Job& j, unsigned threads, const std::function<void(std::uint64_t, unsigned)>& f);

// f(i) for each file in the order a walker visits them: folder by folder, each folder's files in
// index order; each call's time into the job's latency (a file's).
template <class F>
void each_file_by_folder(const Job& j, F&& f) {
    const OpClock clock(j);
    const TreeValues& t = j.tree_of();
    for (unsigned d = 0; d < t.folders; ++d)
        for (std::uint64_t i = d; i < t.files; i += t.folders) {
            const std::uint64_t began = clock.now();
            f(i);
            clock.done(began);
        }
}

}  // namespace iolab::detail
