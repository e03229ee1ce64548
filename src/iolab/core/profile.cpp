#include "iolab/io/profile.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>

#include "iolab/io/error.hpp"
#include "iolab/io/syscalls.hpp"
#include "iolab/io/whole_file.hpp"

#ifndef IOLAB_VERSION
#define IOLAB_VERSION "0.0.0"
#endif

namespace iolab {

namespace {

constexpr off_t kMaxProfileBytes = 64 * 1024;

std::string trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return std::string(s);
}

bool whole_number(const std::string& s, std::uint64_t& out) {
    if (s.empty() || s.size() > 19) return false;
    out = 0;
    for (const char c : s) {
        if (c < '0' || c > '9') return false;
        out = out * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return true;
}

// A size per call or a buffer worth using: from 4 KiB to 1 GiB.
bool sane_buffer(std::uint64_t n) { return n >= 4096 && n <= (std::uint64_t{1} << 30); }

// "read 65536 23000.5": method, buffer, MiB/s.
bool read_choice(const std::string& v, Tuned& t) {
    const auto a = v.find(' ');
    const auto b = a == std::string::npos ? a : v.find(' ', a + 1);
    if (b == std::string::npos) return false;
    t.method = v.substr(0, a);
    std::uint64_t buffer = 0;
    if (!whole_number(v.substr(a + 1, b - a - 1), buffer) || (buffer != 0 && !sane_buffer(buffer))) return false;
    t.buffer = static_cast<std::size_t>(buffer);
    const std::string rate = v.substr(b + 1);
    char* end = nullptr;
    errno = 0;
    t.mib_s = std::strtod(rate.c_str(), &end);
    if (errno != 0 || end == rate.c_str() || *end != '\0' || !(t.mib_s >= 0)) return false;
    return std::isfinite(t.mib_s);
}

// The methods the library has for each kind of work.
bool method_for(const std::string& kind, const std::string& method) {
    if (kind == "read") return method == "read";
    return method == "copy_file_range" || method == "sendfile" || method == "read/write";
}

}  // namespace

std::string_view size_class(std::uint64_t bytes) {
    if (bytes < (std::uint64_t{1} << 20)) return "small";
    if (bytes < (std::uint64_t{64} << 20)) return "medium";
    return "large";
}

std::string profile_path() {
    if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x == '/') return std::string(x) + "/iolab/profile";
    // $HOME when it is an absolute path, else the user's home folder from the password database.
    std::string home;
    if (const char* h = std::getenv("HOME"); h && *h == '/') {
        home = h;
    } else if (const passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_dir && pw->pw_dir[0] == '/') {
        home = pw->pw_dir;
    }
    if (home.empty() || home == "/") return {};  // nowhere of the user's own
    return home + "/.config/iolab/profile";
}

std::string this_machine() {
    try {
        const auto id = read_file("/etc/machine-id", no_profile());
        std::string s(reinterpret_cast<const char*>(id.data()), id.size());
        s = trim(s.substr(0, s.find('\n')));
        if (!s.empty()) return s;
    } catch (const IoError&) {
    }
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    return host;
}

std::string_view library_version() { return IOLAB_VERSION; }

const Tuned* Profile::choice(std::string_view kind, std::uint64_t size, std::uint64_t dev) const {
    if (!usable() || dev != device) return nullptr;
    const auto it = choices.find(std::string(kind) + "." + std::string(size_class(size)));
    return it == choices.end() ? nullptr : &it->second;
}

std::string Profile::text() const {
    std::string t = "# iolab tune: the fastest verified methods measured here (docs/library.md)\n";
    const auto line = [&](const char* k, const std::string& v) { t += std::string(k) + " = " + v + "\n"; };
    line("version", version);
    line("machine", machine);
    line("date", date);
    line("folder", folder);
    line("filesystem", filesystem);
    line("device", std::to_string(device));
    for (const auto& [key, c] : choices) {
        char rate[64];
        std::snprintf(rate, sizeof rate, "%.1f", c.mib_s);
        t += key + " = " + c.method + " " + std::to_string(c.buffer) + " " + rate + "\n";
    }
    if (read_buffer) line("buffer.read", std::to_string(read_buffer));
    if (write_buffer) line("buffer.write", std::to_string(write_buffer));
    return t;
}

