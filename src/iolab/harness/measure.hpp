#pragma once
// One measured run of a strategy, inside the harness: the clock, CPU time, context switches,
// faults and system calls around it, the cache state before it and the verification after it.
#include <stdexcept>
#include <utility>

#include "iolab/harness/clock.hpp"
#include "iolab/harness/fixture.hpp"
#include "iolab/harness/result.hpp"

namespace iolab {

// Thrown between iterations when a stop was asked for: the case is incomplete.
struct Interrupted : std::runtime_error {
    Interrupted() : std::runtime_error("interrupted") {}
};

// Everything but the strategy (and durability, when the sync policy puts it inside) happens
// outside the timed part. Returns the sample and what was checked; throws when the output is
// wrong, Interrupted when a stop was asked for.
std::pair<Sample, Checked> measure_once(const Strategy& s, Fixture& fx, Sink& sink, const RunOptions& opts,
                                        Clock& clock, Timeline* timeline, VerifyMode mode);

// The same with one fixture and sink per job: the jobs run at once, one thread each, released
// together by a barrier once every input is in its cache state; each job's output is verified.
// The timeline, when given, records the first job. A job's failure fails the run, naming it.
std::pair<Sample, Checked> measure_jobs(const Strategy& s, const std::vector<Fixture*>& fixtures,
                                        const std::vector<Sink*>& sinks, const RunOptions& opts, Clock& clock,
                                        Timeline* timeline, VerifyMode mode);

}  // namespace iolab
