#pragma once
// The small commands: list, info, suites, clean.
#include <string>

namespace iolab::cli {

int list_strategies(const std::string& family_filter, bool names_only);
int show_info(const std::string& dir, bool limits, bool device, const std::string& device_size);
int list_suites();
// Removes the scratch folders that killed runs left (only iolab's, only unlocked).
int clean(const std::string& parent);

}  // namespace iolab::cli
