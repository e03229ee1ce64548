#pragma once
// The ranked tables as Markdown, ready to paste into an issue or a blog post.
#include <string>

#include "iolab/report/report.hpp"

namespace iolab {

std::string to_markdown(const Report& report);

}  // namespace iolab
