#pragma once
// The fixture of the files family (fixture.hpp): a tree of files as the input (read, copy), as
// the reference only (write), or laid out afresh before each run at the output (remove), and the
// verification of what a run left.
#include <memory>
#include <string>

#include "iolab/harness/fixture.hpp"

namespace iolab::detail {

TreeShape shape_of(const Workload& w);
// The input at `path` (a name in a folder held by descriptor, ScratchDir::at): laid out for reads
// and copies, the digest alone for writes and removals.
std::shared_ptr<const Input> make_tree_input(const Workload& w, const std::string& path);
// The name of a tree input in the scratch folder: from its data and shape.
std::string tree_input_name(const Workload& w, unsigned job);
// Removes the tree at path (a name in a folder held by descriptor), if any.
void remove_tree_path(const std::string& path);
// Lays out the tree a removal removes, at the job's output (before the clock).
void lay_out_for_removal(const Workload& w, const Input& in, const std::string& dst);
// What a run left: a read's digest (Job::tree; not `checked` for a tool that reads into nothing of
// iolab's), a written or copied tree, or (removal) no tree.
Verdict verify_tree(const Workload& w, const Input& in, const Job& job, bool checked);

}  // namespace iolab::detail
