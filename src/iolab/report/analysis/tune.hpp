#pragma once
// What `iolab tune` keeps of a run of the tune suite: each group's fastest verified case, as the
// library's profile (include/iolab/io/profile.hpp).
#include <string>
#include <vector>

#include "iolab/io/profile.hpp"
#include "iolab/report/report.hpp"

namespace iolab {

// The profile of a run of the tune suite made in `folder` (device: its st_dev): read.small from
// group read-small and so on, buffer.read from the winner among read.chunk cases of read-medium
// with a buffer of at most 1 MiB, buffer.write from buffer-write. Each is the winner of its group
// as a table's answer picks it (standing.hpp). A group without a verified case gives nothing; where
// the winner group holds others, `notes` names them.
Profile profile_from(const Report& tuned, const std::string& folder, std::uint64_t device,
                     std::vector<std::string>* notes = nullptr);

}  // namespace iolab
