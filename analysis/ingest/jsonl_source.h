// The profile readers' view of a folder and a file, over the walk and the streaming line reader that
// `railtune paths` shares (folder_walk.h, line_reader.h): lines read in large blocks with
// simdjson's padding behind every line, so the fast reader can parse a line where it lies; memory stays
// at one block per reading thread however large the file, and a line over the cap is skipped.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/ingest/line_reader.h"

namespace railtune::analysis::profile {

// Calls onLine(line, lineNumber) for every line (without its newline; a last line without one
// included); stops early when onLine returns false. At least `padding` readable bytes follow each
// line. onTooLong(lineNumber, bytes) for a line over ingest::kMaxLineBytes (skipped).
ingest::ReadOutcome forEachLine(const std::string& path, size_t padding,
                                const std::function<bool(std::string_view, int)>& onLine,
                                const std::function<void(int, size_t)>& onTooLong);

struct JsonlFiles {
  std::vector<std::string> files;  // sorted, each file once
  std::vector<std::string> notes;  // "PATH: reason" for what was passed over (FIFOs, loops, unreadable folders)
};

// Every non-empty regular file under the folders (recursively, symbolic links followed once) whose name
// ends in ".jsonl". Throws std::runtime_error naming a folder given that cannot be listed.
JsonlFiles listJsonlFiles(const std::vector<std::string>& folders);

}  // namespace railtune::analysis::profile
