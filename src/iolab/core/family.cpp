#include "iolab/core/family.hpp"

namespace iolab {

std::string_view to_string(Family f) {
    switch (f) {
        case Family::read: return "read";
        case Family::write: return "write";
        case Family::copy: return "copy";
    }
    return "?";
}

std::optional<Family> parse_family(std::string_view s) {
    for (Family f : {Family::read, Family::write, Family::copy})
        if (s == to_string(f)) return f;
    return std::nullopt;
}

}  // namespace iolab
