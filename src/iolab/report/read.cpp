#include "iolab/report/read.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "iolab/core/checksum.hpp"
#include "iolab/core/text_file.hpp"
#include "iolab/core/units.hpp"
#include "iolab/harness/serialize.hpp"
#include "iolab/report/json.hpp"

namespace iolab {

namespace {

// Result files written before the tools were named by what they do still read.
std::string_view legacy_name(std::string_view name) {
    static constexpr std::pair<std::string_view, std::string_view> kRenamed[] = {{"external.dd", "read.dd"},
                                                                                 {"external.cat", "read.cat"},
                                                                                 {"external.fio", "read.fio"},
                                                                                 {"external.dd-copy", "copy.dd"},
                                                                                 {"external.cp", "copy.cp"}};
    for (const auto& [old_name, new_name] : kRenamed)
        if (name == old_name) return new_name;
    return name;
}

using nlohmann::json;

std::string str(const json& j, const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

CaseResult read_case(const json& c, const std::string& origin, std::size_t index) {
    const auto where = [&](const std::string& what) {
        return ResultFormatError(one_line(fmt::format("{}: case {}: {}", origin, index + 1, what)));
    };
    if (!c.is_object()) throw where("expected an object");
    CaseResult r;
    const std::string name = str(c, "strategy");
    r.spec.strategy = Registry::builtin().find(legacy_name(name));
    if (!r.spec.strategy) throw where(fmt::format("unknown strategy '{}'", name));
    r.spec.group = one_line(str(c, "group"));  // control characters escaped: it reaches the terminal
    Workload& w = r.spec.workload;
    w.family = r.spec.strategy->family;
    const auto params = c.find("params");
    if (params == c.end() || !params->is_object()) throw where("missing params");
    for (const auto& [k, v] : params->items()) {
        if (!v.is_string()) throw where(fmt::format("param '{}' is not a string", k));
        try {
            if (const CaseParam* p = find_case_param(k)) p->set(r.spec, one_line(v.get<std::string>()));
        } catch (const InputError& e) {
            throw where(fmt::format("params.{}: {}", k, e.what()));
        }
    }
    const std::string status = str(c, "status");
    const auto st = value_of(kStatuses, status);
    if (!st) throw where(fmt::format("status '{}' is not {}", status, names_of(kStatuses)));
    r.status = *st;
    r.reason = str(c, "reason");
    const auto verified = c.find("verified");
    r.verified = verified != c.end() && verified->is_boolean() && verified->get<bool>();
    r.checked = r.verified ? Checked::content : value_of(kChecked, str(c, "verification")).value_or(Checked::none);
    const auto cold = c.find("cold_unproven");
    r.cold_unproven = cold != c.end() && cold->is_boolean() && cold->get<bool>();
    const auto samples = c.find("samples");
    if (samples == c.end() || !samples->is_array()) throw where("missing samples");
    try {
        for (const auto& s : *samples) r.samples.push_back(s.get<Sample>());
    } catch (const json::exception& e) {
        throw where(fmt::format("a sample is malformed ({})", e.what()));
    }
    for (const auto& s : r.samples)
        if (!(s.wall_s > 0) || !(s.user_s >= 0) || !(s.sys_s >= 0) || !std::isfinite(s.wall_s))
            throw where("a sample has a time that is not positive and finite");
    if (r.status == Status::ok && r.samples.empty()) throw where("an ok case without samples");
    return r;
}

}  // namespace

Report read_report_json(std::string_view text, const std::string& origin) {
    json j;
    try {
        j = json::parse(text);
    } catch (const json::exception& e) {  // parse_error, and out_of_range for huge numbers
        throw ResultFormatError(one_line(fmt::format("{}: not JSON ({})", origin, e.what())));
    }
    if (!j.is_object()) throw ResultFormatError(fmt::format("{}: expected a JSON object", origin));
    if (str(j, "schema") != kResultSchema)
        throw ResultFormatError(
            one_line(fmt::format("{}: schema '{}' is not {}", origin, str(j, "schema"), kResultSchema)));
    Report r;
    r.suite = str(j, "suite");
    const auto partial = j.find("partial");
    r.partial = partial != j.end() && partial->is_boolean() && partial->get<bool>();
    if (const auto env = j.find("environment"); env != j.end() && env->is_object()) {
        r.environment.kernel = str(*env, "kernel");
        r.environment.cpu_model = str(*env, "cpu_model");
        r.environment.fs_type = str(*env, "filesystem");
        r.environment.date = str(*env, "date");
        r.environment.commit = str(*env, "commit");
    }
    const auto cases = j.find("cases");
    if (cases == j.end() || !cases->is_array()) throw ResultFormatError(fmt::format("{}: missing cases", origin));
    for (std::size_t i = 0; i < cases->size(); ++i) {
        CaseResult c = read_case((*cases)[i], origin, i);
        finish(c, r.options, 1e-9);
        r.cases.push_back(std::move(c));
    }
    return r;
}

Report read_report_file(const std::string& path) {
    return read_report_json(read_text_file_or_throw<ResultFormatError>(path, "the file"), path);
}

}  // namespace iolab
