#include "iolab/harness/param_values.hpp"

#include <charconv>

#include "iolab/chain/chain.hpp"
#include "iolab/core/units.hpp"
#include "iolab/harness/options.hpp"

namespace iolab::detail {

std::vector<std::string_view> items(std::string_view text) {
    auto out = split_items(text);
    if (std::count(out.begin(), out.end(), std::string_view())) throw InputError("an empty item");
    return out;
}

std::vector<std::uint64_t> sizes(std::string_view text, std::uint64_t max) {
    std::vector<std::uint64_t> out;
    for (auto item : items(text))
        for (auto s : parse_size_list(item)) {
            if (s == 0 || s > max) throw InputError("out of range");
            out.push_back(s);
        }
    return unique(out);
}

std::vector<unsigned> whole_numbers(std::string_view text, unsigned max) {
    std::vector<unsigned> out;
    for (auto item : items(text)) {
        // Digits only: "1e2" and "2.0" are not how a count is written.
        if (item.empty() || item.find_first_not_of("0123456789") != std::string_view::npos)
            throw InputError("not a whole number");
        const Amount a = parse_amount(item, "", false);
        if (a.seconds > 0 || a.count > max) throw InputError("out of range");
        out.push_back(static_cast<unsigned>(a.count));
    }
    return unique(out);
}

bool truth(std::string_view text) { return named(kBooleans, text); }

std::uint64_t whole64(std::string_view v) {
    std::uint64_t n = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (v.empty() || ec != std::errc() || end != v.data() + v.size()) throw InputError("not a whole number");
    return n;
}

std::vector<std::string> chains(std::string_view text) {
    std::vector<std::string> out;
    for (auto c : items(text)) {
        std::string canonical;
        try {
            canonical = describe(parse_chain(std::string(c)));
        } catch (const ChainError& e) {
            throw InputError(e.why());  // apply_setting names the setting and the value
        }
        if (std::find(out.begin(), out.end(), canonical) == out.end()) out.push_back(canonical);
    }
    return out;
}

}  // namespace iolab::detail
