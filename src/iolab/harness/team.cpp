#include "iolab/harness/team.hpp"

#include <climits>

#include <fmt/format.h>

#include "iolab/sys/mpi.hpp"

namespace iolab {

namespace {
Team g_solo;
Team* g_team = &g_solo;
}  // namespace

Team& team() { return *g_team; }
void set_team(Team* t) { g_team = t ? t : &g_solo; }

MpiTeam::MpiTeam(double timeout_s, unsigned shift)
    : timeout_s_(timeout_s), shift_(shift), rank_(sys::mpi::rank()), size_(sys::mpi::size()) {
    hosts_ = sys::mpi::all_gather(sys::mpi::host(), timeout_s_);
}

void MpiTeam::share_scratch(const std::string& mine) { scratch_ = sys::mpi::all_gather(mine, timeout_s_); }

void MpiTeam::barrier() { sys::mpi::barrier(timeout_s_); }

std::uint64_t MpiTeam::leader(std::uint64_t v) { return sys::mpi::broadcast(v, 0, timeout_s_); }

bool MpiTeam::any(bool v) { return sys::mpi::max(v ? 1 : 0, timeout_s_) != 0; }

Outcome MpiTeam::agree(const Outcome& mine) {
    // The gravest outcome of any rank (a stop, then a failure, then a skip), told by the lowest
    // rank that had it.
    const auto grave = [](Outcome::Kind k) -> std::uint64_t {
        switch (k) {
            case Outcome::Kind::ok: return 0;
            case Outcome::Kind::skipped: return 1;
            case Outcome::Kind::failed: return 2;
            case Outcome::Kind::interrupted: return 3;
        }
        return 0;
    };
    const std::uint64_t worst = sys::mpi::max(grave(mine.kind), timeout_s_);
    if (worst == 0) return {};
    const std::uint64_t first =
        sys::mpi::min(grave(mine.kind) == worst ? static_cast<std::uint64_t>(rank_) : UINT64_MAX, timeout_s_);
    const int from = static_cast<int>(first);
    const auto kind =
        static_cast<Outcome::Kind>(sys::mpi::broadcast(static_cast<std::uint64_t>(mine.kind), from, timeout_s_));
    const std::string why = sys::mpi::broadcast(mine.why, from, timeout_s_);
    return {kind, fmt::format("rank {} on {}: {}", from, hosts_.at(static_cast<std::size_t>(from)), why)};
}

std::vector<std::string> MpiTeam::gather(const std::string& mine) { return sys::mpi::gather(mine, timeout_s_); }

}  // namespace iolab
