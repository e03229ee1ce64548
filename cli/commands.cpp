// The small commands.
#include "commands.hpp"

#include "common.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include <filesystem>

#include "iolab/core/interrupt.hpp"
#include "iolab/core/units.hpp"
#include "iolab/harness/params.hpp"
#include "iolab/io/profile.hpp"
#include "iolab/io/whole_file.hpp"
#include "iolab/report/analysis/tune.hpp"
#include "iolab/report/exporter.hpp"
#include "iolab/report/output_file.hpp"
#include "iolab/report/read/read.hpp"
#include "iolab/session/session.hpp"
#include "iolab/suite/suite.hpp"
#include "iolab/sys/cgroup.hpp"
#include "iolab/sys/io.hpp"
#include "run_options.hpp"

namespace iolab::cli {

// The settings a strategy takes (iolab run --KEY): the parameter table's rows it takes.
std::string settings_taken(const Strategy& s) {
    std::vector<std::string> keys;
    for (const Parameter& p : parameters())
        if (p.setting() && p.takes != 0 && p.taken_by(s)) keys.push_back(setting_name(p.key, Syntax::command_line));
    if (s.byte_at_a_time()) keys.push_back("--byte-slice");
    return keys.empty() ? "--size only" : fmt::format("{}", fmt::join(keys, " "));
}

int list_strategies(const std::string& family_filter, bool names_only) {
    std::optional<Family> family;
    // "jvm": the published methods run in the JVM (docs/jvm.md); "files": the four of trees.
    const bool jvm_only = family_filter == "jvm", trees = family_filter == "files";
    if (!family_filter.empty() && !jvm_only && !trees) {
        family = parse_family(family_filter);
        if (!family)
            throw InputError(
                fmt::format("unknown family '{}': expected {}; or files, or jvm", family_filter, family_names()));
    }
    const std::string dir = default_scratch_parent();
    bool first = true;
    for (const FamilyRow& row : kFamilyRows) {
        const Family f = row.family;
        if ((family && f != *family) || (trees && !is_tree(f))) continue;
        std::vector<const Strategy*> of;
        for (const auto& s : Registry::builtin().all())
            if (s.family == f && (!jvm_only || s.worker())) of.push_back(&s);
        if (names_only) {
            for (const Strategy* s : of) fmt::print("{}\n", s->name);
            continue;
        }
        std::size_t here = 0;
        for (const Strategy* s : of) here += !s->skip_reason(dir);
        if (of.empty()) continue;
        fmt::print("{}{} ({} strategies, {} available here)\n", first ? "" : "\n", to_string(f), of.size(), here);
        first = false;
        for (const Strategy* s : of) {
            fmt::print("  {:<30} {}\n", s->name, s->description);
            if (!s->jvm.empty()) fmt::print("  {:<30}   {} {}\n", "", s->worker() ? "runs" : "like", s->jvm);
            fmt::print("  {:<30}   settings: {}\n", "", settings_taken(*s));
            if (const auto why = s->skip_reason(dir)) fmt::print("  {:<30}   skipped here: {}\n", "", *why);
        }
    }
    return 0;
}

int show_info(const std::string& dir, bool limits, bool device, const std::string& device_size) {
    const Environment e = collect_environment(checked_dir(dir));
    fmt::print("iolab         {} (commit {}, {} build, {})\n", e.iolab_version, e.commit, e.build_type, e.compiler);
    fmt::print("kernel        Linux {}\n", e.kernel);
    fmt::print("cpu           {} x {}\n", e.cpus, e.cpu_model);
    fmt::print("memory        {}\n", format_size(e.memory_bytes));
    fmt::print("scratch       {} ({}, {})\n", e.scratch_dir, e.fs_type.empty() ? "unknown" : e.fs_type,
               e.mount_options);
    fmt::print("device        {}{}{}\n", e.device.empty() ? "none" : e.device,
               e.device_model.empty() ? "" : " (" + e.device_model + ")",
               e.rotational < 0 ? "" : (e.rotational ? ", rotational" : ", non-rotational"));
    fmt::print("date          {}\n", e.date);
    if (limits) {
        // The ceilings of a 64 MiB file's reads and copies (iolab run's default size).
        constexpr std::uint64_t kSize = 64ull << 20;
        std::vector<CeilingKey> keys;
        for (std::size_t buffer : {std::size_t{4} << 10, std::size_t{64} << 10, std::size_t{1} << 20})
            keys.push_back({LimitKind::memcpy_into_buffer, kSize, buffer});
        keys.push_back({LimitKind::scan, kSize, 0});
        keys.push_back({LimitKind::memcpy, kSize, 0});
        keys.push_back({LimitKind::byte_loop, 1ull << 20, 0});
        std::string where;
        if (device) {
            std::uint64_t size = 1ull << 30;
            if (!device_size.empty()) size = parse_size(device_size);
            if (size == 0) throw InputError("invalid --size '0': expected a size of at least 1 byte");
            where = checked_dir(dir);
            if (free_space(where) < size + (16ull << 20))
                throw InputError(
                    fmt::format("not enough free space in '{}' for a {} test file", where, format_size(size)));
            keys.push_back({LimitKind::device, size, 0});
        }
        for (const Ceiling& c : measure_limits(keys, where.empty() ? checked_dir(dir) : where).ceilings)
            fmt::print("limit         {}: {}\n", c.key.describe(),
                       c.mib_s > 0 ? fmt::format("{:.0f} MiB/s", c.mib_s) : "not measured: " + c.note);
    }
    return 0;
}

int list_suites() {
    for (const auto& name : builtin_suite_names()) {
        const Suite s = load_named(name);
        fmt::print("{:<16} {}\n", name, s.description);
    }
    return 0;
}

// iolab clean: removes the scratch folders that killed runs left (only those proven iolab's,
// only unlocked; kept ones with --kept), names every other iolab.* folder and why it stays, and
// removes the memory cgroups of runs that are gone.
int clean(const std::string& parent, bool kept) {
    const std::string dir = checked_dir(parent);
    std::size_t removed = 0, left = 0;
    for (const auto& f : survey_scratch(dir, true, kept)) {
        const std::string owner = f.owner.empty() ? "" : " (" + f.owner + ")";
        switch (f.state) {
            case ScratchFolder::State::stale:
            case ScratchFolder::State::kept:
                if (f.removed) {
                    ++removed;
                    fmt::print("removed {}{}\n", one_line(f.path), one_line(owner));
                } else if (f.state == ScratchFolder::State::kept && !kept) {
                    fmt::print("kept    {}{}: kept by --keep; 'iolab clean --kept' removes it\n", one_line(f.path),
                               one_line(owner));
                } else {
                    ++left;
                    fmt::print(
                        "left    {}{}: it could not be removed whole: {} (what is left, and the proof that it "
                        "is iolab's, stay for the next clean)\n",
                        one_line(f.path), one_line(owner), fmt::join(f.left, ", "));
                }
                break;
            case ScratchFolder::State::in_use: fmt::print("in use  {}{}\n", one_line(f.path), one_line(owner)); break;
            case ScratchFolder::State::foreign:
                fmt::print("not iolab's, not touched: {}: {}\n", one_line(f.path), one_line(f.why));
                break;
        }
    }
    for (const auto& cg : sys::MemoryCgroup::remove_dead()) {
        ++removed;
        fmt::print("removed cgroup {}\n", one_line(cg));
    }
    if (removed == 0 && left == 0) fmt::print("nothing to remove in {}\n", one_line(dir));
    return left > 0 ? 1 : 0;
}

int show_reports(const std::vector<std::string>& files, const std::string& html, bool force, bool all) {
    if (!html.empty()) check_output_paths({{"--html", html}}, force, files);
    std::vector<Report> reports;
    for (const auto& f : files) reports.push_back(read_report_file(f));
    if (html.empty()) {
        for (std::size_t i = 0; i < files.size(); ++i)
            fmt::print("{}{}\n{}", i ? "\n" : "", one_line(files[i]),
                       render_terminal(reports[i], terminal_options(all)));
        return 0;
    }
    // Each run is named by its file: the base name, or the whole path where two share one.
    std::vector<std::string> names;
    for (const auto& f : files) {
        const std::string base = f.substr(f.rfind('/') + 1);
        const bool shared = std::count_if(files.begin(), files.end(),
                                          [&](const std::string& g) { return g.substr(g.rfind('/') + 1) == base; }) > 1;
        std::string name = one_line(shared ? f : base);
        // The same file twice: told apart by its place.
        const auto seen = std::count(names.begin(), names.end(), name);
        const auto earlier =
            std::count_if(names.begin(), names.end(), [&](const std::string& n) { return n.starts_with(name + " ("); });
        if (seen > 0) name += fmt::format(" ({})", earlier + 2);
        names.push_back(name);
    }
    std::vector<const Report*> runs;
    for (const auto& r : reports) runs.push_back(&r);
    write_file_atomically(html, to_html(runs, names), force);
    return 0;
}

}  // namespace iolab::cli

