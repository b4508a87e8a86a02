// The profiler's output directory during one benchmark (RAILTUNE_PROFILE_DIR set to a new temporary
// directory, or unset) and what the writer left in it: records written, records the writer's queue
// dropped, events the captures dropped, read from the collective logs.
#pragma once

#include <cstdint>
#include <string>

namespace railtune::bench {

// With `enabled`, makes a temporary directory and points RAILTUNE_PROFILE_DIR at it; without,
// unsets RAILTUNE_PROFILE_DIR. The destructor unsets it and removes the directory.
class ProfileOutputDir {
 public:
  explicit ProfileOutputDir(bool enabled);
  ~ProfileOutputDir();
  ProfileOutputDir(const ProfileOutputDir&) = delete;
  ProfileOutputDir& operator=(const ProfileOutputDir&) = delete;

  const std::string& path() const { return path_; }  // empty when disabled

 private:
  std::string path_;
};

struct CollectiveLogCounts {
  int files = 0;                // collective logs found
  uint64_t records = 0;         // "collective" and "p2p" lines
  uint64_t recordsDropped = 0;  // the sum of records_dropped
  uint64_t eventsDropped = 0;   // the sum of events_dropped
};

// Reads every *.collectives.jsonl file under `dir` (call it after the last communicator's finalize,
// when the writer has written everything).
CollectiveLogCounts countCollectiveLog(const std::string& dir);

}  // namespace railtune::bench
