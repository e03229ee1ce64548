// The registration list of the kinds' modules.
#include "iolab/strategies/kind.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "iolab/core/process.hpp"
#include "iolab/core/tree.hpp"

namespace iolab {

std::string Verdict::describe() const {
    if (!tree.empty()) return tree;
    if (count_only) return fmt::format("the tool reported {} bytes, expected {}", actual_bytes, expected_bytes);
    if (crc32)
        return fmt::format("CRC-32 {:#010x}, expected {:#010x} ({} bytes, expected {})", actual, expected, actual_bytes,
                           expected_bytes);
    return fmt::format("{} {:#018x}, expected {:#018x} ({} bytes, expected {})",
                       mode == VerifyMode::full ? "checksum" : "sampled fingerprint", actual, expected, actual_bytes,
                       expected_bytes);
}

std::pair<int, std::string> place_of(const std::string& path) {
    const auto split = split_fd_path(path);
    if (!split) throw std::logic_error("a kind's path is not in a folder held by descriptor: " + path);
    return *split;
}

void remove_folder_at(const std::string& path) {
    const auto [fd, name] = place_of(path);
    remove_tree(fd, name);
}

const KindModule& kind_module(Family f) {
    switch (shape_of(f)) {
        case Shape::file: return file_kind();
        case Shape::records: return records_kind();
        case Shape::tree: return files_kind();
        case Shape::set: return replace_kind();
    }
    return file_kind();
}

std::span<const KindParam* const> kind_parameters() {
    static const std::vector<const KindParam*> all = [] {
        std::vector<const KindModule*> modules;
        std::vector<const KindParam*> params;
        for (const FamilyRow& r : kFamilyRows) {
            const KindModule* m = &kind_module(r.family);
            if (std::find(modules.begin(), modules.end(), m) != modules.end()) continue;
            modules.push_back(m);
            for (const KindParam& p : m->params) {
                // A whole number is parsed as 32 bits (detail::whole_numbers): its limit must fit.
                if (!p.size && p.max > UINT32_MAX)
                    throw std::logic_error("kind parameter " + std::string(p.key) + ": a limit above 32 bits");
                params.push_back(&p);
            }
        }
        return params;
    }();
    return all;
}

std::uint64_t default_of(const KindParam& k) {
    for (const FamilyRow& r : kFamilyRows) {
        const auto params = kind_module(r.family).params;
        if (std::none_of(params.begin(), params.end(), [&](const KindParam& p) { return &p == &k; })) continue;
        Workload w;
        w.family = r.family;
        return k.get(w);
    }
    throw std::logic_error("kind parameter " + std::string(k.key) + ": no kind brings it");
}

}  // namespace iolab
