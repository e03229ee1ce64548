#pragma once
// What a run says while it measures: on a terminal a bar; elsewhere (a log, a CI job) one plain
// line a group, one a finding decided, and one a minute.
#include <chrono>
#include <cstddef>

#include "iolab/session/session.hpp"

namespace iolab::cli {

class Progress {
public:
    // `bar`: stderr is a terminal; `lines`: plain lines instead. Neither: silent.
    Progress(const Suite& suite, bool bar, bool lines) : findings_(suite.findings.size()), bar_(bar), lines_(lines) {}
    // Points the session's callbacks at this object, which must outlive the run.
    void attach(SessionSettings& settings);
    void end() const;  // clears the bar

private:
    double elapsed() const;
    void on_case(std::size_t i, std::size_t n, const CaseSpec& c, double done);

    const std::size_t findings_;
    const bool bar_, lines_;
    const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    double said_at_ = 0;  // when the last plain line was written
    double drawn_at_ = -1, measuring_from_ = -1;
    std::size_t decided_ = 0;
};

}  // namespace iolab::cli
