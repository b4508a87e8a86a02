// The file a railtune writer wrote for a job, host and pid, whatever tag its process put in the name:
// "<stem>.<tag>.<kind>", or "<stem>.<kind>" as earlier versions named it (common/record_files.h). For
// tests that know the identity but not the writer's process (a forked child, a plugin the emulator
// loaded).
#pragma once

#include <filesystem>
#include <string>

namespace railtune::testing {

// `stem` is "<job>-<host>-<pid>", `kind` "collectives.jsonl", "trace.json", "jsonl"... The untagged
// path when no such file is there (yet), so that a test reading it names the file it missed.
inline std::filesystem::path findRecordFile(const std::filesystem::path& dir, const std::string& stem,
                                            const std::string& kind) {
  namespace fs = std::filesystem;
  const std::string head = stem + ".", tail = "." + kind;
  std::error_code error;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name == stem + tail) return it->path();
    if (name.size() <= head.size() + tail.size() || !name.starts_with(head) || !name.ends_with(tail)) continue;
    const std::string tag = name.substr(head.size(), name.size() - head.size() - tail.size());
    if (tag.find('.') == std::string::npos) return it->path();
  }
  return dir / (stem + tail);
}

}  // namespace railtune::testing
