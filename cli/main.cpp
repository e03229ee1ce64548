#include "app.hpp"
#include "iolab/core/interrupt.hpp"

int main(int argc, char** argv) {
    // Before any thread starts: they all inherit the blocked signals.
    iolab::interrupt::install();
    return iolab_main(argc, argv);
}
