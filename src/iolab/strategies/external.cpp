// The system's own tools in the same tables: dd, cat, cp and fio run as child processes on the
// same file, under the same cache state, timed as a process (start-up included: the report
// shows what starting a process costs here).
#include <sys/stat.h>

#include <cerrno>
#include <stdexcept>

#include <fmt/format.h>

#include "iolab/core/process.hpp"
#include "iolab/core/units.hpp"
#include "iolab/strategies/strategy.hpp"
#include "iolab/sys/error.hpp"

namespace iolab {

namespace {

void run_tool(const std::vector<std::string>& argv) {
    const ProcessResult r = run_process(argv);
    if (r.status != 0) {
        std::string first = r.errors.substr(0, r.errors.find('\n'));
        throw std::runtime_error(fmt::format("{} exited with status {}{}{}", argv[0], r.status,
                                             first.empty() ? "" : ": ", first));
    }
}

std::function<std::optional<std::string>(const std::string&)> needs(std::string program, std::string package) {
    return [program, package](const std::string&) -> std::optional<std::string> {
        if (find_program(program)) return std::nullopt;
        return fmt::format("'{}' is not installed (Debian package {})", program, package);
    };
}

Strategy external(std::string name, Family f, std::string desc, unsigned params, std::string program,
                  std::string package, void (*run)(const Job&)) {
    Strategy s;
    s.name = std::move(name);
    s.family = f;
    s.description = std::move(desc);
    s.params = params;
    s.external = true;
    // A tool that only reads leaves nothing to verify; cp's copy is checked like any other.
    s.output_checked = f != Family::read;
    s.in_syscall_layer = false;
    s.unavailable = needs(std::move(program), std::move(package));
    s.run = run;
    return s;
}

void dd_read(const Job& j) {
    std::vector<std::string> argv = {"dd", "if=" + j.src, "of=/dev/null", "bs=" + std::to_string(j.buffer),
                                     "status=none"};
    if (j.direct) argv.push_back("iflag=direct");
    run_tool(argv);
}

void dd_copy(const Job& j) {
    run_tool({"dd", "if=" + j.src, "of=" + j.dst, "bs=" + std::to_string(j.buffer), "conv=excl", "status=none"});
}

void cat_read(const Job& j) { run_tool({"cat", j.src}); }

void cp_copy(const Job& j) {
    // cp --no-clobber skips an existing destination and still exits 0: refuse it here.
    struct stat st {};
    if (::lstat(j.dst.c_str(), &st) == 0) throw IoError(EEXIST, "copy to", j.dst);
    run_tool({"cp", "--no-clobber", j.src, j.dst});
}

void fio_read(const Job& j) {
    struct stat st {};
    if (::stat(j.src.c_str(), &st) != 0) throw IoError(errno, "stat", j.src);
    const auto size = static_cast<std::uint64_t>(st.st_size);
    // fio reads whole blocks only: on any other size it would read less than the others.
    if (size == 0 || size % j.buffer != 0)
        throw CannotRun(fmt::format("fio reads whole {}-byte blocks and the file has {} bytes", j.buffer, size));
    std::vector<std::string> argv = {"fio", "--name=iolab", "--filename=" + j.src, "--rw=read",
                                     "--bs=" + std::to_string(j.buffer), "--size=" + std::to_string(size),
                                     "--invalidate=0",
                                     "--ioengine=" + std::string(j.queue > 1 ? "io_uring" : "psync"),
                                     "--iodepth=" + std::to_string(j.queue), "--output-format=terse"};
    if (j.direct) argv.push_back("--direct=1");
    run_tool(argv);
}

}  // namespace

void register_external_strategies(Registry& r) {
    Strategy dd = external("external.dd", Family::read, "dd if=FILE of=/dev/null bs=N (iflag=direct with --cache direct)",
                           kParamBuffer, "dd", "coreutils", dd_read);
    dd.direct_capable = true;
    r.add(std::move(dd));
    r.add(external("external.cat", Family::read, "cat FILE > /dev/null", 0, "cat", "coreutils", cat_read));
    r.add(external("external.dd-copy", Family::copy, "dd if=SRC of=DST bs=N", kParamBuffer, "dd", "coreutils",
                   dd_copy));
    r.add(external("external.cp", Family::copy, "cp SRC DST (coreutils picks reflink or copy_file_range)", 0, "cp",
                   "coreutils", cp_copy));
    Strategy fio = external("external.fio", Family::read,
                            "fio sequential read, N-byte blocks (psync; io_uring at queue depth Q > 1)",
                            kParamBuffer | kParamQueue, "fio", "fio", fio_read);
    fio.direct_capable = true;
    r.add(std::move(fio));
}

}  // namespace iolab
