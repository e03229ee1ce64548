// iolab with a fault armed on one rank of an MPI job, for tests/mpi/run.sh. FAULT_RANK_PLAN is
// "R:eio" (rank R's writes fail with EIO from the third on) or "R:hang" (rank R's first write
// waits 300 s, as a rank on a hung filesystem would). The rank is Open MPI's
// OMPI_COMM_WORLD_RANK or Slurm's SLURM_PROCID.
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>

#include "app.hpp"
#include "iolab/core/interrupt.hpp"
#include "iolab/sys/fault.hpp"

int main(int argc, char** argv) {
    using namespace iolab::sys;
    iolab::interrupt::install();
    const char* plan = std::getenv("FAULT_RANK_PLAN");
    const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
    if (!rank) rank = std::getenv("SLURM_PROCID");
    std::optional<ScopedFault> armed;
    if (plan && rank) {
        const std::string p = plan;
        const auto colon = p.find(':');
        if (colon != std::string::npos && p.substr(0, colon) == rank) {
            const std::string what = p.substr(colon + 1);
            if (what == "eio") {
                armed.emplace(fault_at(write_calls_mask(), 3, UINT64_MAX, Fault::eio));
            } else if (what == "hang") {
                FaultPlan hang = fault_at(write_calls_mask(), 1, 1, Fault::hook);
                hang.hook = [] { std::this_thread::sleep_for(std::chrono::seconds(300)); };
                armed.emplace(hang);
            }
        }
    }
    return iolab_main(argc, argv);
}
