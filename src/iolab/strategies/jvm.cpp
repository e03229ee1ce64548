// The methods the five published experiments timed, run on the JVM they were written for: each
// row is a method of jvm/iolab/worker/Methods.java, run by a worker process that stays up for the
// group (strategies/jvm.hpp). The harness times each run from outside, as every strategy, and
// takes away the round trip of an empty request; reads prove what they read with iolab's own
// sampled fingerprint and byte sums (ported to Java), or CRC-32 when every byte is checked.
#include "iolab/strategies/jvm.hpp"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "iolab/chain/chain.hpp"
#include "iolab/core/process.hpp"
#include "iolab/core/text_file.hpp"
#include "iolab/core/units.hpp"
#include "iolab/core/worker.hpp"

#ifndef IOLAB_WORKER_JAR
#define IOLAB_WORKER_JAR ""
#endif

namespace iolab {

namespace {

constexpr double kStartDeadline = 60;  // a JVM starts in well under a second; a busy machine is slow

struct Holder {
    std::mutex mutex;
    std::unique_ptr<Worker> worker;
    pid_t owner = 0;  // the process that started it (a fork has its own)
    int keep_fd = -1;
    std::pair<dev_t, ino_t> folder{};  // what keep_fd was when the worker started (a number is reused)
    std::uint64_t heap = 0;
    std::string version;
    std::vector<std::string> test_argv;
    // Why the worker did not start in this group, once it failed to: the group's other JVM cases
    // are skipped with it (each start could take the whole start deadline again).
    std::string failed_start;
};

// Never destroyed: a worker left at exit is killed with iolab (its death signal).
Holder& holder() {
    static Holder* h = new Holder;
    return *h;
}

// The Java installation behind `java` in PATH: its `release` file's JAVA_VERSION ("17.0.15") and
// JAVA_RUNTIME_VERSION, read without starting a JVM; empty when there is no such file.
struct JavaRelease {
    std::string version, runtime;
};
JavaRelease java_release() {
    JavaRelease r;
    const auto java = find_program("java");
    if (!java) return r;
    char real[PATH_MAX];
    if (!::realpath(java->c_str(), real)) return r;
    std::string home(real);
    for (int up = 0; up < 2 && home.rfind('/') != std::string::npos; ++up) home.erase(home.rfind('/'));  // bin/java
    const auto text = read_text_file(home + "/release");
    if (!text) return r;
    const auto value = [&](const std::string& key) {
        std::istringstream lines(*text);
        for (std::string line; std::getline(lines, line);)
            if (line.starts_with(key + "=\"") && line.size() > key.size() + 2)
                return line.substr(key.size() + 2, line.find('"', key.size() + 2) - key.size() - 2);
        return std::string();
    };
    r.version = value("JAVA_VERSION");
    r.runtime = value("JAVA_RUNTIME_VERSION");
    return r;
}

// The major version of the Java behind `java` (17 of "17.0.15", 8 of "1.8.0_392"); 0: not known.
int java_major() {
    const std::string v = java_release().version;
    int major = std::atoi(v.c_str());
    if (major == 1 && v.size() > 2) major = std::atoi(v.c_str() + 2);
    return major;
}

// The folder descriptor a job's paths go through (/proc/self/fd/N/NAME), or -1.
int folder_fd(const Job& j) {
    for (const std::string* p : {&j.src, &j.dst})
        if (const auto split = split_fd_path(*p)) return split->first;
    return -1;
}

std::pair<dev_t, ino_t> identity(int fd) {
    struct stat st {};
    if (fd < 0 || ::fstat(fd, &st) != 0) return {};
    return {st.st_dev, st.st_ino};
}

// The worker's environment: iolab's, without what would change the JVM behind the recorded command
// line (options taken from the environment, logging to its standard output, which is the protocol)
// and with file names in UTF-8 whatever the locale.
std::vector<std::string> worker_environment() {
    std::vector<std::string> env{"LC_ALL=C.UTF-8"};
    for (char** e = environ; e && *e; ++e) {
        const std::string_view v(*e);
        bool drop = false;
        for (const std::string_view name :
             {"JAVA_TOOL_OPTIONS=", "JDK_JAVA_OPTIONS=", "_JAVA_OPTIONS=", "LC_ALL=", "LANG=", "LC_CTYPE="})
            drop = drop || v.starts_with(name);
        if (!drop) env.emplace_back(v);
    }
    return env;
}

// The worker for this job, started (and greeted) if there is none for its folder and heap.
Worker& worker_for(Holder& h, const Job& j) {
    const int fd = folder_fd(j);
    const auto folder = identity(fd);
    if (h.owner != ::getpid()) {
        if (h.worker) h.worker->abandon();  // the parent's
        h.worker.reset();
        h.failed_start.clear();
    }
    if (!h.failed_start.empty()) throw CannotRun(h.failed_start);
    if (h.worker && h.worker->running() && h.keep_fd == fd && h.folder == folder && h.heap == j.worker.heap)
        return *h.worker;
    h.worker.reset();
    h.worker = std::make_unique<Worker>(h.test_argv.empty() ? jvm_command(j.worker.heap) : h.test_argv, fd,
                                        worker_environment());
    h.owner = ::getpid();
    h.keep_fd = fd;
    h.folder = folder;
    h.heap = j.worker.heap;
    // A start that fails, however it fails (no greeting within the deadline, an end, a wrong
    // greeting), is remembered for the group's other cases.
    const auto failed = [&h](const std::string& why) {
        h.worker.reset();
        h.failed_start = why + " (in an earlier case of this group)";
        return WorkerFailed(why);
    };
    std::string hello;
    try {
        hello = h.worker->greeting(std::max(kStartDeadline, j.worker.deadline_s));
    } catch (const WorkerFailed& e) {
        throw failed(fmt::format("the JVM worker did not start: {}", e.what()));
    }
    if (!hello.starts_with("ready ")) {
        // A JVM that cannot start says why in lines of '#' ("# There is insufficient memory ..."),
        // on its standard output: the first line that says something. One that crashed says only
        // '#' lines and ends: how it ended is the reason.
        std::string ended;
        for (int more = 0; more < 8 && hello.find_first_not_of("# ") == std::string::npos; ++more) {
            try {
                hello = h.worker->greeting(1);
            } catch (const WorkerFailed& e) {
                ended = e.what();
                break;
            }
        }
        throw failed(!ended.empty() && hello.find_first_not_of("# ") == std::string::npos
                         ? fmt::format("the JVM worker did not start: {}", ended)
                         : fmt::format("the JVM worker did not start: it said '{}', where 'ready ...' was expected",
                                       one_line(hello.substr(0, 300))));
    }
    h.version = hello.substr(6);
    return *h.worker;
}

// A value of a request: percent-encoded where it holds a space, '%' or a byte outside ASCII.
std::string encode(std::string_view v) {
    std::string out;
    for (const char c : v) {
        const auto u = static_cast<unsigned char>(c);
        if (u <= 0x20 || u >= 0x7f || c == '%')
            out += fmt::format("%{:02X}", u);
        else
            out += c;
    }
    return out;
}

// Asks and returns the answer; an answer that is garbage ends the worker.
std::string ask(Holder& h, const Job& j, const std::string& request) {
    return worker_for(h, j).ask(request, j.worker.deadline_s);
}

[[noreturn]] void garbage(Holder& h, const std::string& request, const std::string& answer) {
    h.worker.reset();  // what it does next cannot be trusted
    const std::string verb = request.substr(0, request.find(' '));
    throw WorkerFailed(fmt::format("the JVM worker answered '{}' to '{}', which is not an answer to it; it was ended",
                                   answer.substr(0, 200), verb));
}

// "key=value" words of an answer.
std::optional<std::string_view> word(std::string_view answer, std::string_view key) {
    for (std::size_t at = 0; at < answer.size();) {
        const std::size_t end = std::min(answer.find(' ', at), answer.size());
        const std::string_view w = answer.substr(at, end - at);
        if (w.size() > key.size() && w.starts_with(key) && w[key.size()] == '=') return w.substr(key.size() + 1);
        at = end + 1;
    }
    return std::nullopt;
}

std::optional<std::uint64_t> number(std::optional<std::string_view> w, int base = 10) {
    if (!w || w->empty()) return std::nullopt;
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(w->data(), w->data() + w->size(), v, base);
    if (ec != std::errc() || end != w->data() + w->size()) return std::nullopt;
    return v;
}

// A read's proof into the sink: what the request's mode asked for, and only that. False: none.
bool take_proof(const Job& j, std::string_view answer) {
    const auto bytes = number(word(answer, "bytes"));
    if (!bytes) return false;
    if (j.sink->mode() == VerifyMode::full) {
        const auto crc = number(word(answer, "crc"), 16);
        if (!crc || *crc > 0xffffffffu) return false;
        j.sink->take_crc32(static_cast<std::uint32_t>(*crc), *bytes);
        return true;
    }
    if (const auto fp = number(word(answer, "fp"), 16)) {
        j.sink->take_fingerprint(*fp, *bytes);
        return true;
    }
    const auto sums = word(answer, "sums");
    if (!sums) return false;
    const std::size_t a = sums->find(','), b = sums->find(',', a + 1);
    if (a == std::string_view::npos || b == std::string_view::npos) return false;
    const auto count = number(sums->substr(0, a)), s1 = number(sums->substr(a + 1, b - a - 1)),
               s2 = number(sums->substr(b + 1));
    if (!count || !s1 || !s2 || *count != *bytes) return false;
    j.sink->consume_sums(ByteSums{*count, *s1, *s2});
    return true;
}

// The chain in the worker's words: sizes in bytes ("buffer:8192>deflate:6>file").
std::string worker_chain(const std::string& text) {
    std::string out;
    for (const LayerSpec& l : parse_chain(text)) {
        switch (l.kind) {
            case LayerSpec::Kind::buffer: out += fmt::format("buffer:{}>", l.size); break;
            case LayerSpec::Kind::deflate: out += fmt::format("deflate:{}>", l.level); break;
            case LayerSpec::Kind::file: out += "file"; break;
            default: throw CannotRun("the JDK has no zstd or lz4 stream: the JVM's chains take buffer and deflate");
        }
    }
    return out;
}

// Whether a name is UTF-8 (the worker's file names are).
bool utf8(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (n == 0 || i + n > s.size()) return false;
        for (std::size_t k = 1; k < n; ++k)
            if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return false;
        i += n;
    }
    return true;
}

std::string run_request(const Job& j, std::string_view method) {
    for (const std::string* p : {&j.src, &j.dst})
        if (!utf8(*p)) throw CannotRun(fmt::format("the JVM names files in UTF-8, and '{}' is not", one_line(*p)));
    std::string r = fmt::format("run method={} buffer={} queue={}", method, j.buffer, j.queue);
    if (!j.src.empty()) r += " src=" + encode(j.src);
    if (!j.dst.empty()) r += " dst=" + encode(j.dst);
    if (j.family == Family::read) r += fmt::format(" verify={}", to_string(j.sink->mode()));
    if (const auto* w = j.values_if<RecordValues>(); w && !w->chain.empty())
        r += fmt::format(" chain={} feed={}", worker_chain(w->chain), w->feed_bytes ? "bytes" : "records");
    return r;
}

}  // namespace

