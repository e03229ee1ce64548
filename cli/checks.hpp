#pragma once
// What is checked before a run creates anything: root for dropping caches, memory per case
// (the session's check), the result paths and the free space of the scratch folder's filesystem.
#include <string>

#include "iolab/session/session.hpp"
#include "run_options.hpp"

namespace iolab::cli {

// Throws InputError naming what is wrong; returns the folder the scratch folder goes in. The result
// paths are checked when `outputs` (under MPI only rank 0 writes them). The scratch space is the
// caller's to check (Session::check_space), once the counts not given are sized by time.
std::string check_before_run(const RunArgs& a, const Session& session, const std::string& dir_option,
                             bool outputs = true);

}  // namespace iolab::cli
