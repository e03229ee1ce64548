// The registry: every family file's table, names checked, lookups by name and glob.
#include <fnmatch.h>

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "iolab/core/process.hpp"
#include "iolab/strategies/strategy.hpp"

namespace iolab {

void Registry::add(Strategy s) {
    if (find(s.name)) throw std::logic_error("strategy registered twice: " + s.name);
    strategies_.push_back(std::move(s));
}

void Registry::add(std::span<const StrategyDef> defs) {
    for (const StrategyDef& d : defs) {
        // "read.chunk"; "jvm.read-byte-stream": the family after "jvm.", up to the '-';
        // "files.read-openat": "files-" and the word after "files.", up to the '-'.
        const bool jvm = d.name.starts_with("jvm."), files = d.name.starts_with("files.");
        const std::string_view what = jvm ? d.name.substr(4) : files ? d.name.substr(6) : d.name;
        const std::string word(what.substr(0, what.find(jvm || files ? '-' : '.')));
        const auto family = parse_family(files ? "files-" + word : word);
        if (!family || d.name.find('.') == std::string_view::npos)
            throw std::logic_error(fmt::format("strategy '{}' is not named family.what", d.name));
        Strategy s;
        s.name = d.name;
        s.family = *family;
        s.description = d.description;
        s.jvm = d.jvm;
        s.counterpart = d.counterpart;
        s.bug = d.bug;
        s.params = d.params;
        s.flags = d.flags;
        s.syncs = d.syncs;
        s.run = d.run;
        if (d.decode_output) s.decode_output = d.decode_output;
        if (d.unavailable) s.unavailable = d.unavailable;
        if (d.prepare) s.prepare = d.prepare;
        if (d.teardown) s.teardown = d.teardown;
        if (d.runtime) s.runtime = d.runtime;
        if (!d.program.empty())
            s.unavailable = [program = std::string(d.program), package = d.package](const std::string&) {
                return find_program(program) ? std::nullopt
                                             : std::optional<std::string>(fmt::format(
                                                   "'{}' is not installed (Debian package {})", program, package));
            };
        add(std::move(s));
    }
}

const Strategy* Registry::find(std::string_view name) const {
    for (const auto& s : strategies_)
        if (s.name == name) return &s;
    return nullptr;
}

std::vector<const Strategy*> Registry::match(std::string_view pattern) const {
    const std::string p(pattern);
    std::vector<const Strategy*> out;
    for (const auto& s : strategies_)
        if (::fnmatch(p.c_str(), s.name.c_str(), 0) == 0) out.push_back(&s);
    return out;
}

std::vector<std::string> Registry::closest(std::string_view name, std::size_t n) const {
    std::vector<std::string> names;
    for (const auto& s : strategies_) names.push_back(s.name);
    return closest_names(name, names, n);
}

const Registry& Registry::builtin() {
    static const Registry r = [] {
        Registry reg;
        register_read_strategies(reg);
        register_write_strategies(reg);
        register_copy_strategies(reg);
        register_direct_strategies(reg);
        register_vectored_strategies(reg);
        register_uring_strategies(reg);
        register_pipelined_strategies(reg);
        register_chain_strategies(reg);
        register_external_strategies(reg);
        register_patterned_strategies(reg);
        register_durable_strategies(reg);
        register_files_strategies(reg);
        register_replace_strategies(reg);
        register_jvm_strategies(reg);
        return reg;
    }();
    return r;
}

}  // namespace iolab