void run_jvm_method(const Job& j, std::string_view method) {
    Holder& h = holder();
    std::lock_guard lock(h.mutex);
    if (j.worker.empty) {
        if (const std::string a = ask(h, j, "ping"); a != "pong") garbage(h, "ping", a);
        return;
    }
    const std::string request = run_request(j, method);
    const std::string answer = ask(h, j, request);
    if (answer.starts_with("cannot ")) throw CannotRun(answer.substr(7));
    if (answer.starts_with("error ")) throw std::runtime_error("the JVM method failed: " + answer.substr(6));
    const auto ns = number(word(answer, "ns"));
    if (!answer.starts_with("done ") || !ns) garbage(h, request, answer);
    if (j.family == Family::read && !take_proof(j, answer)) garbage(h, request, answer);
    if (j.tool.seconds) *j.tool.seconds = static_cast<double>(*ns) / 1e9;
}

void prepare_jvm(const Job& j) {
    Holder& h = holder();
    std::lock_guard lock(h.mutex);
    if (const std::string a = ask(h, j, "gc"); a != "ok") garbage(h, "gc", a);
    if (j.family != Family::write || !j.records) return;
    const Records& rec = *j.records;
    const DataSpec& d = rec.spec();
    const std::string kind(name_of(kDataKinds, d.kind));
    const std::string request = fmt::format("prepare data={} ratio={} seed={} record={} count={}", kind, d.ratio,
                                            d.seed, rec.record(), rec.count());
    const std::string a = ask(h, j, request);
    if (a.starts_with("error ")) throw std::runtime_error("the JVM worker could not make the records: " + a.substr(6));
    if (a != "ok") garbage(h, request, a);
}

