// printf into a std::string, written once: the text is measured first, so a line of any length is whole (the
// fixed buffers this replaces cut long host names and labels short without a word).
#pragma once

#include <string>

namespace railtune {

// The arguments are checked against the format as printf's are.
std::string printed(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace railtune
