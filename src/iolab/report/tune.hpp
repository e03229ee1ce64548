#pragma once
// What `iolab tune` keeps of a run of the tune suite: each group's fastest verified case, as the
// library's profile (include/iolab/io/profile.hpp).
#include <string>

#include "iolab/io/profile.hpp"
#include "iolab/report/report.hpp"

namespace iolab {

// The profile of a run of the tune suite made in `folder` (device: its st_dev): read.small from
// group read-small and so on, buffer.read from the fastest read.chunk of read-medium with a buffer
// of at most 1 MiB, buffer.write from buffer-write. A group without a verified case gives nothing.
Profile profile_from(const Report& tuned, const std::string& folder, std::uint64_t device);

}  // namespace iolab
