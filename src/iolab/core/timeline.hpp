#pragma once
// When each read and write of an overlapping copy began and ended, one lock-free lane per thread,
// exported as a Chrome trace.
#include <cstdint>
#include <string>
#include <vector>

namespace iolab {

class Timeline {
public:
    enum class Kind : std::uint8_t { read, write };
    struct Event {
        Kind kind;
        bool begin;
        std::uint64_t id;  // matches a begin with its end
        std::uint64_t t_ns;
        std::uint64_t bytes;
    };

    explicit Timeline(unsigned lanes = 2);
    void begin(unsigned lane, Kind kind, std::uint64_t id, std::uint64_t bytes);
    void end(unsigned lane, Kind kind, std::uint64_t id, std::uint64_t bytes);
    // An event with a given time (for importing and for tests).
    void add(unsigned lane, const Event& e) { lanes_[lane].push_back(e); }
    void clear();
    const std::vector<std::vector<Event>>& lanes() const { return lanes_; }

    // One read or write from its begin to its end.
    struct Span {
        unsigned lane;
        Kind kind;
        std::uint64_t begin_ns, end_ns, bytes;
    };
    // Every begin matched with its end (by kind and id), in the order they began.
    std::vector<Span> spans() const;
    // A timeline holding these spans (a result file's, read back).
    static Timeline from_spans(unsigned lanes, const std::vector<Span>& spans);

    struct Overlap {
        double span_s = 0;       // first event to last
        double read_busy_s = 0;  // time with at least one read in progress
        double write_busy_s = 0;
        double both_s = 0;  // time with a read and a write in progress together
        double fraction() const { return span_s > 0 ? both_s / span_s : 0; }
    };
    Overlap overlap() const;
    std::string summary() const;  // "reads busy 40% of 1.2 s, writes 95%, both at once 38%"

private:
    std::vector<std::vector<Event>> lanes_;
};

// One Chrome trace holding several timelines, one process each (named by `names`).
std::string chrome_trace_json(const std::vector<const Timeline*>& timelines, const std::vector<std::string>& names);

}  // namespace iolab
