#include "iolab/suite/suite.hpp"

#include "iolab/core/names.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "iolab/chain/chain.hpp"
#include "iolab/core/checksum.hpp"
#include "iolab/core/text_file.hpp"
#include "iolab/core/units.hpp"
#include "iolab/harness/params.hpp"
#include "iolab/harness/plan.hpp"

namespace iolab {

namespace {

// A value as the suite wrote it, for errors: "1979-05-27", "{ a = 1 }", "true".
std::string as_written(const toml::node& n) {
    std::ostringstream out;
    n.visit([&](const auto& v) { out << v; });
    return one_line(out.str());
}

// Reads one suite file, reporting problems as "ORIGIN:LINE: KEY: what is wrong".
class Reader {
public:
    explicit Reader(std::string origin) : origin_(std::move(origin)) {}

    [[noreturn]] void fail(const toml::node* at, std::string_view key, const std::string& why) const {
        const auto line = at ? at->source().begin.line : 0;
        // An error that names its key itself (a setting's) is not prefixed with it again.
        throw SuiteError(one_line(key.empty() ? fmt::format("{}:{}: {}", origin_, line, why)
                                              : fmt::format("{}:{}: {}: {}", origin_, line, key, why)));
    }
    [[noreturn]] void fail_in(const toml::table& t, std::string_view key, const std::string& why) const {
        const toml::node* n = t.get(key);
        fail(n ? n : &t, key, why);
    }

