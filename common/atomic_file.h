// The one way railtune replaces a file whole (sweep datasets and rules files, imported path logs, the sweep
// runner's record of a running group): the bytes go to a temporary file beside the path (same folder, so
// the rename cannot cross file systems), are fsynced, and the temporary file is renamed over the path. A
// full disk, a crash or a kill leaves the earlier file or none, never half a file where a reader (the
// tuner, a later `railtune paths`) would take it for whole. A directory, a FIFO or a device at the path is
// refused before anything is written: renaming over it would replace what the user put there.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace railtune {

// What failed, for callers that word their own message; what() is "cannot write PATH: REASON".
class AtomicFileError : public std::runtime_error {
 public:
  enum class Stage {
    kRefused,  // something other than a regular file is at the path
    kCreate,   // the temporary file could not be created
    kWrite,    // writing, fsync or close failed (ENOSPC, EIO...)
    kRename,   // the rename over the path failed
  };
  AtomicFileError(Stage failed, std::string file, std::string temporaryFile, std::string why);
  Stage stage;
  std::string path, temporary, reason;
};

// Bytes written as they come to the temporary file, which commit() renames over the path. Destroyed without
// commit() (an error, nothing to write), the temporary file is removed and the path untouched.
class AtomicFile {
 public:
  explicit AtomicFile(std::string path);  // throws AtomicFileError (kRefused, kCreate)
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  void write(std::string_view bytes);  // throws AtomicFileError (kWrite)
  void commit();                       // fsync, close, rename; throws AtomicFileError (kWrite, kRename)
  const std::string& temporary() const { return temporary_; }  // PATH.tmp.PID

 private:
  [[noreturn]] void fail(AtomicFileError::Stage stage, const std::string& why);
  void discard();
  std::string path_, temporary_;
  int fd_ = -1;
};

// The whole file at once, or in pieces in order (a dataset of many files' rows, never joined in memory).
void writeFileAtomically(const std::string& path, std::string_view text);
void writeFileAtomically(const std::string& path, const std::vector<std::string>& pieces);

}  // namespace railtune
