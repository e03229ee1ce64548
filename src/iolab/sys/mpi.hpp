#pragma once
// MPI, as iolab uses it (Open MPI from Debian): one process per rank, started by mpirun or srun.
// Only the main thread calls it. Every collective waits at most `timeout_s` and throws Lost when
// some rank has not joined it by then, so a rank that died or hangs never hangs the others.
// Built without MPI (libopenmpi-dev missing at build time), built() is false and init() throws.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace iolab::sys::mpi {

// A collective did not complete in time: the run cannot go on in step.
struct Lost : std::runtime_error {
    using std::runtime_error::runtime_error;
};

bool built();
// MPI_Init_thread (funneled: other threads never call MPI). Throws std::runtime_error when
// iolab was built without MPI or MPI cannot start.
void init();
bool initialized();
void finalize();
// Ends every rank of the job (MPI_Abort): after Lost, the ranks are out of step for good.
[[noreturn]] void abort(int code);

int rank();
int size();
std::string host();  // MPI_Get_processor_name

void barrier(double timeout_s);
// Root's value, on every rank.
std::uint64_t broadcast(std::uint64_t v, int root, double timeout_s);
std::string broadcast(const std::string& s, int root, double timeout_s);
// The largest and smallest value of any rank, on every rank.
std::uint64_t max(std::uint64_t v, double timeout_s);
std::uint64_t min(std::uint64_t v, double timeout_s);
// At rank 0: every rank's text, by rank; elsewhere: empty.
std::vector<std::string> gather(const std::string& s, double timeout_s);
// Every rank's text, by rank, on every rank.
std::vector<std::string> all_gather(const std::string& s, double timeout_s);

}  // namespace iolab::sys::mpi
