// Tuning rules as railtune holds them, whichever file format they came from (NCCL's example CSV or
// railtune's JSON), and the one definition of when a rule matches. The format is spoken by several tools:
// the tuner plugin reads it (tuner_plugin/rules: its lookup index and the linear reference scan both build
// on these predicates, so they cannot disagree on semantics), `railtune sweep rules` writes it and reads it
// back, `sweep compare --rules` asks it what it chooses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "formats/nccl_enums.h"

namespace railtune::formats::tuner_rules {

inline constexpr int kAny = -1;  // wildcard for the integer keys, as in NCCL's example CSV
inline constexpr uint64_t kNoUpperBound = std::numeric_limits<uint64_t>::max();
inline constexpr size_t kMaxRules = 100'000;
inline constexpr size_t kMaxLineBytes = 4096;       // a CSV line, without its line break
inline constexpr size_t kMaxFileBytes = 64u << 20;  // readRulesFile refuses larger files
inline constexpr size_t kMaxErrorsReported = 20;    // then one "further errors" line
inline constexpr int kMaxChannels = 64;             // NCCL's MAXCHANNELS
inline constexpr uint64_t kMaxChunkSize = uint64_t{1} << 30;

// Which size the byte range of a rule applies to: NCCL's nBytes (the CSV's only choice) or the
// bytes each rank contributes (bytesPerRank below).
enum class SizeKey : uint8_t { NBytes, BytesPerRank };

struct Rule {
  bool anyCollective = false;  // railtune JSON only; the CSV always names one
  Collective collective = Collective::AllReduce;
  SizeKey sizeKey = SizeKey::NBytes;
  uint64_t minBytes = 0;              // inclusive
  uint64_t maxBytes = kNoUpperBound;  // inclusive
  Algorithm algorithm = Algorithm::Ring;
  Protocol protocol = Protocol::Simple;
  int channels = 0;        // 0 = keep NCCL's nChannels (the CSV's -1 becomes 0)
  uint64_t chunkSize = 0;  // bytes for v6 getChunkSize; 0 = keep NCCL's
  int nNodes = kAny;
  int nRanks = kAny;
  int nvlDomains = kAny;
  int ranksPerDomain = kAny;
  int numPipeOps = kAny;
  int regBuff = kAny;   // 0 or 1
  uint32_t number = 0;  // 1-based position in its RuleSet: "rule n" in decision reasons
  size_t line = 0;      // where the rule starts in its source
};

struct RuleSet {
  std::string source;  // file name or other label used in messages
  std::vector<Rule> rules;
};

// One problem in a rules source. line and column are 1-based; line 0 means the whole source.
struct RuleError {
  std::string source;
  size_t line = 0;
  size_t column = 0;
  std::string message;
  std::string describe() const;  // "source:line:column: message"
};

struct RulesResult {
  RuleSet ruleSet;  // empty when there are errors
  std::vector<RuleError> errors;
  bool ok() const { return errors.empty(); }
  std::string describeErrors() const;  // one line per error
};

// The communicator-wide values the rules key on, fixed for a communicator's lifetime.
struct RuleScope {
  size_t nRanks = 1;
  size_t nNodes = 1;
  int nvlDomains = 1;
  int minRanksPerDomain = 1;
  int maxRanksPerDomain = 1;
};

// Bytes each rank contributes to a collective whose NCCL size is nBytes. NCCL passes the tuner
// elementSize * count for Broadcast, Reduce and AllReduce (the buffer every rank holds) and
// elementSize * count * nRanks for AllGather and ReduceScatter (the whole gathered or scattered
// buffer), so the last two are divided by nRanks (rounded down; NCCL's sizes divide exactly).
// nccl-tests' `size` column equals NCCL's nBytes for all five collectives.
uint64_t bytesPerRank(Collective collective, uint64_t nBytes, size_t nRanks);

// The parts of a match, as a first-match scan checks them.
bool matchesScope(const Rule& rule, const RuleScope& scope);
bool matchesCollective(const Rule& rule, Collective collective);
bool matchesSize(const Rule& rule, Collective collective, uint64_t nBytes, size_t nRanks);
bool matchesCall(const Rule& rule, int numPipeOps, int regBuff);

// The rule's size range as an inclusive nBytes range for this collective and rank count.
// Returns false when no nBytes maps into it.
bool nBytesRange(const Rule& rule, Collective collective, size_t nRanks, uint64_t* lo, uint64_t* hi);

// One line naming everything the rule keys on and sets, for logs, decision reasons and goldens:
// "rule 2 (line 14): allgather bytesPerRank=1048576..max nNodes=any ... -> ring/simple channels=32 ..."
std::string describeRule(const Rule& rule);

// Spellings shared by both formats: NCCL's example CSV names, lowercase ("allreduce", "nvls_tree",
// "ll128"). Algorithm and protocol lookups are exact (case-sensitive, as NCCL's example compares with
// strcmp). Collective names are compared without case, so NCCL's own spelling ("AllReduce", which
// `railtune tuner decisions --collectives` and NCCL's logs use) reads as "allreduce": one parser for a
// collective's name wherever railtune reads one.
const char* collectiveRuleName(Collective c);
const char* algorithmRuleName(Algorithm a);
const char* protocolRuleName(Protocol p);
bool collectiveFromRuleName(const std::string& name, Collective* out);
bool algorithmFromRuleName(const std::string& name, Algorithm* out);
bool protocolFromRuleName(const std::string& name, Protocol* out);
std::string knownCollectiveNames();  // "broadcast, reduce, ..." for error messages
std::string knownAlgorithmNames();
std::string knownProtocolNames();

}  // namespace railtune::formats::tuner_rules