void end_workers() {
    Holder& h = holder();
    std::lock_guard lock(h.mutex);
    if (h.worker && h.owner != ::getpid()) h.worker->abandon();
    h.worker.reset();
    h.failed_start.clear();
}

std::vector<std::string> jvm_command(std::uint64_t heap) {
    const std::string mib = fmt::format("{}m", std::max<std::uint64_t>(heap >> 20, 1));
    // A fixed heap (JMH's advice); no performance-data file in /tmp; a crash report on the worker's
    // standard error (iolab shows its last line), and no core or JIT replay file: never a file in
    // the current folder; the JVM's own messages on its standard error, never on its standard
    // output (the protocol's). docs/jvm.md shows this line; a test holds the two alike.
    return {"java",
            "-Xms" + mib,
            "-Xmx" + mib,
            "-XX:-UsePerfData",
            "-XX:ErrorFile=/dev/stderr",
            "-XX:-CreateCoredumpOnCrash",
            "-XX:ReplayDataFile=/dev/stderr",
            "-Xlog:disable",
            "-Xlog:all=warning:stderr",
            "-cp",
            jvm_worker_jar(),
            "iolab.worker.Worker"};
}

std::string jvm_version() {
    Holder& h = holder();
    std::lock_guard lock(h.mutex);
    return h.version;
}

