// Writing a `railtune sweep` output file whole: to a temporary file beside it, then renamed over it, so a
// full disk or a crash never leaves half a dataset or half a rules file where the tuner reads it.
#pragma once

#include <string>
#include <vector>

namespace railtune::cli {

// Throws std::runtime_error "cannot write PATH: <reason>" (a directory, a missing folder, ENOSPC...).
void writeOutputFile(const std::string& path, const std::string& text);
// The same for a file written in pieces, in order (a dataset of many files' rows, never joined in memory).
void writeOutputFile(const std::string& path, const std::vector<std::string>& pieces);

}  // namespace railtune::cli
