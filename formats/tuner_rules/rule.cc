#include "formats/tuner_rules/rule.h"

#include <algorithm>
#include <string_view>

namespace railtune::formats::tuner_rules {
namespace {

constexpr const char* kCollectiveNames[kNumCollectives] = {"broadcast", "reduce", "allgather", "reducescatter",
                                                           "allreduce"};
constexpr const char* kAlgorithmNames[kNumAlgorithms] = {"tree",      "ring", "collnet_direct", "collnet_chain", "nvls",
                                                         "nvls_tree", "pat"};
constexpr const char* kProtocolNames[kNumProtocols] = {"ll", "ll128", "simple"};

template <size_t N>
int indexOf(const char* const (&names)[N], const std::string& name) {
  for (size_t i = 0; i < N; ++i)
    if (name == names[i]) return static_cast<int>(i);
  return -1;
}

// Without case, ASCII only: "AllReduce" and "ALLREDUCE" are "allreduce".
template <size_t N>
int indexOfAnyCase(const char* const (&names)[N], const std::string& name) {
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  for (size_t i = 0; i < N; ++i) {
    const std::string_view known = names[i];
    if (known.size() == name.size() &&
        std::equal(known.begin(), known.end(), name.begin(), [&](char a, char b) { return a == lower(b); }))
      return static_cast<int>(i);
  }
  return -1;
}

template <size_t N>
std::string joined(const char* const (&names)[N]) {
  std::string out;
  for (size_t i = 0; i < N; ++i) out += (i == 0 ? "" : ", ") + std::string(names[i]);
  return out;
}

bool equalsOrAny(int ruleValue, long long actual) {
  return ruleValue == kAny || ruleValue == actual;
}

bool dividesPerRank(Collective c) {
  return c == Collective::AllGather || c == Collective::ReduceScatter;
}

std::string keyText(const char* name, int value) {
  return std::string(" ") + name + "=" + (value == kAny ? "any" : std::to_string(value));
}

}  // namespace

std::string describeRule(const Rule& rule) {
  std::string out = "rule " + std::to_string(rule.number) + " (line " + std::to_string(rule.line) + "): ";
  out += rule.anyCollective ? "any-collective" : collectiveRuleName(rule.collective);
  out += rule.sizeKey == SizeKey::BytesPerRank ? " bytesPerRank=" : " nBytes=";
  out +=
      std::to_string(rule.minBytes) + ".." + (rule.maxBytes == kNoUpperBound ? "max" : std::to_string(rule.maxBytes));
  out += keyText("nNodes", rule.nNodes) + keyText("nRanks", rule.nRanks) + keyText("nvlDomains", rule.nvlDomains);
  out += keyText("ranksPerDomain", rule.ranksPerDomain) + keyText("numPipeOps", rule.numPipeOps);
  out += keyText("regBuff", rule.regBuff);
  out += std::string(" -> ") + algorithmRuleName(rule.algorithm) + "/" + protocolRuleName(rule.protocol);
  out += " channels=" + (rule.channels == 0 ? std::string("keep") : std::to_string(rule.channels));
  out += " chunkSize=" + (rule.chunkSize == 0 ? std::string("keep") : std::to_string(rule.chunkSize));
  return out;
}

std::string RuleError::describe() const {
  if (line == 0) return source + ": " + message;
  return source + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message;
}

std::string RulesResult::describeErrors() const {
  std::string out;
  for (const RuleError& e : errors) out += e.describe() + "\n";
  return out;
}

uint64_t bytesPerRank(Collective collective, uint64_t nBytes, size_t nRanks) {
  if (!dividesPerRank(collective) || nRanks == 0) return nBytes;
  return nBytes / nRanks;
}

bool matchesScope(const Rule& rule, const RuleScope& scope) {
  // ranksPerDomain matches only when every domain has that many ranks.
  const bool perDomain = rule.ranksPerDomain == kAny || (rule.ranksPerDomain == scope.minRanksPerDomain &&
                                                         rule.ranksPerDomain == scope.maxRanksPerDomain);
  return perDomain && equalsOrAny(rule.nNodes, static_cast<long long>(scope.nNodes)) &&
         equalsOrAny(rule.nRanks, static_cast<long long>(scope.nRanks)) &&
         equalsOrAny(rule.nvlDomains, scope.nvlDomains);
}

bool matchesCollective(const Rule& rule, Collective collective) {
  return rule.anyCollective || rule.collective == collective;
}

bool matchesSize(const Rule& rule, Collective collective, uint64_t nBytes, size_t nRanks) {
  const uint64_t size = rule.sizeKey == SizeKey::BytesPerRank ? bytesPerRank(collective, nBytes, nRanks) : nBytes;
  return size >= rule.minBytes && size <= rule.maxBytes;
}

bool matchesCall(const Rule& rule, int numPipeOps, int regBuff) {
  return equalsOrAny(rule.numPipeOps, numPipeOps) && equalsOrAny(rule.regBuff, regBuff);
}

bool nBytesRange(const Rule& rule, Collective collective, size_t nRanks, uint64_t* lo, uint64_t* hi) {
  if (rule.minBytes > rule.maxBytes) return false;
  if (rule.sizeKey == SizeKey::NBytes || !dividesPerRank(collective) || nRanks <= 1) {
    *lo = rule.minBytes;
    *hi = rule.maxBytes;
    return true;
  }
  // bytesPerRank = floor(nBytes / n) lies in [min, max] exactly when nBytes lies in
  // [min * n, (max + 1) * n - 1], clipped to what a uint64_t holds.
  const uint64_t n = nRanks;
  const uint64_t limit = kNoUpperBound / n;
  if (rule.minBytes > limit) return false;
  *lo = rule.minBytes * n;
  *hi = rule.maxBytes >= limit ? kNoUpperBound : (rule.maxBytes + 1) * n - 1;
  return true;
}

const char* collectiveRuleName(Collective c) {
  const int i = static_cast<int>(c);
  return i >= 0 && i < kNumCollectives ? kCollectiveNames[i] : "unknown";
}

const char* algorithmRuleName(Algorithm a) {
  const int i = static_cast<int>(a);
  return i >= 0 && i < kNumAlgorithms ? kAlgorithmNames[i] : "unknown";
}

const char* protocolRuleName(Protocol p) {
  const int i = static_cast<int>(p);
  return i >= 0 && i < kNumProtocols ? kProtocolNames[i] : "unknown";
}

bool collectiveFromRuleName(const std::string& name, Collective* out) {
  const int i = indexOfAnyCase(kCollectiveNames, name);
  if (i >= 0) *out = static_cast<Collective>(i);
  return i >= 0;
}

bool algorithmFromRuleName(const std::string& name, Algorithm* out) {
  const int i = indexOf(kAlgorithmNames, name);
  if (i >= 0) *out = static_cast<Algorithm>(i);
  return i >= 0;
}

bool protocolFromRuleName(const std::string& name, Protocol* out) {
  const int i = indexOf(kProtocolNames, name);
  if (i >= 0) *out = static_cast<Protocol>(i);
  return i >= 0;
}

std::string knownCollectiveNames() {
  return joined(kCollectiveNames);
}
std::string knownAlgorithmNames() {
  return joined(kAlgorithmNames);
}
std::string knownProtocolNames() {
  return joined(kProtocolNames);
}

}  // namespace railtune::formats::tuner_rules
