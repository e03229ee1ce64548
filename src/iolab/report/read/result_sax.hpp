#pragma once
// The parse of a result file within bounds (read.cpp): nlohmann's SAX interface, building the
// document but turning samples and timeline events into structs as they end, refusing a key
// given twice, and counting what it holds.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "iolab/harness/result.hpp"
#include "iolab/harness/serialize.hpp"

namespace iolab::detail {

using nlohmann::json;

// A timeline event as a result file holds it, [lane, kind, begin ns, end ns, bytes], checked for
// its shape only (its lane is checked against the timeline's lanes later).
struct SavedEvent {
    std::uint64_t lane = 0;
    std::uint8_t kind = 0;  // 0 read, 1 write, 2 anything else
    std::uint64_t begin_ns = 0, end_ns = 0, bytes = 0;
};

// The document as nlohmann's own parser builds it, but within bounds. A key given twice in one
// object is refused, naming it. Each sample of cases[i].samples and each event of
// cases[i].timeline.events becomes a Sample or a SavedEvent as soon as it ends, instead of a tree
// of its own (a sample's tree takes about 30 times its text, a Sample about its text): the DOM
// keeps those arrays empty. What the parse holds is counted as it grows (an estimate of each
// value's allocation), and a file that would take more than eight times its size besides its
// text, and 8 MiB (long lists where none belong, deep nesting), is refused before it does: a
// replicate's file, with every files case's latency buckets, is counted at about four.
class ResultSax final : public nlohmann::json_sax<json> {
public:
    explicit ResultSax(std::size_t text_size) : budget_(8 * static_cast<std::uint64_t>(text_size) + (8u << 20)) {}
    // Taken apart value by value: a JSON value's own destructor first moves a list's values into
    // a list of its own, twice the memory of a long list at once.
    ~ResultSax() override {
        dismantle(root);
        dismantle(captured_value_);
    }
    ResultSax(const ResultSax&) = delete;
    ResultSax& operator=(const ResultSax&) = delete;

    json root;
    std::vector<std::vector<Sample>> samples;     // by case
    std::vector<std::vector<SavedEvent>> events;  // by case
    std::string error;                            // why a handler stopped the parse

    bool null() override { return put(json(nullptr), 0); }
    bool boolean(bool v) override { return put(json(v), 0); }
    bool number_integer(number_integer_t v) override { return put(json(v), 0); }
    bool number_unsigned(number_unsigned_t v) override { return put(json(v), 0); }
    bool number_float(number_float_t v, const string_t&) override { return put(json(v), 0); }
    bool string(string_t& v) override { return put(json(std::move(v)), 48 + v.size()); }
    bool binary(binary_t& v) override { return put(json::binary(std::move(v)), 48 + v.size()); }
    bool start_object(std::size_t) override { return open(json::object()); }
    bool start_array(std::size_t) override { return open(json::array()); }
    bool key(string_t& k) override {
        json& o = *stack_.back();
        if (o.contains(k)) return fail(fmt::format("the key '{}' is there twice in one object", k.substr(0, 80)));
        if (!charge(96 + k.size())) return false;  // a node of the object's map, its key
        slot_ = &o[k];
        key_ = k;
        return true;
    }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
        return fail(fmt::format("not JSON ({})", std::string(e.what()).substr(0, 200)));
    }

private:
    static constexpr std::size_t kMaxDepth = 64;
    enum class Capture { none, sample, event };

