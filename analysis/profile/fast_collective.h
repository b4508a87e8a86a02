// The fast reader of the profiler's collective log (railtune.profile.collectives.v1): one line with
// simdjson's on-demand parser, for the `collective` and `p2p` records that make up nearly all of a log.
// It checks what the strict reader (formats/profile_logs.h, parseCollectiveLine) checks for
// those records: the schema, the exact key set, each field's type and range, and the derived fields
// (duration_us, algbw_gbps, busbw_gbps). It is conservative: whatever it does not accept (a hang or
// dropped record, a string with an escape or a control character, a duplicate key, any error) it hands
// back undecided, and the caller asks the strict reader, which decides and words the message. So the
// pair accepts exactly what the strict reader accepts, and the fast path never has to word an error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "formats/profile_record.h"

namespace railtune::analysis::profile {

// The fields of an accepted line. The string views point into the line itself: valid as long as it is.
struct CollectiveFields {
  std::string_view job, host, op;
  int pid = 0;
  bool p2p = false;  // a "p2p" record (else "collective")
  std::optional<uint64_t> comm;
  int rank = -1;   // -1: absent
  int nRanks = 0;  // 0: absent
  uint64_t seq = 0;
  int peer = -1;  // p2p: the peer rank; -1 absent
  int64_t startRealtimeNs = 0, endRealtimeNs = 0;
  int64_t startMonotonicNs = 0, endMonotonicNs = 0;
  uint64_t eventsDropped = 0;
  uint64_t recordsDropped = 0;  // old files only: the writer now says so in a "dropped" line
  formats::profile::CloseReason closedBy = formats::profile::CloseReason::Events;  // "events" when absent (older files)
  bool enqueueTimed = false;  // "timing": "enqueue": start and end are the enqueue's, not the work's
  // Profiler v7: the application's tag (absent: untagged), the path that ran and the kernel phases.
  std::optional<uint64_t> userTag;
  formats::profile::OperationPath path = formats::profile::OperationPath::Tuned;
  formats::profile::KernelPhases phases;
};

class FastCollectiveReader {
 public:
  FastCollectiveReader();
  ~FastCollectiveReader();
  FastCollectiveReader(const FastCollectiveReader&) = delete;
  FastCollectiveReader& operator=(const FastCollectiveReader&) = delete;

  // `line` (no newline) must be followed by at least paddingBytes() readable bytes (the rest of the
  // buffer it sits in, or padding). Returns the fields, or nothing when the strict reader must decide.
  std::optional<CollectiveFields> read(std::string_view line);

  static size_t paddingBytes();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace railtune::analysis::profile
