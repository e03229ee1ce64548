// The iolab command: a thin layer over the library.
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "iolab/core/scratch.hpp"
#include "iolab/strategies/strategy.hpp"

namespace {

int list_strategies(const std::string& family_filter, bool names_only) {
    std::optional<iolab::Family> family;
    if (!family_filter.empty()) {
        family = iolab::parse_family(family_filter);
        if (!family) {
            fmt::print(stderr, "iolab: unknown family '{}': expected read, write or copy\n", family_filter);
            return 2;
        }
    }
    const std::string dir = iolab::default_scratch_parent();
    for (const auto& s : iolab::Registry::builtin().all()) {
        if (family && s.family != *family) continue;
        if (names_only) {
            fmt::print("{}\n", s.name);
            continue;
        }
        const auto why = s.skip_reason(dir);
        fmt::print("{:<6} {:<32} {}\n", iolab::to_string(s.family), s.name, s.description);
        if (!s.jvm.empty()) fmt::print("{:<6} {:<32}   like {}\n", "", "", s.jvm);
        fmt::print("{:<6} {:<32}   {}\n", "", "", why ? "skipped here: " + *why : std::string("available"));
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"iolab: measure the ways to read, write and copy files, honestly"};
    app.require_subcommand(1);

    std::string family;
    bool names = false;
    auto* list = app.add_subcommand("list", "List the strategies, with availability here");
    list->add_option("--family", family, "Only this family: read, write or copy");
    list->add_flag("--names", names, "One name per line");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }
    try {
        if (list->parsed()) return list_strategies(family, names);
    } catch (const std::exception& e) {
        fmt::print(stderr, "iolab: {}\n", e.what());
        return 1;
    }
    return 0;
}
