#include "bench/profiler_bench_output.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <system_error>

#include "bench/profiler_bench_table.h"  // ProfilerBenchError

namespace railtune::bench {
namespace {

constexpr const char* kDirVariable = "RAILTUNE_PROFILE_DIR";

// The value of "key":N in a line of the collective log (keys are unique, numbers unsigned); 0
// when the key is absent.
uint64_t numberAfter(const std::string& line, const std::string& key) {
  const std::string quoted = "\"" + key + "\":";
  const size_t at = line.find(quoted);
  if (at == std::string::npos) return 0;
  return std::strtoull(line.c_str() + at + quoted.size(), nullptr, 10);
}

}  // namespace

ProfileOutputDir::ProfileOutputDir(bool enabled) {
  if (!enabled) {
    unsetenv(kDirVariable);
    return;
  }
  std::string pattern = (std::filesystem::temp_directory_path() / "railtune-profbench-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw ProfilerBenchError("cannot create a directory like " + pattern);
  path_ = pattern;
  setenv(kDirVariable, path_.c_str(), 1);
}

ProfileOutputDir::~ProfileOutputDir() {
  unsetenv(kDirVariable);
  std::error_code ignored;
  if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
}

CollectiveLogCounts countCollectiveLog(const std::string& dir) {
  CollectiveLogCounts counts;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    const std::string suffix = ".collectives.jsonl";
    if (name.size() < suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    ++counts.files;
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) {
      if (line.find("\"record\":\"collective\"") != std::string::npos ||
          line.find("\"record\":\"p2p\"") != std::string::npos) {
        ++counts.records;
      }
      counts.recordsDropped += numberAfter(line, "records_dropped");
      counts.eventsDropped += numberAfter(line, "events_dropped");
    }
  }
  return counts;
}

}  // namespace railtune::bench
