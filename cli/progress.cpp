#include "progress.hpp"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "common.hpp"
#include "iolab/core/units.hpp"

namespace iolab::cli {

double Progress::elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::attach(SessionSettings& settings) {
    settings.on_group = [this](std::size_t i, std::size_t n, const ReportGroup& g, double elapsed) {
        if (!lines_) return;
        fmt::print(stderr, "iolab: group {} of {}{}: done after {:.0f} s\n", i + 1, n,
                   g.title.empty() ? std::string() : " (" + one_line(g.title) + ")", elapsed);
        said_at_ = elapsed;
    };
    // Findings decided before the end: a line each in a log, a count on the terminal's bar.
    settings.on_finding = [this](const FindingResult& f, std::size_t k, std::size_t) {
        decided_ = k;
        if (!lines_) return;
        fmt::print(stderr, "iolab: {}{}: {}\n", f.suite.empty() ? std::string() : one_line(f.suite) + ": ",
                   one_line(f.finding.claim), f.outcome());
        said_at_ = elapsed();
    };
    settings.on_case = [this](std::size_t i, std::size_t n, const CaseSpec& c, double done) { on_case(i, n, c, done); };
    // Laying out large inputs takes a while before the first sample: say what is being made.
    settings.on_setup = [this](std::size_t i, std::size_t n, const std::string& what) {
        const std::string line = fmt::format("group {} of {}: laying out {}", i + 1, n, one_line(what));
        if (lines_) {
            fmt::print(stderr, "iolab: {}\n", line);
            said_at_ = elapsed();
        } else if (bar_) {
            const std::size_t width = terminal_columns(STDERR_FILENO);
            fmt::print(stderr, "\r\x1b[K{}", line.substr(0, (width > 0 ? width : 80) - 1));
            std::fflush(stderr);
        }
    };
}

void Progress::on_case(std::size_t i, std::size_t n, const CaseSpec& c, double done) {
    const double now = elapsed();
    if (lines_ && now - said_at_ >= 60) {
        fmt::print(stderr, "iolab: {:.0f}% after {:.0f} s; measuring case {} of {}, {}\n", done * 100, now, i + 1, n,
                   one_line(c.label()));
        said_at_ = now;
    }
    if (!bar_) return;
    if (measuring_from_ < 0) measuring_from_ = now;       // set-up, limits and warm-ups came before
    if (drawn_at_ >= 0 && now - drawn_at_ < 0.1) return;  // ten lines a second at most
    drawn_at_ = now;
    const std::size_t width = terminal_columns(STDERR_FILENO);
    const std::size_t columns = width > 0 ? width : 80;
    const std::string what =
        findings_ == 0 ? c.label() : fmt::format("{}/{} findings decided; {}", decided_, findings_, c.label());
    fmt::print(stderr, "\r\x1b[K{}", progress_line(done, i, n, what, now, now - measuring_from_, columns - 1));
    std::fflush(stderr);
}

void Progress::end() const {
    if (bar_) fmt::print(stderr, "\r\x1b[K");
}

}  // namespace iolab::cli
