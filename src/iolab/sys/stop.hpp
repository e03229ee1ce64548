#pragma once
// A stop asked for by a signal, seen by the syscall layer: from then on every data-moving call
// fails with ECANCELED and a throttled write stops waiting, so that an iteration in progress
// ends within one call instead of running to its end. Cleared when the run is over, so that
// its partial results can still be written.
namespace iolab::sys {

void request_stop();
void clear_stop();
bool stop_requested();

}  // namespace iolab::sys