std::string jvm_description(std::uint64_t heap) {
    std::string version = jvm_version();
    if (version.empty()) {
        // The workers ran in forked children: the installation's own words for its version.
        const JavaRelease r = java_release();
        if (r.runtime.empty() && r.version.empty()) return "";
        version = "Java " + one_line(r.runtime.empty() ? r.version : r.runtime);
    }
    std::vector<std::string> argv = jvm_command(heap);
    for (std::string& a : argv)
        if (a.ends_with(".jar")) a.erase(0, a.rfind('/') + 1);
    return fmt::format("{}: {}", version, fmt::join(argv, " "));
}

std::string jvm_worker_jar() {
    if (const char* env = std::getenv("IOLAB_JVM_WORKER"); env && *env) return ::access(env, R_OK) == 0 ? env : "";
    std::vector<std::string> places;
    char exe[4096];
    const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        std::string dir(exe, static_cast<std::size_t>(n));
        dir.erase(dir.rfind('/'));
        places.push_back(dir + "/iolab-worker.jar");
        places.push_back(dir + "/../share/iolab/iolab-worker.jar");
    }
    places.emplace_back(IOLAB_WORKER_JAR);
    for (const std::string& p : places)
        if (!p.empty() && ::access(p.c_str(), R_OK) == 0) return p;
    return "";
}

void set_worker_command_for_tests(std::vector<std::string> argv) {
    Holder& h = holder();
    std::lock_guard lock(h.mutex);
    h.test_argv = std::move(argv);
    h.worker.reset();
}

std::optional<std::string> jvm_unavailable(const std::string&) {
    if (!holder().test_argv.empty()) return std::nullopt;
    if (!find_program("java"))
        return "needs a JVM: 'java' is not installed (Debian package openjdk-17-jre-headless; scripts/deps.sh installs "
               "openjdk-17-jdk-headless)";
    if (const char* env = std::getenv("IOLAB_JVM_WORKER"); env && *env && jvm_worker_jar().empty())
        return fmt::format("IOLAB_JVM_WORKER names '{}', which cannot be read", one_line(env));
    if (jvm_worker_jar().empty())
        return "the JVM worker was not built: iolab was built without a JDK (install openjdk-17-jdk-headless, then "
               "configure and build again)";
    // A Java whose version is not known (no release file) is tried: an old one fails to load the
    // worker, and says so.
    if (const int v = java_major(); v > 0 && v < 17)
        return fmt::format(
            "the worker needs Java 17 or later, and 'java' here is Java {} (Debian package openjdk-17-jre-headless)",
            v);
    return std::nullopt;
}

}  // namespace iolab
