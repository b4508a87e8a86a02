// libFuzzer target for `railtune paths` reading (analysis/paths/path_load.h): the input becomes the only file
// of a folder, which is loaded and checked; it must never crash. Each line is also given to the fast
// reader and the strict one (analysis/paths/path_fast_parse.h): when the fast reader accepts a line, the
// strict reader must accept it too and read the same record.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "analysis/paths/path_check.h"
#include "analysis/paths/path_fast_parse.h"
#include "analysis/paths/path_file.h"
#include "analysis/paths/path_load.h"

namespace {

namespace fs = std::filesystem;
namespace pl = railtune::formats::path_log;
namespace rp = railtune::analysis::paths;

fs::path folderPath() {
  return fs::temp_directory_path() / ("fuzz_paths_load-" + std::to_string(getpid()));
}

void removeFolder() {
  std::error_code ignored;
  fs::remove_all(folderPath(), ignored);
}

// One folder per process, removed when the fuzzer exits.
const fs::path& folder() {
  static const fs::path path = [] {
    const fs::path p = folderPath();
    fs::create_directories(p);
    std::atexit(removeFolder);
    return p;
  }();
  return path;
}

void compareReaders(const std::string& text) {
  size_t start = 0;
  int number = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    const std::string padded = line + std::string(rp::detail::kLinePadding, '\0');
    pl::ParsedRecord fast;
    if (rp::detail::fastParseRecord(padded.data(), line.size(), padded.size(), &fast)) {
      const pl::ParseResult strict = pl::parseRecord(line, "fuzz.jsonl", ++number);
      if (!strict.parsed || !rp::detail::sameRecord(fast, *strict.parsed)) std::abort();
    }
    start = end + 1;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  compareReaders(text);
  const fs::path file = folder() / "job-host-1.jsonl";
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
  const rp::LoadedPaths loaded = rp::loadPathLogs(folder().string(), {});
  for (const rp::JobPaths& job : loaded.jobs) {
    const rp::CheckReport report = rp::checkPaths(job, nullptr);
    for (const rp::Finding& f : report.findings)
      for (long index : f.connections)
        if (index < 0 || static_cast<size_t>(index) >= job.connections.size()) std::abort();
  }
  return 0;
}
