#include <malloc.h>

#include "app.hpp"
#include "iolab/core/interrupt.hpp"
#include "iolab/sys/open_files.hpp"

int main(int argc, char** argv) {
    // One memory state for every case (docs/harness.md, "The memory state"): freed memory stays in
    // the process, so a strategy's buffer comes from pages already touched whatever ran before it,
    // instead of from the kernel (and, on a VM whose host takes free memory back, from the host)
    // at glibc's whim. Up to glibc's largest threshold (32 MiB); larger blocks are mapped each time.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, -1);
    // A tree of many folders holds a descriptor for each (sys/open_files.hpp).
    iolab::sys::raise_open_files();
    // Before any thread starts: they all inherit the blocked signals.
    iolab::interrupt::install();
    return iolab_main(argc, argv);
}
