#pragma once
// The iolab command line: every command and its options, what each was given, and the checks
// CLI11 does not make (a word nobody takes names what was probably meant; an empty value).
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "run_options.hpp"

namespace iolab::cli {

struct CommandLine {
    explicit CommandLine(CLI::App& app);

    CLI::App *list = nullptr, *info = nullptr, *run = nullptr, *replicate = nullptr, *suites = nullptr, *tune = nullptr,
             *clean = nullptr, *compare = nullptr, *report = nullptr, *calibrate = nullptr;
    std::string family;  // list
    bool names = false;
    std::string info_dir, info_size;
    bool info_limits = false, info_device = false;
    RunArgs run_args;  // run and replicate
    std::string tune_dir, tune_profile;
    bool tune_smoke = false, tune_quiet = false;
    std::string clean_dir;
    bool clean_kept = false;
    std::vector<std::string> compare_files;  // compare: BEFORE AFTER, or AFTER with --baseline
    std::string compare_baseline, compare_threshold, compare_between;
    bool compare_md = false, compare_allow_missing = false;
    std::string calibrate_dir;
    bool calibrate_save = false, calibrate_force = false;
    std::vector<std::string> report_files;
    std::string report_html;
    bool report_force = false, report_all = false, report_history = false;
    std::string report_threshold, report_between;

private:
    void add_inspecting(CLI::App& app);
    void add_running(CLI::App& app);
    void add_tools(CLI::App& app);
};

// What `iolab` alone prints: the five commands most people need, as git does.
std::string short_usage();
// Throws InputError for a first word that is no command, or an option before any command that
// is not iolab's own, saying what was probably meant.
void check_first_word(int argc, char** argv, const CLI::App& app);
// Throws InputError for a word a command did not take, or an option given an empty value.
void check_parsed(const CLI::App& app);

}  // namespace iolab::cli
