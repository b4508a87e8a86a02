// The shared folder walk (folder_walk.h): POSIX calls, so that links, loops and special files are
// decided here rather than by std::filesystem's defaults (which neither follow folder links nor say
// which folder could not be read).
#include "analysis/ingest/folder_walk.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <utility>

namespace railtune::analysis::ingest {
namespace {

using NodeId = std::pair<uint64_t, uint64_t>;  // device, inode

NodeId idOf(const struct stat& st) {
  return {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
}

const char* specialKind(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

class Walker {
 public:
  explicit Walker(const std::function<bool(std::string_view)>& wanted) : wanted_(wanted) {}

  void root(const std::string& folder) {
    struct stat st {};
    if (::stat(folder.c_str(), &st) != 0) throw std::runtime_error(folder + ": not a folder: " + std::strerror(errno));
    if (!S_ISDIR(st.st_mode)) throw std::runtime_error(folder + ": not a folder");
    std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(folder.c_str()), &::closedir);
    if (!dir) throw std::runtime_error(folder + ": cannot read the folder: " + std::strerror(errno));
    dir.reset();
    if (!folders_.emplace(idOf(st), folder).second) return;  // the same folder given twice
    pending_.push_back(folder);
    while (!pending_.empty()) {
      const std::string next = std::move(pending_.back());
      pending_.pop_back();
      list(next);
    }
  }

  FolderWalk finish() {
    std::sort(walk_.files.begin(), walk_.files.end(),
              [](const WalkedFile& a, const WalkedFile& b) { return a.path < b.path; });
    return std::move(walk_);
  }

 private:
  void note(const std::string& path, std::string message) { walk_.notes.push_back({path, std::move(message)}); }

  void list(const std::string& folder) {
    std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(folder.c_str()), &::closedir);
    if (!dir) return note(folder, std::string("cannot read the folder: ") + std::strerror(errno));
    std::vector<std::string> names;
    for (;;) {
      errno = 0;
      const dirent* found = ::readdir(dir.get());
      if (found == nullptr) {
        if (errno != 0) note(folder, std::string("cannot read all of the folder: ") + std::strerror(errno));
        break;
      }
      const std::string name = found->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    dir.reset();
    // Sorted, then pushed in reverse: folders are read in name order, and which path of a file reached
    // twice is kept does not depend on the file system's order.
    std::sort(names.begin(), names.end());
    std::vector<std::string> subfolders;
    const std::string prefix = folder.ends_with('/') ? folder : folder + "/";
    for (const std::string& name : names) entry(prefix + name, name, &subfolders);
    for (auto it = subfolders.rbegin(); it != subfolders.rend(); ++it) pending_.push_back(std::move(*it));
  }

  void entry(const std::string& path, const std::string& name, std::vector<std::string>* subfolders) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
      const int error = errno;
      if (wanted_(name)) note(path, std::string("cannot read: ") + std::strerror(error));
      return;
    }
    const bool link = S_ISLNK(st.st_mode);
    if (link && ::stat(path.c_str(), &st) != 0) {  // ELOOP for a chain of links, ENOENT when dangling
      const int error = errno;
      if (!wanted_(name)) return;  // a link whose target is unknown counts as a file by its name
      return note(path, error == ENOENT ? std::string("a symbolic link to nothing (dangling); skipped")
                                        : std::string("cannot follow the symbolic link: ") + std::strerror(error));
    }
    const char* via = link ? " (through a symbolic link)" : "";
    if (S_ISDIR(st.st_mode)) {
      const auto [it, added] = folders_.emplace(idOf(st), path);
      // A link back to a folder already read (a loop, or a second way to the logs) is named; a real
      // sub-folder already read is one given twice on the command line, and says nothing new.
      if (!added && link)
        note(path, std::string("leads to a folder already read (") + it->second + ")" + via + "; not read again");
      if (!added) return;
      subfolders->push_back(path);
      return;
    }
    if (!wanted_(name)) return;
    if (!S_ISREG(st.st_mode))
      return note(path, std::string(specialKind(st.st_mode)) + via + ", not a log file; skipped");
    const auto [it, added] = files_.emplace(idOf(st), path);
    if (!added) return note(path, "the same file as " + it->second + "; read once");
    walk_.files.push_back(WalkedFile{path, static_cast<uint64_t>(st.st_size)});
  }

  const std::function<bool(std::string_view)>& wanted_;
  std::map<NodeId, std::string> folders_, files_;
  std::vector<std::string> pending_;
  FolderWalk walk_;
};

}  // namespace

FolderWalk walkLogFolders(const std::vector<std::string>& roots, const std::function<bool(std::string_view)>& wanted) {
  Walker walker(wanted);
  for (const std::string& root : roots) walker.root(root);
  return walker.finish();
}

JsonlFiles listJsonlFiles(const std::vector<std::string>& roots) {
  const FolderWalk walk =
      walkLogFolders(roots, [](std::string_view name) { return name.size() > 6 && name.ends_with(".jsonl"); });
  JsonlFiles out;
  for (const WalkedFile& file : walk.files)
    if (file.bytes > 0) out.files.push_back(file.path);  // an empty log (a rank without flows) holds nothing
  for (const WalkNote& note : walk.notes) out.notes.push_back(note.path + ": " + note.message);
  return out;
}

}  // namespace railtune::analysis::ingest
