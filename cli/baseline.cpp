#include "baseline.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "iolab/core/interrupt.hpp"
#include "iolab/core/text_file.hpp"
#include "iolab/core/units.hpp"
#include "iolab/io/profile.hpp"
#include "iolab/report/analysis/compare.hpp"
#include "iolab/report/output_file.hpp"
#include "iolab/report/read/read.hpp"

namespace iolab::cli {

namespace {

bool name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
}

bool exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

// mkdir of one folder, an existing one being fine.
void make_folder(const std::string& path) {
    if (::mkdir(path.c_str(), 0777) != 0 && errno != EEXIST) throw IoError(errno, "mkdir", path);
}

}  // namespace

std::string baseline_path(const std::string& name, const char* option) {
    // A name ending in .json would be read as a file's path by --baseline.
    const bool ok = !name.empty() && name.size() <= 100 && std::isalnum(static_cast<unsigned char>(name.front())) &&
                    std::all_of(name.begin(), name.end(), name_char) && !name.ends_with(".json");
    if (!ok)
        throw InputError(one_line(fmt::format(
            "invalid {} '{}': expected a name of 1 to 100 letters, digits, '.', '_' and '-', starting with a letter "
            "or digit and not ending in .json (it names {}/NAME.json)",
            option, name, kBaselineFolder)));
    return fmt::format("{}/{}.json", kBaselineFolder, name);
}

std::string find_baseline(const std::string& name_or_file) {
    const bool file = name_or_file.find('/') != std::string::npos || name_or_file.ends_with(".json");
    if (file) {
        if (!exists(name_or_file))
            throw InputError(one_line(fmt::format("invalid --baseline '{}': {}; expected a result file (--json)",
                                                  name_or_file, std::strerror(errno))));
        return name_or_file;
    }
    const std::string path = baseline_path(name_or_file, "--baseline");
    if (!exists(path))
        throw InputError(one_line(fmt::format(
            "no baseline '{}' here: {} does not exist ('iolab run ... --save-baseline {}' keeps one){}", name_or_file,
            path, name_or_file,
            exists(name_or_file) ? fmt::format("; the file '{}' is --baseline ./{}", name_or_file, name_or_file)
                                 : "")));
    return path;
}

Baseline load_baseline(const std::string& name_or_file) {
    const std::string path = find_baseline(name_or_file);
    const bool named = path != name_or_file;
    return {read_report_file(path), named ? "baseline " + name_or_file : name_or_file};
}

void check_save_folder(const std::string& folder, const char* option) {
    struct stat st {};
    if (::stat(folder.c_str(), &st) == 0) {
        if (!S_ISDIR(st.st_mode)) throw InputError(fmt::format("invalid {}: '{}' is not a folder", option, folder));
        return;
    }
    if (::access(".", W_OK | X_OK) != 0)
        throw InputError(fmt::format("invalid {}: cannot make '{}': '.' is not writable", option, folder));
}

void check_save_baseline(const std::string& name) {
    (void)baseline_path(name, "--save-baseline");
    // Each folder on the way is a folder, and the first one missing (made after the run) can be
    // made: its parent is writable. (The file itself is checked with the other result files.)
    std::string parent = ".";
    for (const std::string folder : {".iolab", kBaselineFolder}) {
        struct stat st {};
        if (::stat(folder.c_str(), &st) == 0) {
            if (!S_ISDIR(st.st_mode))
                throw InputError(
                    fmt::format("invalid --save-baseline '{}': '{}' is not a folder", one_line(name), folder));
            parent = folder;
            continue;
        }
        if (::access(parent.c_str(), W_OK | X_OK) != 0)
            throw InputError(fmt::format("invalid --save-baseline '{}': cannot make '{}': '{}' is not writable",
                                         one_line(name), folder, parent));
        return;
    }
}

std::string save_baseline_if_checkable(const std::string& name) {
    if (name.empty()) return "";
    struct stat st {};
    return ::stat(kBaselineFolder, &st) == 0 && S_ISDIR(st.st_mode) ? baseline_path(name, "--save-baseline") : "";
}

std::optional<Calibration> saved_calibration(std::string* why) {
    if (!exists(kCalibrationFile)) return std::nullopt;
    const auto text = read_text_file(kCalibrationFile);
    if (!text) throw InputError(fmt::format("cannot read {}: {}", kCalibrationFile, std::strerror(errno)));
    Calibration c = read_calibration(*text, kCalibrationFile);
    if (c.machine != this_machine()) {
        if (why) *why = fmt::format("{} was made on another machine", kCalibrationFile);
        return std::nullopt;
    }
    return c;
}