    // Depth-first, the last value first; the nesting is at most kMaxDepth deep.
    static void dismantle(json& j) {
        if (j.is_array()) {
            while (!j.empty()) {
                dismantle(j.back());
                j.erase(j.end() - 1);
            }
        } else if (j.is_object()) {
            while (!j.empty()) {
                dismantle(j.begin().value());
                j.erase(j.begin());
            }
        }
    }
    bool fail(std::string why) {
        error = std::move(why);
        return false;
    }
    // Counts n more bytes held; false (and why) past the budget.
    bool charge(std::uint64_t n) {
        used_ += n;
        if (capture_ != Capture::none) captured_ += n;
        if (used_ <= budget_) return true;
        return fail(
            "reading it would take more than nine times its size in memory (iolab's own files take at most "
            "about five): refused");
    }
    // Where a value goes: the top container (an array's end, an object's key), or the root.
    json* slot_for() {
        if (stack_.empty()) return &(capture_ == Capture::none ? root : captured_value_);
        json* top = stack_.back();
        if (top->is_array()) {
            top->push_back(json());
            return &top->back();
        }
        return slot_;
    }
    // A value: its 16 bytes in a list (three times: a list that grows holds its old and its new
    // storage at once) or in an object's node, and what it holds elsewhere.
    std::uint64_t cost(std::uint64_t extra) const {
        return (!stack_.empty() && stack_.back()->is_array() ? 48 : 16) + extra;
    }
    bool put(json&& v, std::uint64_t extra) {
        if (!charge(cost(extra))) return false;
        *slot_for() = std::move(v);
        return true;
    }
    bool open(json&& v) {
        if (stack_.size() >= kMaxDepth) return fail(fmt::format("nested more than {} deep", kMaxDepth));
        const bool in_object = !stack_.empty() && stack_.back()->is_object();
        path_.push_back(stack_.empty() ? std::string("$") : in_object ? key_ : std::string("#"));
        // An element of a list that becomes a value of its own: built apart, turned at its end.
        if (capture_ == Capture::none && capture_at(path_)) {
            capture_ = path_.back() == "#" && path_[path_.size() - 2] == "samples" ? Capture::sample : Capture::event;
            capture_depth_ = stack_.size();
            captured_ = 0;
            captured_value_ = std::move(v);
            stack_.push_back(&captured_value_);
            return charge(cost(80));
        }
        if (!charge(cost(80))) return false;  // an object's map or a list's vector
        json* at = slot_for();
        *at = std::move(v);
        stack_.push_back(at);
        if (path_ == std::vector<std::string>{"$", "cases"} && at->is_array()) cases_ = at;
        if (cases_ && path_.size() == 3 && path_[1] == "cases") {  // a case
            samples.resize(cases_->size());
            events.resize(cases_->size());
        }
        return true;
    }
    // $.cases[i].samples[j] and $.cases[i].timeline.events[j].
    bool capture_at(const std::vector<std::string>& p) const {
        if (!cases_ || p.size() < 5 || p[1] != "cases" || p[2] != "#") return false;
        return (p.size() == 5 && p[3] == "samples" && p[4] == "#") ||
               (p.size() == 6 && p[3] == "timeline" && p[4] == "events" && p[5] == "#");
    }
    bool close() {
        stack_.pop_back();
        path_.pop_back();
        if (capture_ == Capture::none || stack_.size() != capture_depth_) return true;
        const Capture what = capture_;
        capture_ = Capture::none;
        used_ -= captured_;
        const std::size_t index = cases_->size();  // of the case being read, from 1
        json v = std::move(captured_value_);
        captured_value_ = json();
        if (what == Capture::sample) {
            // A file keeps a case's latency whole, never a sample's: one in a sample is not read.
            if (v.is_object()) v.erase("latency");
            try {
                samples[index - 1].push_back(v.get<Sample>());
            } catch (const std::exception& e) {
                return fail(fmt::format("case {}: a sample is malformed ({})", index, e.what()));
            }
            const Sample& s = samples[index - 1].back();
            return charge(2 * sizeof(Sample) + 16 * (s.job_s.size() + s.rank_s.size()));
        }
        if (!v.is_array() || v.size() != 5 || !v[0].is_number_unsigned() || !v[1].is_string() ||
            !v[2].is_number_unsigned() || !v[3].is_number_unsigned() || !v[4].is_number_unsigned())
            return fail(fmt::format("case {}: timeline: an event is not [lane, kind, begin ns, end ns, bytes]", index));
        const std::uint8_t kind = v[1] == "read" ? 0 : v[1] == "write" ? 1 : 2;
        events[index - 1].push_back({v[0].get<std::uint64_t>(), kind, v[2].get<std::uint64_t>(),
                                     v[3].get<std::uint64_t>(), v[4].get<std::uint64_t>()});
        return charge(2 * sizeof(SavedEvent));
    }

    std::uint64_t budget_, used_ = 0;
    std::vector<json*> stack_;       // the open objects and arrays, outermost first
    std::vector<std::string> path_;  // the key (or "#" in a list) each was opened under
    json* slot_ = nullptr;           // where an object's next value goes
    std::string key_;                // the last key read
    json* cases_ = nullptr;          // the top-level cases array
    Capture capture_ = Capture::none;
    std::size_t capture_depth_ = 0;  // the stack's size outside the captured value
    std::uint64_t captured_ = 0;     // what the captured value holds, released at its end
    json captured_value_;
};

}  // namespace iolab::detail
