#pragma once
// MPI, as iolab uses it (Open MPI from Debian): one process per rank, started by mpirun or srun.
// Only the main thread calls it. Every collective waits at most `timeout_s`; when some rank has
// not joined it by then (a rank that died, or hangs on a hung filesystem), the ranks can never be
// in step again: the waiting rank says so on stderr and ends every rank of the job (MPI_Abort) at
// once, without unwinding (whose cleanup could itself hang on that filesystem; its scratch folder
// is left for `iolab clean`). Built without MPI (libopenmpi-dev missing at build time), built()
// is false and init() throws.
#include <cstdint>
#include <string>
#include <vector>

namespace iolab::sys::mpi {

// Appended to the line printed when a collective times out (what to do about it).
void set_timeout_hint(std::string hint);

bool built();
// MPI_Init_thread (funneled: other threads never call MPI). Throws std::runtime_error when
// iolab was built without MPI or MPI cannot start. MPI_Init waits for every rank: when it has not
// returned within timeout_s, the rank says so and ends (status 1). MPI_Finalize later waits the
// same way, at least ten minutes (rank 0 may be writing its reports).
void init(double timeout_s);
bool initialized();
void finalize();
// Ends every rank of the job (MPI_Abort): the ranks are out of step for good.
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
