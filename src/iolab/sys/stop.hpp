#pragma once
// A stop asked for by a signal: every data-moving call then fails with ECANCELED and throttled
// writes stop waiting, so an iteration ends within one call.
namespace iolab::sys {

void request_stop();
void clear_stop();
bool stop_requested();

}  // namespace iolab::sys
