// Lines of a log file, streamed: `railtune paths` and `railtune profile` read every log through this.
// A file is read in blocks into one buffer per reading thread, so memory stays at a block however large
// the file; a line longer than kMaxLineBytes (docs/formats.md) is counted and skipped without being held
// (a file of 3 GB without a newline costs one block). Only regular files are opened, and never in a way
// that blocks (a FIFO put where a log was expected is refused, not waited on).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace railtune::analysis::ingest {

inline constexpr size_t kMaxLineBytes = size_t{1} << 20;  // 1 MiB: a path-log or profiler line is < 4 KiB

struct LineHandlers {
  // line (without its newline), its 1-based number, and how many bytes from line.data() may be read
  // (>= line.size() + the padding asked for). Returns false to stop reading the file.
  std::function<bool(std::string_view line, int number, size_t readable)> line;
  // A line longer than the cap: its number and its length in bytes (it was skipped).
  std::function<void(int number, size_t bytes)> tooLong;
};

struct ReadOutcome {
  bool opened = false;  // false: the file could not be opened (message says why)
  std::string error;    // "" when every byte was read; else "PATH: cannot open: Permission denied"...
  std::string reason;   // the same without the path ("cannot open: Permission denied"), for a message that
                        // names the file itself
};

// Calls handlers.line for every line (a last line without its newline included), handlers.tooLong for
// each line over maxLineBytes. At least `padding` readable bytes follow every line handed over.
ReadOutcome forEachLine(const std::string& path, size_t padding, const LineHandlers& handlers,
                        size_t maxLineBytes = kMaxLineBytes);

// "line longer than 1 MiB (3145728 bytes); skipped": the words both readers use.
std::string tooLongMessage(size_t bytes, size_t maxLineBytes = kMaxLineBytes);

}  // namespace railtune::analysis::ingest