    std::string text(const toml::table& t, std::string_view key, bool required) const {
        const toml::node* n = t.get(key);
        if (!n) {
            if (required) fail(&t, key, "missing (a string is expected)");
            return {};
        }
        if (!n->is_string()) fail(n, key, "expected a string");
        std::string v(*n->value<std::string>());
        if (required && v.empty()) fail(n, key, "expected a non-empty string");
        // Names and texts reach the terminal: no escape sequences, no line breaks.
        if (std::any_of(v.begin(), v.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
            fail(n, key, "contains a control character (escape sequences and line breaks are refused)");
        return v;
    }

    // A string, an integer, or an array of those, as strings ("64M", "8").
    std::vector<std::string> list(const toml::table& t, std::string_view key) const {
        std::vector<std::string> out;
        const toml::node* n = t.get(key);
        if (!n) return out;
        const auto one = [&](const toml::node& v) {
            if (v.is_string())
                out.push_back(std::string(*v.value<std::string>()));
            else if (v.is_integer())
                out.push_back(std::to_string(*v.value<std::int64_t>()));
            else if (v.is_floating_point())
                out.push_back(fmt::format("{}", *v.value<double>()));
            else
                fail(&v, key, fmt::format("invalid value {}: expected a string or a number", as_written(v)));
        };
        if (const auto* arr = n->as_array()) {
            if (arr->empty()) fail(n, key, "expected at least one value");
            for (const auto& v : *arr) one(v);
        } else {
            one(*n);
        }
        return out;
    }

    double number(const toml::table& t, std::string_view key, double fallback) const {
        const toml::node* n = t.get(key);
        if (!n) return fallback;
        if (auto d = n->value<double>()) return *d;
        fail(n, key, "expected a number");
    }

    void only(const toml::table& t, const std::vector<std::string_view>& keys, const char* where) const {
        for (const auto& [k, v] : t)
            if (std::find(keys.begin(), keys.end(), k.str()) == keys.end())
                fail(&v, k.str(), fmt::format("unknown key in {}; expected one of {}", where, fmt::join(keys, ", ")));
    }

    // The settings (harness/params.hpp) given in a [defaults] or [[group]] table.
    void settings(const toml::table& t, PlanRequest& plan, RunOptions& opts) const {
        for (const Parameter& s : parameters()) {
            const toml::node* n = s.setting() ? t.get(s.key) : nullptr;
            if (!n) continue;
            std::string value;
            if (s.kind == Parameter::Kind::flag) {
                if (!n->is_boolean())
                    fail(n, s.key, fmt::format("invalid value {}: expected true or false", as_written(*n)));
                value = *n->value<bool>() ? "true" : "false";
            } else {
                value = fmt::format("{}", fmt::join(list(t, s.key), ","));
            }
            try {
                apply_setting(s, value, Syntax::suite, plan, opts);
            } catch (const InputError& e) {
                fail(n, "", e.what());
            }
        }
    }

    Selector selector(const toml::table& finding, std::string_view key) const {
        const toml::node* n = finding.get(key);
        if (!n) fail(&finding, key, "missing (a table such as { group = \"g\", strategy = \"copy.chunk\" })");
        const toml::table* t = n->as_table();
        if (!t) fail(n, key, "expected a table such as { group = \"g\", strategy = \"copy.chunk\" }");
        Selector s;
        s.group = text(*t, "group", true);
        s.strategies = list(*t, "strategy");
        if (s.strategies.empty()) fail(n, std::string(key) + ".strategy", "missing (a name, a glob or a list)");
        const std::string pick = t->contains("pick") ? text(*t, "pick", true) : "fastest";
        if (pick != "fastest" && pick != "slowest")
            fail_in(*t, "pick", fmt::format("'{}': expected fastest or slowest", pick));
        s.slowest = pick == "slowest";
        std::vector<std::string_view> selector_keys = {"group", "strategy", "pick"};
        for (const Parameter& p : parameters())
            if (p.in_label || p.key == "size") selector_keys.push_back(p.key);
        for (const auto& [k, v] : *t) {
            const std::string_view name = k.str();
            if (name == "group" || name == "strategy" || name == "pick") continue;
            if (std::find(selector_keys.begin(), selector_keys.end(), name) == selector_keys.end())
                fail(&v, name, fmt::format("unknown selector key; expected one of {}", fmt::join(selector_keys, ", ")));
            const auto values = list(*t, name);
            // A selector names one case's value: a list would have been taken for its first.
            if (values.size() != 1)
                fail(&v, name,
                     fmt::format("a selector picks one value of {}; expected one, not a list of {}", name,
                                 values.size()));
            s.params.emplace_back(std::string(name), values.front());
        }
        return s;
    }

private:
    std::string origin_;
};

// The keys a table may hold: `own` and every setting.
std::vector<std::string_view> setting_keys(std::vector<std::string_view> own) {
    for (const Parameter& s : parameters())
        if (s.setting()) own.push_back(s.key);
    return own;
}

toml::table parse_toml(std::string_view toml_text, const std::string& origin) {
    try {
        return toml::parse(toml_text, origin);
    } catch (const toml::parse_error& e) {
        throw SuiteError(one_line(fmt::format("{}:{}: {}", origin, e.source().begin.line, e.description())));
    }
}

// The groups read so far and the strategies each runs: what findings and knees may name.
struct GroupIndex {
    const std::vector<Group>& groups;
    std::map<std::string, std::set<std::string>> strategies_of;

    bool has(const std::string& id) const {
        return std::any_of(groups.begin(), groups.end(), [&](const Group& g) { return g.id == id; });
    }
    // Whether a strategy name or glob names a strategy the group runs.
    bool runs(const std::string& id, const std::string& pattern) const {
        const auto it = strategies_of.find(id);
        if (it == strategies_of.end()) return false;
        for (const auto& name : it->second)
            if (::fnmatch(pattern.c_str(), name.c_str(), 0) == 0) return true;
        return false;
    }
};

// The rules between the settings one table gives together (check_given_together).
void given_together(const Reader& r, const toml::table& t) {
    try {
        check_given_together(
            [&](std::string_view key) {
                if (key == "iterations=auto") {
                    const auto v = t["iterations"].value<std::string>();
                    return v && *v == "auto";
                }
                return t.contains(key);
            },
            Syntax::suite);
    } catch (const InputError& e) {
        r.fail_in(t, "time_budget", e.what());
    }
}

// A [[group]] table on the suite's [defaults], its plan checked and built (the strategies it runs
// go to the index).
Group read_group(const Reader& r, const toml::table& t, const Group& defaults, GroupIndex& index) {
    r.only(t, setting_keys({"id", "title", "strategies", "weight"}), "[[group]]");
    Group grp;
    grp.id = r.text(t, "id", true);
    grp.title = t.contains("title") ? r.text(t, "title", true) : grp.id;
    grp.plan = defaults.plan;
    grp.options = defaults.options;
    // Its part of the suite's time budget against its other groups' (default: its cases).
    grp.weight = r.number(t, "weight", 0);
    if (t.contains("weight") && !(grp.weight > 0 && grp.weight <= 1e6))
        r.fail(t.get("weight"), "weight", fmt::format("{} is not a weight from 0 to 1e6 (0 excluded)", grp.weight));
    grp.plan.strategies = r.list(t, "strategies");
    if (grp.plan.strategies.empty()) r.fail(&t, "strategies", "missing (a list of strategy names or globs)");
    grp.plan.given.clear();  // the group's own settings, held to its strategies below
    r.settings(t, grp.plan, grp.options);
    given_together(r, t);
    try {
        check_settings(grp.plan, grp.options, Syntax::suite);  // on the group's final settings
    } catch (const InputError& e) {
        r.fail(&t, "", fmt::format("group '{}': {}", grp.id, e.what()));
    }
    try {
        // Unknown strategies and impossible grids fail here, not mid-run.
        for (const auto& c : build_plan(grp.plan)) index.strategies_of[grp.id].insert(c.strategy->name);
    } catch (const InputError& e) {
        r.fail_in(t, "strategies", e.what());
    }
    try {
        check_taken(grp.plan, chosen_strategies(grp.plan.strategies), Syntax::suite);
    } catch (const InputError& e) {
        r.fail(&t, "", fmt::format("group '{}': {}", grp.id, e.what()));
    }
    return grp;
}

// The suite's [defaults], then its [[group]] tables, each id once.
void read_groups(const Reader& r, const toml::table& doc, Suite& s, GroupIndex& index) {
    Group defaults;
    if (const toml::node* d = doc.get("defaults")) {
        const toml::table* t = d->as_table();
        if (!t) r.fail(d, "defaults", "expected a table");
        r.only(*t, setting_keys({}), "[defaults]");
        r.settings(*t, defaults.plan, defaults.options);
        given_together(r, *t);
    }
    const toml::node* groups = doc.get("group");
    if (!groups || !groups->is_array_of_tables())
        r.fail(groups ? groups : &doc, "group", "expected one or more [[group]] tables");
    for (const auto& g : *groups->as_array()) {
        const toml::table& t = *g.as_table();
        Group grp = read_group(r, t, defaults, index);
        for (const auto& other : s.groups)
            if (other.id == grp.id) r.fail_in(t, "id", fmt::format("'{}' is used by two groups", grp.id));
        s.groups.push_back(std::move(grp));
    }
    // A default is held to every group's strategies together.
    std::vector<const Strategy*> all;
    for (const auto& g : s.groups)
        for (const Strategy* st : chosen_strategies(g.plan.strategies)) all.push_back(st);
    try {
        check_taken(defaults.plan, all, Syntax::suite);
    } catch (const InputError& e) {
        r.fail(doc.get("defaults"), "", fmt::format("[defaults]: {}", e.what()));
    }
}

// A selector as the cases see it: its strategies in order, its parameters by key, each value as
// its setting reads it (16K is 16384).
std::string canonical(const Selector& s) {
    std::vector<std::string> names = s.strategies, params;
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    for (const auto& [key, value] : s.params) {
        std::string read = value;
        const Parameter* p = find_parameter(key);
        if (p && p->case_param()) {
            try {
                // A case of a strategy that takes it: a kind's value is only its own kind's cases'.
                CaseSpec c;
                const auto& all = Registry::builtin().all();
                const auto taker =
                    std::find_if(all.begin(), all.end(), [&](const Strategy& st) { return p->taken_by(st); });
                if (taker != all.end()) c.strategy = &*taker, c.workload.family = taker->family;
                p->set(c, value);
                read = p->get(c);
            } catch (const InputError&) {
                // not a value of the setting: compared as written
            }
        }
        params.push_back(key + "=" + read);
    }
    std::sort(params.begin(), params.end());
    return fmt::format("{}\n{}\n{}\n{}", s.group, fmt::join(names, ","), fmt::join(params, ","), s.slowest);
}

// The sides of a finding (faster and slower, or jvm_faster and jvm_slower), checked against the groups.
void read_sides(const Reader& r, const toml::table& t, const GroupIndex& index, Finding& f, const std::string& prefix) {
    f.faster = r.selector(t, prefix + "faster");
    f.slower = r.selector(t, prefix + "slower");
    for (const auto* sel : {&f.faster, &f.slower}) {
        const std::string key = prefix + (sel == &f.faster ? "faster" : "slower");
        if (!index.has(sel->group)) r.fail_in(t, key, fmt::format("no group '{}' in this suite", sel->group));
        for (const auto& p : sel->strategies)
            if (!index.runs(sel->group, p))
                r.fail_in(t, key, fmt::format("strategy '{}' matches no case of group '{}'", p, sel->group));
    }
    if (canonical(f.faster) == canonical(f.slower))
        r.fail_in(t, prefix + "slower",
                  fmt::format("{0}faster and {0}slower select the same case: the finding would compare it with itself",
                              prefix));
}

constexpr double kMostRatio = 1e6;

// A finding, or two: the claim judged on iolab's strategies and, with jvm_faster and jvm_slower,
// on the published methods in the JVM.
std::vector<Finding> read_finding(const Reader& r, const toml::table& t, const GroupIndex& index) {
    r.only(t,
           {"claim", "source", "published", "faster", "slower", "at_least", "within", "note", "jvm_faster",
            "jvm_slower", "jvm_note"},
           "[[finding]]");
    Finding f;
    f.claim = r.text(t, "claim", true);
    f.source = r.text(t, "source", false);
    f.explanation = r.text(t, "note", false);
    f.published = r.number(t, "published", 0);
    read_sides(r, t, index, f, "");
    f.at_least = r.number(t, "at_least", 0);
    f.within = r.number(t, "within", 0);
    if ((f.at_least > 0) == (f.within > 0))
        r.fail_in(t, t.contains("within") ? "within" : "at_least",
                  "give exactly one of at_least (a ratio > 0) or within (a tolerance > 0)");
    // Ratios a run can tell: up to a million (a byte per call against a page cache copy is some
    // thousands).
    for (const auto& [key, value] :
         {std::pair{"at_least", f.at_least}, {"within", f.within}, {"published", f.published}})
        if (!(value <= kMostRatio))
            r.fail_in(t, key, fmt::format("{} is over {:g}: no run tells such a ratio", value, kMostRatio));
    if (!t.contains("jvm_faster") && !t.contains("jvm_slower")) {
        if (t.contains("jvm_note"))
            r.fail_in(t, "jvm_note", "a note for the JVM's verdict needs jvm_faster and jvm_slower");
        return {f};
    }
    Finding jvm = f;
    f.runtime = "C++";
    jvm.runtime = "JVM";
    jvm.explanation = r.text(t, "jvm_note", false);
    read_sides(r, t, index, jvm, "jvm_");
    return {f, jvm};
}

KneeSpec read_knee(const Reader& r, const toml::table& t, const GroupIndex& index) {
    r.only(t, {"group", "strategy", "fraction", "over"}, "[[knee]]");
    KneeSpec k;
    k.group = r.text(t, "group", true);
    k.strategy = r.text(t, "strategy", true);
    k.fraction = r.number(t, "fraction", 0.95);
    if (!(k.fraction > 0 && k.fraction <= 1))
        r.fail_in(t, "fraction", fmt::format("invalid fraction {}: expected more than 0 and at most 1", k.fraction));
    const std::string over = r.text(t, "over", false);
    if (!over.empty() && over != "buffer" && over != "jobs")
        r.fail_in(t, "over", fmt::format("invalid over '{}': expected buffer or jobs", over));
    k.over_jobs = over == "jobs";
    if (!index.has(k.group)) r.fail_in(t, "group", fmt::format("no group '{}' in this suite", k.group));
    if (!index.runs(k.group, k.strategy))
        r.fail_in(t, "strategy", fmt::format("'{}' matches no case of group '{}'", k.strategy, k.group));
    return k;
}

// Each table of an optional array of tables ([[finding]], [[knee]]), read by `read`.
template <class Read>
void each_table(const Reader& r, const toml::table& doc, std::string_view key, const Read& read) {
    const toml::node* list = doc.get(key);
    if (!list) return;
    if (!list->is_array_of_tables()) r.fail(list, key, fmt::format("expected [[{}]] tables", key));
    for (const auto& node : *list->as_array()) read(*node.as_table());
}

}  // namespace

std::string Selector::describe() const {
    std::string d = fmt::format("{}", fmt::join(strategies, "|"));
    for (const auto& [k, v] : params) d += fmt::format(" {}={}", k, v);
    return d;
}

Suite parse_suite(std::string_view toml_text, const std::string& origin) {
    const toml::table doc = parse_toml(toml_text, origin);
    const Reader r(origin);
    r.only(doc, {"name", "description", "source", "replicates", "defaults", "group", "finding", "knee"}, "a suite");
    Suite s;
    s.name = r.text(doc, "name", true);
    s.description = r.text(doc, "description", true);
    s.source = r.text(doc, "source", false);
    s.replicates = r.text(doc, "replicates", false);
    GroupIndex index{s.groups, {}};
    read_groups(r, doc, s, index);
    each_table(r, doc, "finding", [&](const toml::table& t) {
        for (Finding& f : read_finding(r, t, index)) s.findings.push_back(std::move(f));
    });
    each_table(r, doc, "knee", [&](const toml::table& t) { s.knees.push_back(read_knee(r, t, index)); });
    return s;
}

Suite load_suite_file(const std::string& path) {
    return parse_suite(read_text_file_or_throw<SuiteError>(path, "the suite file"), path);
}

std::vector<std::string> builtin_suite_names() {
    std::vector<std::string> names;
    for (const auto& [name, text] : builtin_suite_texts()) names.emplace_back(name);
    return names;
}

Suite builtin_suite(const std::string& name) {
    for (const auto& [n, text] : builtin_suite_texts())
        if (n == name) return parse_suite(text, "built-in suite " + name);
    const std::string meant = likely_meant(name, builtin_suite_names());
    throw SuiteError(fmt::format("unknown suite '{}': {}expected one of {}", name,
                                 meant.empty() ? "" : "did you mean '" + meant + "'? ",
                                 fmt::join(builtin_suite_names(), ", ")));
}

std::vector<std::string> replication_suites() {
    // Each built-in suite says whether it re-runs a write-up; in the write-ups' order.
    std::vector<std::pair<std::string, std::string>> found;
    for (const auto& name : builtin_suite_names())
        if (const Suite s = builtin_suite(name); !s.replicates.empty()) found.emplace_back(s.replicates, name);
    // The published write-ups ("seed NNN") first, then the new experiments ("new: ...").
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
        const bool pa = a.first.starts_with("seed"), pb = b.first.starts_with("seed");
        return pa != pb ? pa : a < b;
    });
    std::vector<std::string> out;
    for (auto& [which, name] : found) out.push_back(std::move(name));
    return out;
}

}  // namespace iolab
