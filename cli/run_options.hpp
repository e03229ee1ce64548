#pragma once
// The options of run and replicate, and what they ask for as a suite.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "iolab/suite/suite.hpp"

namespace iolab::cli {

struct RunArgs {
    std::string suite, suite_file;
    std::vector<std::string> strategies;
    // The settings table's options (harness/params.hpp), by key: every --key given.
    std::map<std::string_view, std::vector<std::string>> values;
    std::map<std::string_view, bool> flags;
    std::map<std::string_view, std::vector<CLI::Option*>> options;  // run's and replicate's
    // The result files asked for, by exporter option (report/exporter.hpp): "json" -> path.
    std::map<std::string_view, std::string> outputs;
    std::string dir, input;
    // Baselines (baseline.hpp): keep this run under a name; compare it with one (a name or a
    // file), failing when a case is slower by more than fail_if_slower.
    std::string save_baseline, baseline, fail_if_slower, between_runs;
    bool allow_missing = false;
    bool keep = false, quiet = false, force = false, smoke = false, allow_device = false, all = false;
    // Under MPI (--mpi): how long a rank waits for the others at any point, and the shift of
    // reads to another rank's input.
    bool mpi = false;
    std::string mpi_timeout = "600s";
    std::string rank_shift = "0";

    bool given(std::string_view key) const;
    bool given_mpi_options() const { return given("mpi_timeout") || given("rank_shift"); }
    // The path given to an exporter's option, or "".
    const std::string& output(std::string_view option) const;
};

void add_run_options(CLI::App* cmd, RunArgs& a);
// --input: an existing regular file, or a block device with --allow-device. Returns its size.
std::uint64_t checked_input(const RunArgs& a);
// Every option given on the command line replaces the suite's value in every group.
void apply_overrides(const RunArgs& a, Suite& suite);
Suite load_named(const std::string& name);
// What `iolab run` is asked to run, as a suite.
Suite requested_suite(const RunArgs& a);

}  // namespace iolab::cli