Profile load_profile(const std::string& path) {
    Profile p;
    p.path = path;
    if (path.empty()) {
        p.ignored = "no home folder to keep a profile in (set XDG_CONFIG_HOME)";
        return p;
    }
    std::string text;
    try {
        // Only a regular file of sensible size: never wait on a FIFO or read a device forever.
        const sys::Fd fd = sys::open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        struct stat st {};
        if (::fstat(fd.get(), &st) != 0) throw IoError(errno, "inspect", path);
        if (!S_ISREG(st.st_mode)) {
            p.ignored = path + " is not a regular file";
            return p;
        }
        if (st.st_size > kMaxProfileBytes) {
            p.ignored = path + " is larger than a profile can be (" + std::to_string(kMaxProfileBytes) + " bytes)";
            return p;
        }
        text.resize(static_cast<std::size_t>(st.st_size));
        text.resize(sys::read_full(fd, text.data(), text.size()));
    } catch (const IoError& e) {
        p.ignored = e.code() == ENOENT ? "no profile at " + path + " (iolab tune makes one)" : e.what();
        return p;
    }
    return parse_profile(text, path);
}

namespace {

bool control_character(char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }

// A profile ignored for a line it cannot read, named by its number and its text (shown safely).
Profile rejected(const std::string& path, std::size_t number, const std::string& line) {
    Profile bad;
    bad.path = path;
    std::string shown = line.substr(0, 80);
    for (char& c : shown)
        if (control_character(c)) c = '?';
    bad.ignored = path + ":" + std::to_string(number) + ": cannot read '" + shown + "'";
    return bad;
}

// Sets one key of the profile from its value; false for an unknown key or a value out of range.
bool set_key(Profile& p, const std::string& key, const std::string& value) {
    if (key == "device") return whole_number(value, p.device);
    if (key == "buffer.read" || key == "buffer.write") {
        // Every default reader and writer gets it: at most 16 MiB.
        std::uint64_t n = 0;
        const bool ok = whole_number(value, n) && sane_buffer(n) && n <= (std::uint64_t{16} << 20);
        (key == "buffer.read" ? p.read_buffer : p.write_buffer) = static_cast<std::size_t>(n);
        return ok;
    }
    if (key.starts_with("read.") || key.starts_with("copy.")) {
        const std::string cls = key.substr(5);
        return (cls == "small" || cls == "medium" || cls == "large") && read_choice(value, p.choices[key]) &&
               method_for(key.substr(0, 4), p.choices[key].method);
    }
    std::string* text = key == "version"      ? &p.version
                        : key == "machine"    ? &p.machine
                        : key == "date"       ? &p.date
                        : key == "folder"     ? &p.folder
                        : key == "filesystem" ? &p.filesystem
                                              : nullptr;
    if (text) *text = value;
    return text != nullptr;
}

// Why a profile that reads well is not used here: another version, machine, or no filesystem.
void check_usable(Profile& p) {
    if (p.version != library_version())
        p.ignored = "the profile was made by iolab " + (p.version.empty() ? "of no version" : p.version) +
                    ", this is " + std::string(library_version()) + ": run iolab tune again";
    else if (p.machine != this_machine())
        p.ignored = "the profile was measured on another machine (" + p.machine + "): run iolab tune here";
    else if (p.device == 0)
        p.ignored = "the profile names no filesystem";
}

}  // namespace

Profile parse_profile(const std::string& text, const std::string& path) {
    Profile p;
    p.path = path;
    std::size_t number = 0;
    std::set<std::string> seen;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        const std::string raw = text.substr(at, end - at);
        at = end + 1;
        ++number;
        const std::string l = trim(raw);
        if (l.empty() || l[0] == '#') continue;
        if (std::any_of(l.begin(), l.end(), control_character)) return rejected(path, number, l);
        if (!seen.insert(trim(std::string_view(l).substr(0, l.find('=')))).second)
            return rejected(path, number, l);  // a key twice
        const auto eq = l.find('=');
        const std::string key = eq == std::string::npos ? "" : trim(std::string_view(l).substr(0, eq));
        const std::string value = eq == std::string::npos ? "" : trim(std::string_view(l).substr(eq + 1));
        if (!set_key(p, key, value)) return rejected(path, number, l);
    }
    check_usable(p);
    return p;
}

const Profile& profile() {
    static const Profile p = load_profile(profile_path());
    return p;
}

const Profile& no_profile() {
    static const Profile p = [] {
        Profile q;
        q.ignored = "not tuned";
        return q;
    }();
    return p;
}

}  // namespace iolab