namespace iolab::cli {

namespace {

// Where tune writes the profile (empty: nowhere, for a smoke run), checked before anything is
// measured.
std::string profile_destination(const std::string& out_option, bool smoke) {
    // A smoke run's figures are not worth keeping: it writes only where --profile says.
    const std::string out = !out_option.empty() ? out_option : smoke ? std::string() : profile_path();
    if (!smoke && out.empty())
        throw InputError("no home folder to keep the profile in: set XDG_CONFIG_HOME or give --profile FILE");
    if (out.empty()) return out;
    struct stat o {};
    // Not followed: a link is replaced by nothing, whatever it points to.
    if (::lstat(out.c_str(), &o) == 0 && !S_ISREG(o.st_mode))
        throw InputError(one_line(fmt::format("invalid --profile '{}': it exists and is not a regular file{}", out,
                                              S_ISLNK(o.st_mode) ? " (a symbolic link)" : "")));
    // A file on a kernel filesystem is refused as a result's would be (the folder may be new).
    const auto folder = std::filesystem::path(out).parent_path();
    if (folder.empty() || ::stat(folder.c_str(), &o) == 0) check_output_paths({{"--profile", out}}, true);
    if (!folder.empty() && ::stat(folder.c_str(), &o) == 0 && !S_ISDIR(o.st_mode))
        throw InputError(fmt::format("invalid --profile '{}': '{}' is not a folder", out, folder.string()));
    return out;
}

void print_profile(const Report& report, const Profile& p, const std::string& dir) {
    fmt::print("{}", render_terminal(report, terminal_options(false)));
    fmt::print("\nprofile for files on {} ({}):\n", one_line(dir), one_line(p.filesystem));
    for (const auto& [key, c] : p.choices)
        fmt::print("  {:<12} {:<16} {:>10}  {:.1f} MiB/s\n", key, c.method,
                   c.buffer ? format_size(c.buffer) : std::string("whole file"), c.mib_s);
    if (p.read_buffer) fmt::print("  {:<12} {}\n", "buffer.read", format_size(p.read_buffer));
    if (p.write_buffer) fmt::print("  {:<12} {}\n", "buffer.write", format_size(p.write_buffer));
}

// Whether a profile read back says what p says.
bool same_profile(const Profile& back, const Profile& p) {
    if (!back.usable() || back.device != p.device || back.read_buffer != p.read_buffer ||
        back.write_buffer != p.write_buffer || back.choices.size() != p.choices.size())
        return false;
    for (const auto& [key, c] : p.choices)
        if (const auto it = back.choices.find(key);
            it == back.choices.end() || it->second.method != c.method || it->second.buffer != c.buffer)
            return false;
    return true;
}

// Writes the profile to out, in a private folder when it is new; what the library will make of it
// is checked before it is written, and after.
void write_profile(const Profile& p, const std::string& out) {
    std::error_code ec;
    const auto folder = std::filesystem::path(out).parent_path();
    const mode_t mask = ::umask(077);
    std::filesystem::create_directories(folder.empty() ? "." : folder, ec);
    ::umask(mask);
    if (ec) throw IoError(ec.value(), "create the folder", folder.string());
    if (const Profile back = parse_profile(p.text(), out); !same_profile(back, p))
        throw std::runtime_error(one_line(fmt::format("the profile would not read back as measured ({}): not written",
                                                      back.ignored.empty() ? "it differs" : back.ignored)));
    write_file_atomic(out, p.text());
    if (const Profile back = load_profile(out); !same_profile(back, p))
        throw std::runtime_error(one_line(fmt::format("the profile written to {} does not read back as measured ({})",
                                                      out, back.ignored.empty() ? "it differs" : back.ignored)));
}

// The library reads the profile at profile_path() only (however the path was spelt).
void tell_where(const std::string& out) {
    struct stat here {
    }, read_by_library{};
    if (!profile_path().empty() && ::stat(out.c_str(), &here) == 0 &&
        ::stat(profile_path().c_str(), &read_by_library) == 0 && here.st_dev == read_by_library.st_dev &&
        here.st_ino == read_by_library.st_ino)
        fmt::print(
            "profile written to {} and read back: read_file, copy_file and the buffered classes of iolab::io use "
            "it for files on this filesystem\n",
            one_line(out));
    else
        fmt::print("profile written to {} and read back; the library reads {}, so it is not in use there\n",
                   one_line(out), one_line(profile_path().empty() ? std::string("no profile") : profile_path()));
}

}  // namespace

int tune(const std::string& dir_option, const std::string& out_option, bool smoke, bool quiet) {
    const std::string dir = checked_dir(dir_option);
    const std::string out = profile_destination(out_option, smoke);
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) throw IoError(errno, "inspect", dir);
    Suite suite = builtin_suite("tune");
    if (smoke) make_smoke(suite);
    const Session session(std::move(suite));
    session.check_memory();
    session.check_space(dir);
    SessionSettings settings;
    settings.scratch_parent = dir;
    settings.limits = false;
    settings.peers = false;
    const Report report(session.run(settings));
    if (report.partial) {
        fmt::print(stderr, "iolab: interrupted: no profile written\n");
        return 128 + interrupt::signal_received();
    }
    std::vector<std::string> notes;
    const Profile p =
        profile_from(report, std::filesystem::absolute(dir).lexically_normal().string(), st.st_dev, &notes);
    if (p.choices.empty()) throw std::runtime_error("no case of the tune suite was verified: no profile written");
    if (!quiet) {
        print_profile(report, p, dir);
        // Under noise a choice is one of a larger winner group: the others are said.
        for (const auto& n : notes) fmt::print("  {}\n", one_line(n));
    }
    if (out.empty()) {
        fmt::print("--smoke: no profile written (give --profile FILE to write one anyway)\n");
        return report.any_failed() ? 1 : 0;
    }
    write_profile(p, out);
    tell_where(out);
    return report.any_failed() ? 1 : 0;
}

}  // namespace iolab::cli
