// Writing a `railtune sweep` output file whole: to a temporary file beside it, then renamed over it, so a
// full disk or a crash never leaves half a dataset or half a rules file where the tuner reads it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace railtune::cli {

// Throws std::runtime_error "cannot write PATH: <reason>" (a directory, a missing folder, ENOSPC...).
void writeOutputFile(const std::string& path, const std::string& text);
// The same for a file written in pieces, in order (a dataset of many files' rows, never joined in memory).
void writeOutputFile(const std::string& path, const std::vector<std::string>& pieces);

// The same, streamed: bytes written as they come to the temporary file, which commit() renames over the path.
// Destroyed without commit() (an error, nothing to write), the temporary file is removed and the path untouched.
class OutputFile {
 public:
  explicit OutputFile(std::string path);  // throws when the temporary file cannot be created
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  void write(std::string_view bytes);  // throws "cannot write PATH: <reason>"
  void commit();                       // fsync, close, rename; throws likewise

 private:
  [[noreturn]] void fail(const std::string& why);
  std::string path_, temporary_;
  int fd_ = -1;
};

}  // namespace railtune::cli
