#include "iolab/core/timeline.hpp"

#include <time.h>

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "iolab/core/latency.hpp"

namespace iolab {

namespace {

using Interval = std::pair<std::uint64_t, std::uint64_t>;

// The union of intervals, sorted and merged.
std::vector<Interval> merged(std::vector<Interval> v) {
    std::sort(v.begin(), v.end());
    std::vector<Interval> out;
    for (const auto& iv : v) {
        if (!out.empty() && iv.first <= out.back().second)
            out.back().second = std::max(out.back().second, iv.second);
        else
            out.push_back(iv);
    }
    return out;
}

std::uint64_t length(const std::vector<Interval>& v) {
    std::uint64_t t = 0;
    for (const auto& iv : v) t += iv.second - iv.first;
    return t;
}

}  // namespace

Timeline::Timeline(unsigned lanes) : lanes_(lanes) {
    for (auto& l : lanes_) l.reserve(4096);
}

void Timeline::begin(unsigned lane, Kind kind, std::uint64_t id, std::uint64_t bytes) {
    lanes_[lane].push_back({kind, true, id, monotonic_ns(), bytes});
}

void Timeline::end(unsigned lane, Kind kind, std::uint64_t id, std::uint64_t bytes) {
    lanes_[lane].push_back({kind, false, id, monotonic_ns(), bytes});
}

void Timeline::clear() {
    for (auto& l : lanes_) l.clear();
}

std::vector<Timeline::Span> Timeline::spans() const {
    std::vector<Span> out;
    for (unsigned l = 0; l < lanes_.size(); ++l) {
        // Begins wait for their ends by (kind, id).
        std::vector<const Event*> open;
        for (const auto& e : lanes_[l]) {
            if (e.begin) {
                open.push_back(&e);
                continue;
            }
            const auto it = std::find_if(open.begin(), open.end(),
                                         [&](const Event* b) { return b->kind == e.kind && b->id == e.id; });
            if (it == open.end()) continue;
            out.push_back({l, e.kind, (*it)->t_ns, e.t_ns, e.bytes});
            open.erase(it);
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const Span& a, const Span& b) { return a.begin_ns < b.begin_ns; });
    return out;
}

Timeline Timeline::from_spans(unsigned lanes, const std::vector<Span>& spans) {
    Timeline t(lanes);
    std::uint64_t id = 0;
    for (const Span& s : spans) {
        t.add(s.lane, {s.kind, true, id, s.begin_ns, s.bytes});
        t.add(s.lane, {s.kind, false, id, s.end_ns, s.bytes});
        ++id;
    }
    return t;
}

Timeline::Overlap Timeline::overlap() const {
    std::vector<Interval> reads, writes;
    std::uint64_t first = UINT64_MAX, last = 0;
    for (const auto& lane : lanes_)
        for (const auto& e : lane) {
            first = std::min(first, e.t_ns);
            last = std::max(last, e.t_ns);
        }
    for (const Span& s : spans()) (s.kind == Kind::read ? reads : writes).emplace_back(s.begin_ns, s.end_ns);
    Overlap o;
    if (first >= last) return o;
    const auto r = merged(reads), w = merged(writes);
    std::vector<Interval> both;
    for (std::size_t i = 0, j = 0; i < r.size() && j < w.size();) {
        const std::uint64_t lo = std::max(r[i].first, w[j].first), hi = std::min(r[i].second, w[j].second);
        if (lo < hi) both.emplace_back(lo, hi);
        (r[i].second < w[j].second) ? ++i : ++j;
    }
    o.span_s = static_cast<double>(last - first) * 1e-9;
    o.read_busy_s = static_cast<double>(length(r)) * 1e-9;
    o.write_busy_s = static_cast<double>(length(w)) * 1e-9;
    o.both_s = static_cast<double>(length(both)) * 1e-9;
    return o;
}

std::string Timeline::summary() const {
    const Overlap o = overlap();
    if (o.span_s <= 0) return "no events";
    return fmt::format("over {:.3f} s: reads in progress {:.0f}% of the time, writes {:.0f}%, both at once {:.0f}%",
                       o.span_s, 100 * o.read_busy_s / o.span_s, 100 * o.write_busy_s / o.span_s, 100 * o.fraction());
}

std::string chrome_trace_json(const std::vector<const Timeline*>& timelines, const std::vector<std::string>& names) {
    nlohmann::json events = nlohmann::json::array();
    std::uint64_t origin = UINT64_MAX;
    for (const auto* t : timelines)
        for (const auto& lane : t->lanes())
            for (const auto& e : lane) origin = std::min(origin, e.t_ns);
    for (std::size_t p = 0; p < timelines.size(); ++p) {
        const int pid = static_cast<int>(p) + 1;
        events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", names[p]}}}});
        const auto& lanes = timelines[p]->lanes();
        for (std::size_t l = 0; l < lanes.size(); ++l) {
            const int tid = static_cast<int>(l) + 1;
            for (const auto& e : lanes[l]) {
                const char* kind = e.kind == Timeline::Kind::read ? "read" : "write";
                // Async begin/end ("b"/"e") pairs, matched by id: io_uring keeps many in flight
                // on one thread, which plain B/E events could not nest.
                events.push_back({{"name", kind},
                                  {"cat", kind},
                                  {"ph", e.begin ? "b" : "e"},
                                  {"id", fmt::format("{}-{}-{}", pid, kind, e.id)},
                                  {"ts", static_cast<double>(e.t_ns - origin) / 1000.0},
                                  {"pid", pid},
                                  {"tid", tid},
                                  {"args", {{"bytes", e.bytes}}}});
            }
        }
    }
    return nlohmann::json{{"traceEvents", events}, {"displayTimeUnit", "ms"}}.dump() + "\n";
}

}  // namespace iolab
