// iolab report --history: every baseline kept here and the result files given, each case's median
// over them in date order (report/analysis/history.hpp), as text or one HTML page.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "baseline.hpp"
#include "common.hpp"
#include "iolab/core/units.hpp"
#include "iolab/report/analysis/history.hpp"
#include "iolab/report/exporter.hpp"
#include "iolab/report/output_file.hpp"
#include "iolab/report/read/read.hpp"

namespace iolab::cli {

namespace {

// The result files kept by --save-baseline, by name (none when the folder is not there).
std::vector<std::string> kept_baselines() {
    std::vector<std::string> names;
    const std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(kBaselineFolder), ::closedir);
    if (!dir) {
        if (errno == ENOENT) return names;
        throw InputError(fmt::format("cannot read {}: {}", kBaselineFolder, std::strerror(errno)));
    }
    while (const dirent* e = ::readdir(dir.get())) {
        const std::string name = e->d_name;
        if (name.size() > 5 && name.ends_with(".json") && name.front() != '.')
            names.push_back(name.substr(0, name.size() - 5));
    }
    std::sort(names.begin(), names.end());
    return names;
}

// Two names of one file or folder.
bool same_file(const std::string& a, const std::string& b) {
    struct stat x {
    }, y{};
    return ::stat(a.c_str(), &x) == 0 && ::stat(b.c_str(), &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

}  // namespace

int history_command(const std::vector<std::string>& files, const std::string& html, bool force, GateSettings gate,
                    bool gated) {
    std::vector<std::pair<std::string, std::string>> sources;  // path, name
    for (const std::string& name : kept_baselines())
        sources.emplace_back(fmt::format("{}/{}.json", kBaselineFolder, name), "baseline " + name);
    for (const std::string& f : files) sources.emplace_back(f, f);
    if (sources.empty())
        throw InputError(
            fmt::format("no runs to draw: {} holds no baseline ('iolab run ... --save-baseline NAME' "
                        "keeps one) and no result file was given",
                        kBaselineFolder));
    std::vector<std::string> inputs;
    for (const auto& s : sources) inputs.push_back(s.first);
    if (!html.empty()) {
        check_output_paths({{"--html", html}}, force, inputs);
        // Every *.json there is read as a run: none is written there, whatever its name.
        const std::string folder = std::filesystem::path(html).parent_path().string();
        if (same_file(folder.empty() ? "." : folder, kBaselineFolder))
            throw InputError(one_line(fmt::format(
                "invalid --html '{}': {} holds the kept baselines, each read as a run", html, kBaselineFolder)));
    }
    // One file given twice (a baseline also given by its path), or a run kept as a baseline and also
    // written by --json, is one text: one run.
    std::vector<Report> reports;
    std::vector<std::string> names, texts;
    reports.reserve(sources.size());
    for (const auto& [path, name] : sources) {
        std::string text = read_result_text(path);
        if (std::find(texts.begin(), texts.end(), text) != texts.end()) continue;
        reports.push_back(read_report_json(text, path));
        names.push_back(name);
        texts.push_back(std::move(text));
    }
    std::vector<std::pair<const Report*, std::string>> runs;
    for (std::size_t i = 0; i < reports.size(); ++i) runs.emplace_back(&reports[i], names[i]);
    if (gate.threshold < 0) gate.threshold = kHistoryBand;
    const History h = build_history(runs, gate);
    if (html.empty()) {
        const TerminalOptions o = terminal_options(false);
        fmt::print("{}", render_history(h, o.colour, o.columns, gated));
    } else {
        write_file_atomically(html, history_to_html(h, gated), force);
        // The gate's verdict is said where a CI job reads it, the page or not.
        if (gated)
            for (const std::string& l : history_lines(h, true))
                if (l.starts_with("REGRESSION") || l.starts_with("the gate")) fmt::print("{}\n", l);
    }
    return gated && h.gate_failed() ? 1 : 0;
}

}  // namespace iolab::cli
