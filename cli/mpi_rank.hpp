#pragma once
// One rank of an MPI job (iolab run --mpi): what MPI cannot do with a run, the check that every
// rank was given the same plan, and MPI started and finished around the run.
#include <cstdint>
#include <memory>

#include "iolab/harness/team.hpp"
#include "iolab/session/session.hpp"
#include "iolab/suite/suite.hpp"
#include "run_options.hpp"

namespace iolab::cli {

// What a run will do, as a number (a checksum of every setting of the settings table as given,
// the run's own options, the suite, and every case and group it made): the ranks of an MPI job
// compare it with rank 0's.
std::uint64_t plan_fingerprint(const RunArgs& a, const Session& session);

// MPI started, the team the harness agrees with, and at the end MPI finished. Without --mpi it
// only refuses the MPI options; with `start` false (fuzz targets) it checks them and starts nothing.
class MpiRank {
public:
    MpiRank(const RunArgs& a, const Suite& suite, bool start);  // throws InputError
    ~MpiRank();
    MpiRank(const MpiRank&) = delete;
    MpiRank& operator=(const MpiRank&) = delete;
    bool active() const { return team_ != nullptr; }
    // Rank 0 prints and writes the results; the other ranks only measure.
    bool reports() const { return !team_ || team_->rank() == 0; }

private:
    std::unique_ptr<MpiTeam> team_;
};

}  // namespace iolab::cli
