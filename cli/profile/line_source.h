// Lines of a file read in large blocks into a buffer with simdjson's padding behind every line, so the
// fast reader can parse a line where it lies. Memory stays at one block per reading thread however
// large the file.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace railtune::cli::profile {

// Calls onLine(line, lineNumber) for every line (without its newline; a last line without one
// included); stops early when onLine returns false. At least `padding` readable bytes follow each
// line. Returns "" or a message naming the file when it cannot be opened or read.
std::string forEachLine(const std::string& path, size_t padding,
                        const std::function<bool(std::string_view, int)>& onLine);

// Every regular file under the folders (recursively) whose name ends in ".jsonl", sorted. Throws
// std::runtime_error naming a folder that cannot be listed.
std::vector<std::string> listJsonlFiles(const std::vector<std::string>& folders);

}  // namespace railtune::cli::profile