GateSettings gate_settings(const std::string& fail_if_slower, const std::string& between_runs, bool allow_missing) {
    GateSettings g;
    g.threshold = fail_if_slower.empty() ? -1 : parse_threshold(fail_if_slower, "--fail-if-slower");
    g.allow_missing = allow_missing;
    if (!between_runs.empty()) {
        g.between = parse_threshold(between_runs, "--between-runs");
        g.between_source = "given: --between-runs";
        return g;
    }
    std::string why;
    if (const auto c = saved_calibration(&why)) {
        g.between = c->between;
        g.between_source = fmt::format("measured by iolab calibrate here, {}", c->date);
        return g;
    }
    g.between = kDefaultBetweenRuns;
    g.between_source =
        why.empty() ? "the default: iolab calibrate --save measures this machine's" : "the default: " + why;
    return g;
}

std::optional<Baseline> check_baselines(const RunArgs& a, GateSettings* gate) {
    *gate = gate_settings(a.fail_if_slower, a.between_runs, a.allow_missing);
    if (gate->threshold >= 0 && a.baseline.empty())
        throw InputError("--fail-if-slower needs --baseline NAME (or a result file) to compare the run with");
    if (!a.save_baseline.empty() && a.smoke)
        throw InputError("--save-baseline with --smoke would keep a run that measured nothing worth comparing");
    if (!a.save_baseline.empty()) check_save_baseline(a.save_baseline);
    if (a.baseline.empty()) return std::nullopt;
    return load_baseline(a.baseline);
}

void save_baseline(const std::string& name, const std::string& json, bool force) {
    const std::string path = baseline_path(name, "--save-baseline");
    make_folder(".iolab");
    make_folder(kBaselineFolder);
    write_file_atomically(path, json, force);
}

int compare_command(const std::vector<std::string>& files, const std::string& baseline, const GateSettings& gate,
                    bool markdown) {
    // "3 given: 'a.json', 'b.json', 'c.json'"
    const auto given = [&] {
        std::vector<std::string> quoted;
        for (std::size_t i = 0; i < std::min<std::size_t>(files.size(), 4); ++i) quoted.push_back("'" + files[i] + "'");
        return one_line(
            fmt::format("{} given: {}{}", files.size(), fmt::join(quoted, ", "), files.size() > 4 ? ", ..." : ""));
    };
    if (files.empty())
        throw InputError("iolab compare takes two result files, BEFORE AFTER (or AFTER with --baseline NAME)");
    if (baseline.empty() && files.size() != 2)
        throw InputError("iolab compare takes two result files, BEFORE AFTER (or AFTER with --baseline NAME); " +
                         given());
    if (!baseline.empty() && files.size() != 1)
        throw InputError("with --baseline, iolab compare takes one result file, AFTER; " + given());
    const Baseline before = baseline.empty() ? Baseline{read_report_file(files[0]), files[0]} : load_baseline(baseline);
    const Comparison c = compare_runs(before.report, read_report_file(files.back()), before.name, files.back(), gate);
    fmt::print("{}", render_comparison(c, markdown));
    return c.gate_failed() ? 1 : 0;
}

int calibrate_command(const std::string& dir, bool save, bool force) {
    // Checked before anything is measured: the file is not replaced without --force.
    if (save && exists(kCalibrationFile) && !force)
        throw InputError(fmt::format("{} exists: --force replaces it", kCalibrationFile));
    if (save) check_save_folder(".iolab", "--save");
    fmt::print(stderr, "iolab: measuring this machine's noise (about 15 s)\n");
    const auto c = calibrate(dir, {});
    if (!c) {
        fmt::print(stderr, "iolab: interrupted: no calibration kept\n");
        return 128 + interrupt::signal_received();
    }
    for (const std::string& l : c->lines()) fmt::print("{}\n", l);
    if (save) {
        make_folder(".iolab");
        write_file_atomically(kCalibrationFile, calibration_json(*c), force);
        fmt::print(
            "kept in {}: iolab compare and run --baseline widen their intervals by it, and a run's header "
            "says it\n",
            kCalibrationFile);
    }
    return 0;
}

}  // namespace iolab::cli
