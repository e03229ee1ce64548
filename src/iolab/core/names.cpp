#include "iolab/core/names.hpp"

#include <algorithm>

namespace iolab {

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
            diag = up;
        }
    }
    return row[b.size()];
}

std::vector<std::string> closest_names(std::string_view name, const std::vector<std::string>& known, std::size_t n) {
    std::vector<std::pair<std::size_t, std::string>> scored;
    for (const auto& k : known) scored.emplace_back(edit_distance(name, k), k);
    std::stable_sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<std::string> out;
    for (std::size_t i = 0; i < scored.size() && i < n; ++i) out.push_back(scored[i].second);
    return out;
}

std::string likely_meant(std::string_view name, const std::vector<std::string>& known) {
    const auto best = closest_names(name, known, 1);
    if (best.empty()) return {};
    // A prefix of a known name ("--siz" for "--size") is meant, however short.
    for (const auto& k : known)
        if (name.size() >= 2 && k.starts_with(name)) return k;
    return edit_distance(name, best.front()) <= std::max<std::size_t>(2, name.size() / 3) ? best.front() : "";
}

}  // namespace iolab
