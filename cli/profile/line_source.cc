// The profile readers over the shared walk and line reader (line_source.h).
#include "cli/profile/line_source.h"

#include "cli/paths/log_folder.h"

namespace railtune::cli::profile {

logio::ReadOutcome forEachLine(const std::string& path, size_t padding,
                               const std::function<bool(std::string_view, int)>& onLine,
                               const std::function<void(int, size_t)>& onTooLong) {
  logio::LineHandlers handlers;
  handlers.line = [&onLine](std::string_view line, int number, size_t) { return onLine(line, number); };
  handlers.tooLong = onTooLong;
  return logio::forEachLine(path, padding, handlers);
}

JsonlFiles listJsonlFiles(const std::vector<std::string>& folders) {
  const logio::FolderWalk walk =
      logio::walkLogFolders(folders, [](std::string_view name) { return name.size() > 6 && name.ends_with(".jsonl"); });
  JsonlFiles out;
  for (const logio::WalkedFile& file : walk.files)
    if (file.bytes > 0) out.files.push_back(file.path);  // an empty log (a rank without flows) holds nothing
  for (const logio::WalkNote& note : walk.notes) out.notes.push_back(note.path + ": " + note.message);
  return out;
}

}  // namespace railtune::cli::profile
