// Seeded random rule sets for the index's differential test and benchmark, shaped like a rules file
// for a whole cluster: rules for many communicator sizes, mostly narrow byte ranges (a factor of
// 1 to 16 around a log-uniform size) with some open-ended or full ones, and a wildcard in every
// key some of the time. They overlap freely.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <utility>

#include "tuner_plugin/rules/rule.h"

namespace railtune::tuner::rules::testing {

// The communicator-wide values the random rules pick from.
inline constexpr int kRandomNodes[] = {1, 2, 4, 8, 18, 36};
inline constexpr int kRandomRanksPerNode[] = {4, 72};

inline uint64_t randomSize(std::mt19937_64& rng) {
  const int bits = std::uniform_int_distribution<int>(0, 36)(rng);
  return bits == 0 ? 0 : std::uniform_int_distribution<uint64_t>(uint64_t{1} << (bits - 1), uint64_t{1} << bits)(rng);
}

// A wildcard with probability 1/anyOneIn, else one of the values.
template <typename T, size_t N>
int pickOrAny(std::mt19937_64& rng, const T (&values)[N], unsigned anyOneIn) {
  if (rng() % anyOneIn == 0) return kAny;
  return static_cast<int>(values[rng() % N]);
}

inline void randomRange(std::mt19937_64& rng, Rule& r) {
  const uint64_t lo = randomSize(rng);
  const uint64_t width = lo << (rng() % 5);
  r.minBytes = rng() % 8 == 0 ? 0 : lo;
  r.maxBytes = rng() % 8 == 0 || width > kNoUpperBound - lo ? kNoUpperBound : lo + width;
}

inline Rule randomRule(std::mt19937_64& rng, uint32_t number) {
  Rule r;
  r.number = number;
  r.line = number;
  r.anyCollective = rng() % 16 == 0;
  r.collective = static_cast<Collective>(rng() % kNumCollectives);
  r.sizeKey = rng() % 2 == 0 ? SizeKey::NBytes : SizeKey::BytesPerRank;
  randomRange(rng, r);
  r.algorithm = static_cast<Algorithm>(rng() % kNumAlgorithms);
  r.protocol = static_cast<Protocol>(rng() % kNumProtocols);
  r.channels = static_cast<int>(rng() % 65);
  r.chunkSize = rng() % 4 == 0 ? uint64_t{1} << (12 + rng() % 10) : 0;
  const int nodes = pickOrAny(rng, kRandomNodes, 3);
  const int perNode = kRandomRanksPerNode[rng() % 2];
  r.nNodes = nodes;
  r.nRanks = rng() % 3 == 0 ? kAny : (nodes == kAny ? kRandomNodes[rng() % 6] : nodes) * perNode;
  r.nvlDomains = pickOrAny(rng, kRandomNodes, 2);
  r.ranksPerDomain = pickOrAny(rng, kRandomRanksPerNode, 2);
  const int pipeOps[] = {1, 2, 4};
  r.numPipeOps = pickOrAny(rng, pipeOps, 2);
  const int regBuff[] = {0, 1};
  r.regBuff = pickOrAny(rng, regBuff, 2);
  return r;
}

inline RuleSet randomRuleSet(uint64_t seed, size_t count) {
  std::mt19937_64 rng(seed);
  RuleSet set;
  set.source = "random";
  for (size_t i = 0; i < count; ++i) set.rules.push_back(randomRule(rng, static_cast<uint32_t>(i + 1)));
  return set;
}

// A cost table with each cell IGNOREd with probability 1/4, as NCCL_ALGO/NCCL_PROTO and support
// checks leave it.
struct RandomCells {
  bool usable[kNumAlgorithms][kNumProtocols];
  explicit RandomCells(std::mt19937_64& rng) {
    for (auto& row : usable)
      for (bool& cell : row) cell = rng() % 4 != 0;
  }
  bool operator()(Algorithm a, Protocol p) const { return usable[static_cast<int>(a)][static_cast<int>(p)]; }
};

// One rule in railtune's JSON rules format (readRules reads it back to the same rule, numbering aside).
inline std::string ruleJson(const Rule& r) {
  std::string j = "{";
  if (!r.anyCollective) j += "\"collective\": \"" + std::string(collectiveRuleName(r.collective)) + "\", ";
  j += std::string(r.sizeKey == SizeKey::NBytes ? "\"nBytes\"" : "\"bytesPerRank\"") +
       ": {\"min\": " + std::to_string(r.minBytes) +
       (r.maxBytes == kNoUpperBound ? "" : ", \"max\": " + std::to_string(r.maxBytes)) + "}, ";
  const std::pair<const char*, int> keys[] = {{"nNodes", r.nNodes},         {"nRanks", r.nRanks},
                                              {"nvlDomains", r.nvlDomains}, {"ranksPerDomain", r.ranksPerDomain},
                                              {"numPipeOps", r.numPipeOps}, {"channels", r.channels}};
  for (const auto& [key, value] : keys)
    if (value > 0) j += "\"" + std::string(key) + "\": " + std::to_string(value) + ", ";
  if (r.regBuff != kAny) j += std::string("\"regBuff\": ") + (r.regBuff ? "true" : "false") + ", ";
  if (r.chunkSize) j += "\"chunkSize\": " + std::to_string(r.chunkSize) + ", ";
  return j + "\"algorithm\": \"" + algorithmRuleName(r.algorithm) + "\", \"protocol\": \"" +
         protocolRuleName(r.protocol) + "\"}";
}

}  // namespace railtune::tuner::rules::testing
