#pragma once
// One measured run of a strategy, inside the harness: the clock, CPU time, context switches,
// faults and system calls around it, the cache state before it and the verification after it.
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "iolab/harness/clock.hpp"
#include "iolab/harness/fixture.hpp"
#include "iolab/harness/result.hpp"
#include "iolab/harness/team.hpp"
#include "iolab/sys/error.hpp"

namespace iolab {

// Thrown between iterations when a stop was asked for: the case is incomplete.
struct Interrupted : std::runtime_error {
    explicit Interrupted(const std::string& why = "interrupted") : std::runtime_error(why) {}
};

// What a step came to, as an outcome the ranks can agree on (team.hpp).
template <class F>
Outcome outcome_of(F&& step) {
    try {
        step();
        return {};
    } catch (const CannotRun& e) {
        return {Outcome::Kind::skipped, e.what()};
    } catch (const Interrupted& e) {
        return {Outcome::Kind::interrupted, e.what()};
    } catch (const std::exception& e) {
        return {Outcome::Kind::failed, e.what()};
    }
}
// What raise() throws: an outcome every rank agreed on, so every rank handles it alike. Under MPI
// any other error means the ranks are out of step, and ends the job (team.hpp).
struct Agreed {
    virtual ~Agreed() = default;
};
struct AgreedSkip : CannotRun, Agreed {
    using CannotRun::CannotRun;
};
struct AgreedStop : Interrupted, Agreed {
    using Interrupted::Interrupted;
};
struct AgreedFailure : std::runtime_error, Agreed {
    using std::runtime_error::runtime_error;
};
struct AgreedInputError : InputError, Agreed {
    using InputError::InputError;
};
// Whether the ranks can all handle e the same way: always for one process; under MPI only when
// it is an agreed outcome.
bool agreed(const std::exception& e);
// An agreed outcome, thrown when it is not ok: a skip as AgreedSkip, a stop as AgreedStop (a stop
// on another rank stops this one too), a failure as AgreedFailure.
void raise(const Outcome& o);

// Everything but the strategy (and durability, when the sync policy puts it inside) happens
// outside the timed part. Returns the sample and what was checked; throws when the output is
// wrong, Interrupted when a stop was asked for. The output is removed once verified, or, with
// keep_output, left for the caller to remove (just before the group's next write or copy).
std::pair<Sample, Checked> measure_once(const Strategy& s, Fixture& fx, Sink& sink, const RunOptions& opts,
                                        Clock& clock, Timeline* timeline, VerifyMode mode, bool keep_output = false);

// The same with one fixture and sink per job: the jobs run at once, one thread each, released
// together by a barrier once every input is in its cache state; each job's output is verified.
// The timeline, when given, records the first job. A job's failure fails the run, naming it.
//
// Under MPI (team().mpi()) every rank does this at once with its own jobs: the ranks agree that
// every input is ready, start behind a barrier, meet at a barrier when each has ended, and agree
// on the outcome (one rank's failure or stop is every rank's, naming it). Rank 0 returns the
// sample of all ranks (combine_ranks); the others their own.
std::pair<Sample, Checked> measure_jobs(const Strategy& s, const std::vector<Fixture*>& fixtures,
                                        const std::vector<Sink*>& sinks, const RunOptions& opts, Clock& clock,
                                        Timeline* timeline, VerifyMode mode);

// The sample of one iteration of every rank, from each rank's own: the span is the longest
// rank's from the start barrier to the end barrier (so from the first start to the last end, as
// for jobs), bytes, calls, CPU time and faults are summed, the resident share is the largest;
// rank_s holds each rank's own time, job_s every rank's jobs' times.
Sample combine_ranks(const std::vector<Sample>& ranks);

}  // namespace iolab
