#include "iolab/session/calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "iolab/core/interrupt.hpp"
#include "iolab/core/scratch.hpp"
#include "iolab/core/units.hpp"
#include "iolab/harness/plan.hpp"
#include "iolab/harness/ratio.hpp"
#include "iolab/harness/runner.hpp"
#include "iolab/io/profile.hpp"
#include "iolab/sys/error.hpp"

namespace iolab {

namespace {

// The cases: a cached read, a write and two copies of the default run's size, each once through a
// buffer a default run holds.
struct Representative {
    const char* strategy;
    std::size_t buffer;
};
constexpr Representative kCases[] = {{"read.chunk", 64 << 10},
                                     {"write.record-buffered", 64 << 10},
                                     {"copy.chunk", 1 << 20},
                                     {"copy.copy-file-range", 1 << 20}};
constexpr std::size_t kRuns = 5, kSamples = 10;

std::vector<CaseSpec> twin_specs() {
    std::vector<CaseSpec> out;
    for (const Representative& r : kCases) {
        PlanRequest req;
        req.strategies = {r.strategy};
        req.buffers = {r.buffer};
        const std::vector<CaseSpec> one = build_plan(req);
        // The twins: the same case twice, in the same rounds.
        out.push_back(one.at(0));
        out.push_back(one.at(0));
    }
    return out;
}

std::string now_utc() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    ::gmtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

double median_of(std::vector<double> xs) { return xs.empty() ? 0 : median(std::move(xs)); }

// What the runs found: twins compared in each run, each case's spread and its move between runs.
Calibration analyse(const std::vector<std::vector<CaseResult>>& runs) {
    Calibration c;
    c.machine = this_machine();
    c.date = now_utc();
    c.runs = runs.size();
    c.samples = kSamples;
    std::vector<double> widths;
    for (std::size_t k = 0; k < std::size(kCases); ++k) {
        CalibratedCase cc;
        std::vector<double> medians, varies;
        for (const auto& run : runs) {
            const CaseResult& a = run.at(2 * k);
            const CaseResult& b = run.at(2 * k + 1);
            cc.label = a.spec.label();
            for (const CaseResult* t : {&a, &b}) {
                if (t->status != Status::ok || t->samples.empty())
                    throw std::runtime_error(fmt::format("{} could not be measured here: {}", t->spec.label(),
                                                         t->reason.empty() ? "no samples" : t->reason));
                medians.push_back(t->throughput_mib_s);
                varies.push_back(t->stats.median_precision());
            }
            const RatioEstimate r = ratio_interval(a.per_byte(), b.per_byte(), kRatioConfidence);
            ++c.twins;
            c.called_different += order_at(r, 0) != Order::tied;
            c.beyond_margin += order_at(r, kDefaultMargin) != Order::tied;
            if (r.ratio > 0) widths.push_back(std::max(r.high / r.ratio, r.ratio / r.low) - 1);
        }
        std::vector<std::vector<double>> pooled;
        for (const auto& run : runs) {
            std::vector<double> both = run.at(2 * k).per_byte();
            const std::vector<double> other = run.at(2 * k + 1).per_byte();
            both.insert(both.end(), other.begin(), other.end());
            pooled.push_back(std::move(both));
        }
        cc.between = between_runs(pooled);
        cc.mib_s = median_of(medians);
        cc.varies = median_of(varies);
        c.between = std::max(c.between, cc.between);
        c.cases.push_back(cc);
    }
    c.tell_apart = median_of(widths);
    return c;
}

}  // namespace

double between_runs(const std::vector<std::vector<double>>& runs) {
    double widening = 0;
    for (std::size_t i = 0; i < runs.size(); ++i)
        for (std::size_t j = i + 1; j < runs.size(); ++j) {
            const RatioEstimate r = ratio_interval(runs[j], runs[i], kRatioConfidence);
            if (r.low > 0 && r.high > 0) widening = std::max({widening, r.low - 1, 1 / r.high - 1});
        }
    return widening;
}

std::optional<Calibration> calibrate(const std::string& scratch_parent, const std::function<void(double)>& progress) {
    const std::vector<CaseSpec> specs = twin_specs();
    RunOptions opts;
    opts.iterations = Amount{kSamples, 0, false};
    opts.race = false;
    ScratchDir scratch(scratch_parent);
    interrupt::set_stoppable(true);
    struct Unstoppable {
        ~Unstoppable() { interrupt::set_stoppable(false); }
    } unstoppable;
    std::vector<std::vector<CaseResult>> runs;
    for (std::size_t r = 0; r < kRuns; ++r) {
        // Each run its own order of the cases, as separate runs of iolab would have.
        opts.order_seed = 0x10ab5eed + r;
        const ProgressFn step = [&](std::size_t, const CaseSpec&, double done) {
            if (progress) progress((static_cast<double>(r) + done) / kRuns);
        };
        runs.push_back(run_group(specs, opts, scratch, system_clock(), step));
        if (interrupt::requested()) return std::nullopt;
    }
    if (progress) progress(1);
    return analyse(runs);
}

std::vector<std::string> Calibration::lines() const {
    std::vector<std::string> out;
    out.push_back(fmt::format("{} cases, each twice in the same rounds (an A/A test), {} samples a twin, in {} runs:",
                              cases.size(), samples, runs));
    for (const CalibratedCase& c : cases)
        out.push_back(fmt::format("  {:<44} {:>11}  varies ±{:.1f}%  between runs {:.1f}%", c.label,
                                  fmt::format("{:.0f} MiB/s", c.mib_s), 100 * c.varies, 100 * c.between));
    out.push_back(
        fmt::format("twins called different: {} of {} at any difference (their 99% interval excluded 1), "
                    "{} of {} beyond the {:g}% margin of a run's winner group",
                    called_different, twins, beyond_margin, twins, kDefaultMargin * 100));
    out.push_back(
        fmt::format("the smallest difference a run tells apart here: about {:.1f}% (the median half-width "
                    "of the twins' 99% interval, {} samples a side)",
                    100 * tell_apart, samples));
    out.push_back(
        fmt::format("between runs a case moved by up to {:.1f}% past its 99% interval: the CI gate's margin "
                    "for the spread between runs (docs/ci.md)",
                    100 * between));
    return out;
}

std::string Calibration::header() const {
    return fmt::format(
        "noise here (iolab calibrate, {}): a run tells apart differences of about {:.1f}% or more; "
        "runs moved by up to {:.1f}% past their intervals",
        date, 100 * tell_apart, 100 * between);
}

std::string calibration_json(const Calibration& c) {
    nlohmann::json cases = nlohmann::json::array();
    for (const CalibratedCase& k : c.cases)
        cases.push_back({{"case", k.label}, {"mib_s", k.mib_s}, {"varies", k.varies}, {"between_runs", k.between}});
    const nlohmann::json j{{"schema", "iolab.calibration/1"},
                           {"machine", c.machine},
                           {"date", c.date},
                           {"runs", c.runs},
                           {"samples", c.samples},
                           {"twins", c.twins},
                           {"called_different", c.called_different},
                           {"beyond_margin", c.beyond_margin},
                           {"tell_apart", c.tell_apart},
                           {"between_runs", c.between},
                           {"cases", cases}};
    return j.dump(2) + "\n";
}

Calibration read_calibration(const std::string& text, const std::string& origin) {
    const auto bad = [&](const std::string& what) {
        return InputError(one_line(fmt::format("{}: not a calibration of iolab: {}", origin, what)));
    };
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object() || j.value("schema", "") != "iolab.calibration/1") throw bad("no schema iolab.calibration/1");
    Calibration c;
    const auto text_of = [&](const char* key) {
        const auto it = j.find(key);
        if (it == j.end() || !it->is_string()) throw bad(fmt::format("{} is not a string", key));
        return one_line(it->get<std::string>());
    };
    const auto number = [&](const nlohmann::json& o, const char* key, double most) {
        const auto it = o.find(key);
        if (it == o.end() || !it->is_number() || !(it->get<double>() >= 0 && it->get<double>() <= most))
            throw bad(fmt::format("{} is not a number from 0 to {:g}", key, most));
        return it->get<double>();
    };
    const auto fraction = [&](const nlohmann::json& o, const char* key) { return number(o, key, 100); };
    const auto count = [&](const char* key) {
        const auto it = j.find(key);
        if (it == j.end() || !it->is_number_unsigned() || it->get<std::uint64_t>() > 1000000)
            throw bad(fmt::format("{} is not a count", key));
        return static_cast<std::size_t>(it->get<std::uint64_t>());
    };
    c.machine = text_of("machine");
    c.date = text_of("date");
    c.runs = count("runs");
    c.samples = count("samples");
    c.twins = count("twins");
    c.called_different = count("called_different");
    c.beyond_margin = count("beyond_margin");
    c.tell_apart = fraction(j, "tell_apart");
    c.between = fraction(j, "between_runs");
    const auto cases = j.find("cases");
    if (cases == j.end() || !cases->is_array()) throw bad("cases is not a list");
    for (const auto& k : *cases) {
        if (!k.is_object() || !k.contains("case") || !k["case"].is_string()) throw bad("a case has no name");
        CalibratedCase cc;
        cc.label = one_line(k["case"].get<std::string>());
        cc.mib_s = number(k, "mib_s", 1e12);
        cc.varies = fraction(k, "varies");
        cc.between = fraction(k, "between_runs");
        c.cases.push_back(cc);
    }
    return c;
}

}  // namespace iolab
