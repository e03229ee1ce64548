// The command line run for real when it is small (one argument per input line, tiny cases in a
// private folder, result files rendered but not written): iolab_main returns 0, 1 or 2 and
// leaves no scratch folder behind.
#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../cli/app.hpp"
#include "args.hpp"

namespace {

const std::string& private_dir() {
    static const std::string dir = [] {
        char tmpl[] = "/tmp/iolab-fuzz-exec.XXXXXX";
        if (!::mkdtemp(tmpl)) std::abort();
        return std::string(tmpl);
    }();
    static const bool removed_at_exit = [] {
        std::atexit([] { ::rmdir(private_dir().c_str()); });  // empty: every run removes its folder
        return true;
    }();
    (void)removed_at_exit;
    return dir;
}

bool scratch_left(const std::string& dir) {
    DIR* d = ::opendir(dir.c_str());
    if (!d) return false;
    bool left = false;
    while (dirent* e = ::readdir(d)) left = left || std::strncmp(e->d_name, "iolab.", 6) == 0;
    ::closedir(d);
    return left;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> args = fuzz_arguments(data, size);
    std::vector<char*> argv = fuzz_argv(args);
    const int status = iolab_main(static_cast<int>(args.size()), argv.data(), Mode::small, private_dir());
    if (status < 0 || status > 2) std::abort();
    if (scratch_left(private_dir())) std::abort();
    return 0;
}
