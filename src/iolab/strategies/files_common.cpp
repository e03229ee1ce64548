#include "iolab/strategies/files_common.hpp"

#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include <fmt/format.h>

namespace iolab::detail {

TreeFolders open_tree(const std::string& path, unsigned folders) {
    TreeFolders t;
    t.root = sys::open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    for (unsigned d = 0; d < folders; ++d)
        t.folder.push_back(sys::openat(t.root, fmt::format("d{}", d).c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
    return t;
}

TreeFolders make_tree(const std::string& path, unsigned folders) {
    // The root below the folder the path names by descriptor: made, then opened.
    const auto slash = path.rfind('/');
    const sys::Fd parent = sys::open(path.substr(0, slash), O_RDONLY | O_DIRECTORY);
    sys::mkdirat(parent, path.c_str() + slash + 1);
    TreeFolders t;
    t.root = sys::openat(parent, path.c_str() + slash + 1, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    for (unsigned d = 0; d < folders; ++d) {
        const std::string name = fmt::format("d{}", d);
        sys::mkdirat(t.root, name.c_str());
        t.folder.push_back(sys::openat(t.root, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
    }
    return t;
}

void read_into_digest(const Job& j, const sys::Fd& in, std::uint64_t i, AlignedBuffer& buf, Hasher& h) {
    h.reset();
    while (const std::size_t n = sys::read_some(in, buf.data(), buf.size())) h.update(buf.data(), n);
    j.tree->add(i, h.digest(), h.bytes());
}

void on_threads(const Job& j, unsigned threads, const std::function<void(std::uint64_t, unsigned)>& f) {
    const std::uint64_t files = j.tree_of().files;
    std::vector<Latency> latencies(j.latency ? threads : 0);  // a thread's own, merged after
    std::atomic<std::uint64_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr error;
    std::mutex m;
    sys::Counters made;
    const auto work = [&](unsigned t) {
        const sys::Counters c0 = sys::thread_counters();
        const OpClock clock(j.latency ? &latencies[t] : nullptr);
        try {
            for (std::uint64_t i; !failed && (i = next.fetch_add(1)) < files;) {
                const std::uint64_t began = clock.now();
                f(i, t);
                clock.done(began);
            }
        } catch (...) {
            const std::lock_guard lock(m);
            if (!error) error = std::current_exception();
            failed = true;
        }
        if (t == 0) return;  // the caller's calls are its own already
        const std::lock_guard lock(m);
        made += sys::thread_counters() - c0;
    };
    {
        std::vector<std::jthread> pool;
        try {
            for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
        } catch (...) {
            failed = true;  // the started threads see it and end
            throw;
        }
        work(0);
    }  // every thread joined
    sys::thread_counters() += made;
    if (error) std::rethrow_exception(error);
    for (const Latency& l : latencies) j.latency->merge(l);
}

}  // namespace iolab::detail
