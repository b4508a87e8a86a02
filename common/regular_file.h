// The one way railtune reads a file a user names in a variable or an option (the tuner's rules, the
// rail map, the net plugin's address file, the configuration digest's inputs, the CLI's
// `--config`): only a regular file is read. A directory, a FIFO, a device or a socket is refused with
// a message naming the path and what it is, before anything could block: the file is opened with
// O_NONBLOCK (a FIFO without a writer would otherwise stall NCCL's init forever), checked with fstat
// on the opened descriptor, and read up to a size cap the caller chooses. The plugin and the CLI
// judge a file the same way because both read it through here.
#pragma once

#include <cstddef>
#include <string>

namespace railtune {

// Caps, one per kind of file. Rules files and rail maps (a 114-rack map is megabytes) share one, so
// that the tuner, the net plugin's digest and the CLI read exactly the same bytes.
inline constexpr size_t kMaxConfigFileBytes = size_t{64} << 20;  // rules files and rail maps: 64 MiB
inline constexpr size_t kMaxAddressFileBytes = size_t{1} << 20;  // the net plugin's address file: 1 MiB
// What the CLI reads whole: cluster descriptions, topology and hwloc files, NCCL logs: 1 GiB.
inline constexpr size_t kMaxInputFileBytes = size_t{1} << 30;

struct RegularFile {
  std::string path;
  std::string bytes;   // the whole file when ok()
  std::string reason;  // "" = read; else why not, without the path: "is a directory, not a regular file",
                       // "cannot open: No such file or directory", "larger than 64 MiB", "read error: ..."
  bool ok() const { return reason.empty(); }
  std::string describe() const { return path + ": " + reason; }  // "PATH: is a FIFO, not a regular file"
};

// Reads `path` if it is a regular file of at most maxBytes bytes. Never blocks on a FIFO or a device
// and never throws for a bad file (only std::bad_alloc can escape).
RegularFile readRegularFile(const std::string& path, size_t maxBytes);

// "a directory", "a FIFO", "a character device", "a block device", "a socket", "a symbolic link",
// "not a regular file" for anything else; "a regular file" for S_IFREG. For messages.
const char* fileTypeName(unsigned mode);

}  // namespace railtune
