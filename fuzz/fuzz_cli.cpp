// The command line: arguments (one per line of the input) are parsed and validated as iolab
// would, without running anything. Whatever they are, iolab_main returns 0, 1 or 2.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "../cli/app.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> args = {"iolab"};
    std::string current;
    for (std::size_t i = 0; i < size && args.size() < 32; ++i) {
        const char c = static_cast<char>(data[i]);
        if (c == '\n') {
            args.push_back(current);
            current.clear();
        } else if (c != '\0') {
            current += c;
        }
    }
    if (!current.empty()) args.push_back(current);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int status = iolab_main(static_cast<int>(args.size()), argv.data(), Mode::validate);
    if (status < 0 || status > 2) std::abort();
    return 0;
}
