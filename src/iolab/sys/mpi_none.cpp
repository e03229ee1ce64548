// iolab built without MPI: --mpi says so; nothing else reaches these.
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "iolab/sys/mpi.hpp"

namespace iolab::sys::mpi {

namespace {
[[noreturn]] void missing() {
    throw std::runtime_error("this iolab was built without MPI (install libopenmpi-dev and build again)");
}
}  // namespace

bool built() { return false; }
void set_timeout_hint(std::string) {}
void init(double) { missing(); }
bool initialized() { return false; }
void finalize() {}
void abort(int code) { std::exit(code); }
int rank() { return 0; }
int size() { return 1; }
std::string host() { return {}; }
void barrier(double) { missing(); }
std::uint64_t broadcast(std::uint64_t, int, double) { missing(); }
std::string broadcast(const std::string&, int, double) { missing(); }
std::uint64_t max(std::uint64_t, double) { missing(); }
std::uint64_t min(std::uint64_t, double) { missing(); }
std::vector<std::string> gather(const std::string&, double) { missing(); }
std::vector<std::string> all_gather(const std::string&, double) { missing(); }

}  // namespace iolab::sys::mpi
