// Sizes, rates, size lists, data kinds, access patterns, amounts, every setting and every case parameter: any text
// gives a value or a one-line InputError, and what is parsed prints back to the same value.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "iolab/core/data.hpp"
#include "iolab/core/pattern.hpp"
#include "iolab/core/units.hpp"
#include "iolab/harness/params.hpp"
#include "iolab/harness/result.hpp"
#include "iolab/harness/runner.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const auto one_line = [](const std::invalid_argument& e) {
        if (std::string(e.what()).find('\n') != std::string::npos) std::abort();
    };
    try {
        const std::uint64_t v = iolab::parse_size(text);
        if (iolab::parse_size(iolab::format_compact(v)) != v) std::abort();
    } catch (const std::invalid_argument& e) {
        one_line(e);
    }
    try {
        if (!(iolab::parse_rate(text) > 0)) std::abort();
    } catch (const std::invalid_argument& e) {
        one_line(e);
    }
    try {
        if (text.size() < 64) (void)iolab::parse_size_list(text);  // ranges may be long lists
    } catch (const std::invalid_argument& e) {
        one_line(e);
    }
    try {
        (void)iolab::parse_data_spec(text);
    } catch (const std::invalid_argument& e) {
        one_line(e);
    }
    try {  // an access pattern prints back to itself, and its offsets stay in the span
        const iolab::Pattern p = iolab::parse_pattern(text);
        if (!(iolab::parse_pattern(iolab::to_string(p)) == p)) std::abort();
        const iolab::Offsets at(p, 1000 * 4096 + 7, 4096, size);
        for (std::uint64_t i = 0; i < 3000; i += 7)
            if (at(i) % 4096 != 0 || at(i) >= 1000 * 4096) std::abort();
    } catch (const std::invalid_argument& e) {
        one_line(e);
    }
    try {
        (void)iolab::parse_amount(text, "--iterations", false);
    } catch (const std::invalid_argument& e) {
        one_line(e);
    }
    if (text.size() < 64) {
        for (const iolab::Parameter& s : iolab::parameters()) {
            if (!s.setting()) continue;
            iolab::PlanRequest plan;
            iolab::RunOptions options;
            try {
                iolab::apply_setting(s, text, iolab::Syntax::suite, plan, options);
            } catch (const iolab::InputError& e) {
                one_line(e);
                if (std::string(e.what()).rfind("invalid " + std::string(s.key) + " '", 0) != 0) std::abort();
                continue;
            }
            // A run setting's own words for the value read back as the same value.
            if (!s.run_setting()) continue;
            const std::string printed = s.print(options);
            if (printed.empty()) continue;
            iolab::RunOptions again;
            iolab::apply_setting(s, printed, iolab::Syntax::suite, plan, again);
            if (s.print(again) != printed) std::abort();
        }
        for (const iolab::Parameter& p : iolab::parameters()) {
            if (!p.case_param()) continue;
            // A case of write.chain, or of the first strategy that takes the parameter where write.chain
            // does not (a tree's files): a kind's values are only its own kind's cases'.
            iolab::CaseSpec c;
            c.strategy = iolab::Registry::builtin().find("write.chain");
            if (!p.taken_by(*c.strategy))
                for (const iolab::Strategy& s : iolab::Registry::builtin().all())
                    if (p.taken_by(s)) {
                        c.strategy = &s;
                        break;
                    }
            c.workload.family = c.strategy->family;
            try {
                p.set(c, text);
            } catch (const iolab::InputError& e) {
                one_line(e);
                continue;
            }
            const std::string printed = p.get(c);
            p.set(c, printed);
            if (p.get(c) != printed) std::abort();
        }
    }
    return 0;
}
