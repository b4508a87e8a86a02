// The folder walk `railtune paths` and `railtune profile` share: every file a log could be in, below
// one or more folders. Symbolic links are followed, to files and to folders, each target once (folders
// are known by device and inode, so a link back to an ancestor ends there with a note). What cannot
// hold a log is passed over with a note naming it: FIFOs, sockets and devices (also behind a link, such
// as one to /dev/zero), dangling links, folders that cannot be read (with the system's reason,
// "Permission denied"). Nothing found is ever opened here.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace railtune::analysis::ingest {

struct WalkedFile {
  std::string path;  // as reached: the folder as given, then the names below it (links not resolved)
  uint64_t bytes = 0;
};

struct WalkNote {
  std::string path;
  std::string message;  // "a FIFO, not a log file; skipped", "cannot read the folder: Permission denied"
};

struct FolderWalk {
  std::vector<WalkedFile> files;  // sorted by path, each file once
  std::vector<WalkNote> notes;    // in the order met
};

// wanted(name): whether a file (not a folder) of this name can be a log; others are passed over
// silently. Throws std::runtime_error naming a root that is not a folder or cannot be read.
FolderWalk walkLogFolders(const std::vector<std::string>& roots,
                          const std::function<bool(std::string_view name)>& wanted);

// The profile readers' view: every non-empty file whose name ends in ".jsonl", and each note as
// "PATH: reason". Throws as walkLogFolders does.
struct JsonlFiles {
  std::vector<std::string> files;  // sorted, each file once
  std::vector<std::string> notes;  // "PATH: reason" for what was passed over (FIFOs, loops, unreadable folders)
};
JsonlFiles listJsonlFiles(const std::vector<std::string>& roots);

}  // namespace railtune::analysis::ingest
