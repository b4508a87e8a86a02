// How far each rank of a job got in each of its communicators (for `profile hangs`, internal): which
// operations it completed last, the operations it is missing although it went past them (a gap in its
// records), and the first operation others completed that it never reached (where it stalled).
// Operations are keyed as NCCL numbers them: a collective by (comm, op, seq), seq counted per collective
// type; a transfer by (comm, sender, receiver, seq), seq counted per kind and peer on each side.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/profile/logs.h"

namespace railtune::analysis::profile {

struct CommRank {
  bool hasComm = false;
  uint64_t comm = 0;
  int rank = -1;
  auto operator<=>(const CommRank&) const = default;
};

// A collective: op and seq (from = to = -1). A transfer: op "p2p", the sender, the receiver, and seq.
struct OpKey {
  std::string op;
  uint64_t seq = 0;
  int from = -1, to = -1;
  bool p2p() const { return from >= 0; }
  auto operator<=>(const OpKey&) const = default;
};

// Seqs of one (comm, rank, op) that the rank is missing below a seq it completed.
struct MissingRun {
  CommRank who;
  OpKey first;  // the first missing
  uint64_t lastSeq = 0, count = 0;
};

// The first operation others completed that a rank did not: where it stopped.
struct Stall {
  CommRank who;
  OpKey key;
};

class JobProgress {
 public:
  JobProgress(const ProfileLogs& logs, uint32_t job);

  // Whether the rank completed something that comes after `key` (a later seq of the same series, or an
  // operation its communicator's reference rank completed after it): then a missing record is a gap.
  bool passed(const CommRank& who, const OpKey& key) const;
  // Its highest completed seq of the key's series (op, or kind and peer); -1 none.
  int64_t lastSeq(const CommRank& who, const OpKey& key) const;
  // Realtime end of its last completion in the communicator; INT64_MIN none.
  int64_t lastEndNs(const CommRank& who) const;
  bool wrote(const CommRank& who) const { return hosts_.contains(who); }
  const std::string& host(const CommRank& who) const;
  const std::map<CommRank, std::string>& ranks() const { return hosts_; }

  std::vector<MissingRun> gaps;  // by comm, rank, op, seq
  std::vector<Stall> stalls;     // at most one per comm and rank

 private:
  void readSamples(const ProfileLogs& logs, uint32_t job);
  void readTransfers(const ProfileLogs& logs, uint32_t job);
  void chooseReferences();
  void findCollectiveGaps(const ProfileLogs& logs, uint32_t job);
  void findTransferGaps();
  void addMissing(const CommRank& who, const OpKey& key, std::map<CommRank, std::pair<int64_t, OpKey>>* first);

  std::map<CommRank, std::string> hosts_;
  std::map<std::pair<CommRank, std::string>, int64_t> maxSeq_;                  // collectives, by op
  std::map<std::tuple<CommRank, int, bool>, std::vector<uint64_t>> transfers_;  // (rank, peer, send): seqs
  std::map<CommRank, std::pair<int64_t, OpKey>> last_;                          // its last completion: end and key
  std::map<std::pair<bool, uint64_t>, std::vector<int>> references_;            // per comm: ranks with most completions
  std::map<std::pair<CommRank, OpKey>, int64_t> referenceEnds_;                 // the references' completions
  std::map<std::pair<CommRank, OpKey>, size_t> openRuns_;                       // per series (seq 0): its last gap
};

}  // namespace railtune::analysis::profile
