// The case parameters only the durable family (group commit's producers) and the files family (the
// tree's shape) take: the rows these kinds add to the parameter table of params.cpp.
#include <algorithm>
#include <vector>

#include "iolab/core/names.hpp"
#include "iolab/core/units.hpp"
#include "iolab/harness/param_values.hpp"
#include "iolab/harness/params.hpp"

namespace iolab {

namespace {

using detail::sizes;
using detail::whole_numbers;
using Kind = Parameter::Kind;
using P = PlanRequest;
using O = RunOptions;
using C = CaseSpec;
using V = std::string_view;

using detail::count;

constexpr Parameter kFamilyParameters[] = {
    {.key = "producers",
     .help = "Producer threads handing records to one writer in durable.group-commit (default 8)",
     .expected = "whole numbers from 1 to 1024 such as 8 or 1,8,64",
     .kind = Kind::list,
     .takes = kParamProducers,
     .apply = [](V v, P& p, O&) { p.producers = whole_numbers(v, kMaxProducers); },
     .in_label = true,
     .values = count<&P::producers>,
     .take = [](const P& p, std::size_t i, C& c) { c.workload.producers = p.producers[i]; },
     .print_case = [](const C& c) { return std::to_string(c.workload.producers); }},
    {.key = "files",
     .help = "Files in the tree of the files family (default 1000; a list sweeps)",
     .expected = "numbers of files from 1 to 100000000 such as 50000 or 1000,50000",
     .kind = Kind::list,
     .takes = kParamFiles,
     .apply =
         [](V v, P& p, O&) {
             const auto n = whole_numbers(v, static_cast<unsigned>(kMaxFiles));
             p.files.assign(n.begin(), n.end());
         },
     .in_label = true,
     .values = count<&P::files>,
     .take = [](const P& p, std::size_t i, C& c) { c.workload.files = p.files[i]; },
     .print_case = [](const C& c) { return std::to_string(c.workload.files); }},
    {.key = "file_size",
     .help = "Bytes in each file of the tree, or of the set replaced (default 4K)",
     .expected = "file sizes from 1 byte to 1G such as 4K or 1K,64K",
     .kind = Kind::list,
     .takes = kParamFileSize,
     .apply = [](V v, P& p, O&) { p.file_sizes = sizes(v, kMaxBuffer); },
     .in_label = true,
     .values = count<&P::file_sizes>,
     .take = [](const P& p, std::size_t i, C& c) { c.workload.file_size = p.file_sizes[i]; },
     .print_case = [](const C& c) { return format_compact(c.workload.file_size); }},
    {.key = "folders",
     .help = "Folders the tree's files are spread over (default 10)",
     .expected = "numbers of folders from 1 to 1000000 such as 10 or 1,100",
     .kind = Kind::list,
     .takes = kParamFolders,
     .apply = [](V v, P& p, O&) { p.folders = whole_numbers(v, kMaxFolders); },
     .in_label = true,
     .values = count<&P::folders>,
     .take = [](const P& p, std::size_t i, C& c) { c.workload.folders = p.folders[i]; },
     .print_case = [](const C& c) { return std::to_string(c.workload.folders); }},
};

}  // namespace

std::span<const Parameter> parameters() {
    // The families' case parameters after the others (params.cpp), before the settings.
    static const std::vector<Parameter> all = [] {
        const auto core = core_parameters();
        std::vector<Parameter> v(core.begin(), core.end());
        const auto settings = std::find_if(v.begin(), v.end(), [](const Parameter& p) { return !p.case_param(); });
        v.insert(settings, std::begin(kFamilyParameters), std::end(kFamilyParameters));
        return v;
    }();
    return all;
}

const Parameter* find_parameter(std::string_view key) { return find_by_key<Parameter>(parameters(), key); }

}  // namespace iolab
