// The profile readers over the shared walk and line reader (jsonl_source.h).
#include "analysis/ingest/jsonl_source.h"

#include "analysis/ingest/folder_walk.h"

namespace railtune::analysis::profile {

ingest::ReadOutcome forEachLine(const std::string& path, size_t padding,
                                const std::function<bool(std::string_view, int)>& onLine,
                                const std::function<void(int, size_t)>& onTooLong) {
  ingest::LineHandlers handlers;
  handlers.line = [&onLine](std::string_view line, int number, size_t) { return onLine(line, number); };
  handlers.tooLong = onTooLong;
  return ingest::forEachLine(path, padding, handlers);
}

JsonlFiles listJsonlFiles(const std::vector<std::string>& folders) {
  const ingest::FolderWalk walk = ingest::walkLogFolders(
      folders, [](std::string_view name) { return name.size() > 6 && name.ends_with(".jsonl"); });
  JsonlFiles out;
  for (const ingest::WalkedFile& file : walk.files)
    if (file.bytes > 0) out.files.push_back(file.path);  // an empty log (a rank without flows) holds nothing
  for (const ingest::WalkNote& note : walk.notes) out.notes.push_back(note.path + ": " + note.message);
  return out;
}

}  // namespace railtune::analysis::profile
