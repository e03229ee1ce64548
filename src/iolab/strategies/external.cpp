// The system's own tools in the same tables: dd, cat, cp and fio run as child processes on the
// same file, under the same cache state, timed as a process; the harness takes away each tool's
// fixed cost (the same command on a one-page input), and shows beside it the time the tool
// reports for its own work where it reports one (dd's closing line, fio's JSON).
#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "iolab/core/process.hpp"
#include "iolab/core/text_file.hpp"
#include "iolab/core/units.hpp"
#include "iolab/strategies/strategy.hpp"
#include "iolab/sys/error.hpp"

namespace iolab {

namespace {

// The tool's view of the job's files: a file of iolab's scratch folder (held by descriptor) is
// named relative to the folder, where the tool runs; any other file (--input) by its path.
struct ToolFiles {
    int cwd_fd = -1;
    std::string src, dst;
};

ToolFiles tool_files(const Job& j) {
    ToolFiles t{-1, j.src, j.dst};
    for (std::string* p : {&t.src, &t.dst})
        if (const auto split = split_fd_path(*p)) {
            t.cwd_fd = split->first;
            *p = "./" + split->second;  // never read as an option
        }
    return t;
}

ProcessResult run_tool(const std::vector<std::string>& argv, int cwd_fd, const std::string& stdout_path = "/dev/null") {
    ProcessResult r = run_process(argv, stdout_path, cwd_fd);
    if (r.status != 0) {
        std::string first = r.errors.substr(0, r.errors.find('\n'));
        throw std::runtime_error(
            fmt::format("{} exited with status {}{}{}", argv[0], r.status, first.empty() ? "" : ": ", first));
    }
    return r;
}

// dd's closing line on stderr begins with the bytes it copied ("67108864 bytes (67 MB, ...)
// copied"); 0 when there is no such line.
std::uint64_t dd_bytes(const std::string& errors) {
    std::string last;
    for (std::size_t start = 0; start < errors.size();) {
        const std::size_t nl = std::min(errors.find('\n', start), errors.size());
        if (nl > start) last = errors.substr(start, nl - start);
        start = nl + 1;
    }
    std::uint64_t n = 0;
    std::size_t i = 0;
    for (; i < last.size() && last[i] >= '0' && last[i] <= '9'; ++i) n = n * 10 + static_cast<unsigned>(last[i] - '0');
    return i > 0 && i < 20 ? n : 0;
}

// The seconds in dd's closing line ("... copied, 0.0121646 s, 5.5 GB/s", in the C locale), or -1.
double dd_seconds(const std::string& errors) {
    const std::size_t end = errors.rfind(" s, ");
    if (end == std::string::npos) return -1;
    const std::size_t begin = errors.rfind(", ", end);
    if (begin == std::string::npos) return -1;
    const std::string number = errors.substr(begin + 2, end - begin - 2);
    char* stop = nullptr;
    const double s = std::strtod(number.c_str(), &stop);
    return stop && *stop == '\0' && s >= 0 && std::isfinite(s) ? s : -1;
}

void report_time(const Job& j, double seconds) {
    if (j.tool.seconds && seconds >= 0) *j.tool.seconds = seconds;
}

// Each pass's bytes, where the passes read them all; what was read otherwise (which fails).
std::uint64_t per_pass(std::uint64_t bytes, unsigned passes) {
    passes = std::max(1u, passes);
    return bytes % passes == 0 ? bytes / passes : bytes;
}

void dd_read(const Job& j) {
    // dd's own count of the bytes it read is checked (status=noxfer would drop it). Its passes are
    // one read of an input that many times as long, made by the harness (kLongInput).
    const ToolFiles f = tool_files(j);
    std::vector<std::string> argv = {"dd", "if=" + f.src, "of=/dev/null", "bs=" + std::to_string(j.buffer)};
    if (j.direct) argv.push_back("iflag=direct");
    const std::string said = run_tool(argv, f.cwd_fd).errors;
    j.sink->count_only(per_pass(dd_bytes(said), j.tool.passes));
    report_time(j, dd_seconds(said));
}

void dd_copy(const Job& j) {
    const ToolFiles f = tool_files(j);
    const std::string said =
        run_tool({"dd", "if=" + f.src, "of=" + f.dst, "bs=" + std::to_string(j.buffer), "conv=excl"}, f.cwd_fd).errors;
    report_time(j, dd_seconds(said));
}

void cat_read(const Job& j) {
    // Its passes: the file named that many times, read in one process.
    const ToolFiles f = tool_files(j);
    std::vector<std::string> argv = {"cat"};
    for (unsigned i = 0; i < std::max(1u, j.tool.passes); ++i) argv.push_back(f.src);
    run_tool(argv, f.cwd_fd);
}

void cp_copy(const Job& j) {
    // cp --no-clobber skips an existing destination and still exits 0: refuse it here.
    struct stat st {};
    if (::lstat(j.dst.c_str(), &st) == 0) throw IoError(EEXIST, "copy to", j.dst);
    const ToolFiles f = tool_files(j);
    run_tool({"cp", "--no-clobber", f.src, f.dst}, f.cwd_fd);
}

void fio_read(const Job& j) {
    struct stat st {};
    if (::stat(j.src.c_str(), &st) != 0) throw IoError(errno, "stat", j.src);
    const auto size = static_cast<std::uint64_t>(st.st_size);
    // fio reads whole blocks only: on any other size it would read less than the others.
    if (size == 0 || size % j.buffer != 0)
        throw CannotRun(fmt::format("fio reads whole {}-byte blocks and the file has {} bytes", j.buffer, size));
    const ToolFiles f = tool_files(j);
    std::vector<std::string> argv = {
        "fio", "--name=iolab", "--filename=" + f.src, "--rw=read", "--bs=" + std::to_string(j.buffer),
        "--size=" + std::to_string(size), "--invalidate=0",
        // fio notices that its job ended in steps of 10 ms: repeated
        // passes make the job long enough for those to be small.
        "--loops=" + std::to_string(std::max(1u, j.tool.passes)),
        "--ioengine=" + std::string(j.queue > 1 ? "io_uring" : "psync"),
        // Page-aligned buffers, as iolab's and dd's are: at fio's default
        // alignment a warm 64 MiB read measured 1.8x slower (docs/harness.md).
        "--iomem_align=4096", "--iodepth=" + std::to_string(j.queue), "--output-format=json", "--output=" + f.dst};
    if (j.direct) argv.push_back("--direct=1");
    run_tool(argv, f.cwd_fd);
    // fio's own count of the bytes it read, from its JSON report (written to the job's output
    // path, which a read does not otherwise use).
    const auto text = read_text_file(j.dst);
    const auto report = nlohmann::json::parse(text ? *text : std::string(), nullptr, false);
    std::uint64_t bytes = 0;
    double runtime_ms = -1;
    try {
        const auto& read = report.at("jobs").at(0).at("read");
        bytes = read.at("io_bytes").get<std::uint64_t>();
        runtime_ms = read.at("runtime").get<double>();
    } catch (const nlohmann::json::exception&) {
        bytes = 0;
    }
    j.sink->count_only(per_pass(bytes, j.tool.passes));
    report_time(j, runtime_ms >= 0 ? runtime_ms / 1000 : -1);
}

// The tools are named by what they do (read.dd, copy.cp); dd and fio report the bytes they read,
// which is checked; cat leaves nothing to check; cp's copy is checked like any other.
// One entry per row, fields in declaration order.
// clang-format off
constexpr StrategyDef kTools[] = {
    {.name = "read.dd", .params = kParamBuffer, .flags = kTool | kOnlyReads | kDirect | kRepeats | kLongInput, .run = dd_read,
     .description = "dd if=FILE of=/dev/null bs=N (iflag=direct with --cache direct)",
     .program = "dd", .package = "coreutils"},
    {.name = "read.cat", .flags = kTool | kOnlyReads | kRepeats, .run = cat_read,
     .description = "cat FILE > /dev/null", .program = "cat", .package = "coreutils"},
    {.name = "read.fio", .params = kParamBuffer | kParamQueue, .flags = kTool | kOnlyReads | kDirect | kRepeats, .run = fio_read,
     .description = "fio sequential read, N-byte blocks (psync; io_uring at queue depth Q > 1)",
     .program = "fio", .package = "fio"},
    {.name = "copy.dd", .params = kParamBuffer, .flags = kTool, .run = dd_copy,
     .description = "dd if=SRC of=DST bs=N", .program = "dd", .package = "coreutils"},
    {.name = "copy.cp", .flags = kTool, .run = cp_copy,
     .description = "cp SRC DST (coreutils picks reflink or copy_file_range)", .program = "cp", .package = "coreutils"},
};
// clang-format on

}  // namespace

void register_external_strategies(Registry& r) { r.add(kTools); }

}  // namespace iolab
