// What the parts of the iolab command share (common.hpp): whether to colour, how wide to draw,
// and two checks.
#include "common.hpp"

#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "iolab/core/units.hpp"

namespace iolab::cli {

namespace {

bool set(const char* var) {
    const char* v = std::getenv(var);
    return v && *v;
}

// An MPI launcher hands its ranks a pseudo-terminal whatever its own stdout is (mpirun ... >
// file): under one, stdout is never taken for a terminal, for colour or for its width.
bool launched() { return set("OMPI_COMM_WORLD_RANK") || set("PMI_RANK") || set("SLURM_PROCID"); }

}  // namespace

bool colour_on_stdout() { return ::isatty(STDOUT_FILENO) && !set("NO_COLOR") && !launched(); }

std::size_t terminal_columns(int fd) {
    // COLUMNS, as ls and GNU's other tools honour it; else the terminal's own width. Never fewer
    // than 40: the tables give way down to that, and no further.
    if (const char* c = std::getenv("COLUMNS"); c && *c) {
        char* end = nullptr;
        const long n = std::strtol(c, &end, 10);
        if (end && *end == '\0' && n > 0) return static_cast<std::size_t>(std::clamp(n, 40L, 10000L));
    }
    winsize ws{};
    if (!launched() && ::isatty(fd) && ::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return std::max<std::size_t>(40, ws.ws_col);
    return 0;
}

TerminalOptions terminal_options(bool all) {
    TerminalOptions o;
    o.colour = colour_on_stdout();
    o.all = all;
    o.columns = terminal_columns(STDOUT_FILENO);
    return o;
}

std::vector<std::string> split_commas(const std::vector<std::string>& items) {
    std::vector<std::string> out;
    for (const auto& item : items)
        for (const std::string_view part : split_items(item))
            if (!part.empty()) out.emplace_back(part);
    return out;
}

// --dir: an existing, writable folder that is not a symbolic link.
std::string checked_dir(const std::string& option) {
    // Without --dir, the folder TMPDIR names (or /tmp) gets the same checks.
    const std::string given = option.empty() ? default_scratch_parent() : option;
    const std::string what = option.empty() ? "TMPDIR" : "--dir";
    // "link/", "link/." and "link/./" name what the link points to: the check is of the name
    // without them, and a ".." is checked on what it climbs out of.
    std::string dir = given;
    for (bool again = true; again;) {
        again = false;
        while (dir.size() > 1 && dir.back() == '/') dir.pop_back(), again = true;
        if (dir.size() > 2 && dir.ends_with("/.")) dir.resize(dir.size() - 2), again = true;
    }
    if (dir == "/.") dir = "/";
    // A profile names the folder on a line of its own, and every message names it: a line break, a
    // terminal's control or a byte that is not UTF-8 in it would act instead of being shown.
    if (one_line(dir) != dir)
        throw InputError(one_line(fmt::format(
            "invalid {} '{}': it holds a control character or a byte that is not UTF-8; name a folder without one",
            what, given)));
    // Before the last "..", no component may be a link: "link/sub/.." is the link's folder.
    std::size_t last_up = std::string::npos;
    for (std::size_t at = dir.find(".."); at != std::string::npos; at = dir.find("..", at + 1))
        if ((at == 0 || dir[at - 1] == '/') && (at + 2 == dir.size() || dir[at + 2] == '/')) last_up = at;
    for (std::size_t end = dir.find('/', 1); last_up != std::string::npos && end != std::string::npos && end < last_up;
         end = dir.find('/', end + 1)) {
        struct stat up {};
        if (::lstat(dir.substr(0, end).c_str(), &up) == 0 && S_ISLNK(up.st_mode))
            throw InputError(
                one_line(fmt::format("invalid {} '{}': '{}' in it is a symbolic link; name the folder itself", what,
                                     given, dir.substr(0, end))));
    }
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0)
        throw InputError(fmt::format("invalid {} '{}': it does not exist; expected an existing folder", what, given));
    if (S_ISLNK(st.st_mode))
        throw InputError(fmt::format("invalid {} '{}': it is a symbolic link; name the folder itself", what, given));
    if (S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode))
        throw InputError(
            fmt::format("invalid {} '{}': it is a device, not a folder; iolab writes only into a "
                        "folder (to read a block device: --input DEVICE --allow-device)",
                        what, given));
    if (!S_ISDIR(st.st_mode)) throw InputError(fmt::format("invalid {} '{}': it is not a folder", what, given));
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        throw InputError(fmt::format("invalid {} '{}': it is not writable", what, given));
    // Absolute: the folder's filesystem is found by its path among the mounts.
    return std::filesystem::absolute(dir).string();
}

}  // namespace iolab::cli
