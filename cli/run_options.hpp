#pragma once
// The options of run and replicate, and what they ask for as a suite.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "iolab/suite/suite.hpp"

namespace iolab::cli {

struct RunArgs {
    std::string suite, suite_file;
    std::vector<std::string> strategies;
    std::string size, buffer, record, count, data;
    std::string cache, sync, warmup, iterations, forks, verify, precision, budget;
    std::string queue, iov, feed, throttle, byte_slice;
    std::vector<std::string> chains;
    std::string dir, json, csv, markdown, trace, input;
    bool keep = false, quiet = false, force = false, drop_caches = false, smoke = false, allow_device = false;
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
