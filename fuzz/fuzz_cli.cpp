// The command line: arguments (one per line of the input) are parsed and validated as iolab
// would, without running anything. Whatever they are, iolab_main returns 0, 1 or 2.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "../cli/app.hpp"
#include "args.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> args = fuzz_arguments(data, size);
    std::vector<char*> argv = fuzz_argv(args);
    const int status = iolab_main(static_cast<int>(args.size()), argv.data(), Mode::validate);
    if (status < 0 || status > 2) std::abort();
    return 0;
}
