#pragma once
// The jvm.* strategies' worker (docs/jvm.md): one JVM per group of cases (per process: a fork
// starts its own), started before the first run's clock, driven over a socket one request at a
// time, ended at the end of the group.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "iolab/strategies/strategy.hpp"

namespace iolab {

// Runs a worker method for the job, as the jvm.* rows do (the request, the answer's proof into
// the job's sink, the worker's own time into Job::tool.seconds). Throws CannotRun for a job the method
// cannot do, WorkerFailed when the worker fails (it is then ended), std::runtime_error when the
// method throws.
void run_jvm_method(const Job& j, std::string_view method);
// What the rows do before each run's clock: the worker started (or kept), System.gc(), a write's
// records made.
void prepare_jvm(const Job& j);
// Why the jvm.* rows cannot run here (no java, no worker jar, a Java older than 17), or nullopt.
std::optional<std::string> jvm_unavailable(const std::string& dir);
// Ends the worker, if one runs (the harness does at the end of each group).
void end_workers();

// The worker's command line for a heap of `heap` bytes (what a result records), and the JVM's own
// name and version as the last worker said them ("" before one started).
std::vector<std::string> jvm_command(std::uint64_t heap);
std::string jvm_version();
// What a result records of the JVM: "NAME VERSION: java -Xms... iolab.worker.Worker" (the jar by
// its file name); "" when no worker has started.
std::string jvm_description(std::uint64_t heap);
// The worker's jar: $IOLAB_JVM_WORKER, beside the program, in ../share/iolab, or where the build
// put it; "" when there is none.
std::string jvm_worker_jar();

// For tests: start this command instead of the JVM (a worker of the test's own); {}: the JVM.
void set_worker_command_for_tests(std::vector<std::string> argv);

}  // namespace iolab
