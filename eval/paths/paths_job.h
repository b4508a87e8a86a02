// The jobs the paths evaluation feeds to `railtune paths check` and `render` (eval/paths/paths_suite.cc): placed
// and ringed as `railtune paths synth` places them (analysis/synth/placement.h), each connection's two ends
// rendered with the net plugin's own renderer, and one cause injected with its truth: NICs used on another rail
// (misbind), GPUs bound to another rail's NIC (both directions), stale writers caught only by the rail map, ends on
// different rails or planes, digests that differ, and two things that are not violations (PXN, as the net plugin
// and as NCCL's log show it) plus rails nobody knows. Everything is a pure function of (injection, seed, ranks).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/identity.h"
#include "formats/rail_map.h"

namespace railtune::eval::paths {

// A small deterministic generator (splitmix64): the same seed gives the same job on every platform.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next();
  int below(int n) { return n <= 0 ? 0 : static_cast<int>(next() % static_cast<uint64_t>(n)); }

 private:
  uint64_t state_;
};

// One line a process writes, and what it carries (a damaged line loses it).
struct LogLine {
  std::string text;  // without its newline
  int writer = -1;   // index into GeneratedJob::writers
  long end = -1;     // a connect record: its index into GeneratedJob::endConnection; -1: snapshot or close
};

struct Writer {
  Identity identity;
  std::vector<LogLine> lines;  // in the order the process writes them
};

struct GeneratedJob {
  std::string job;
  std::unique_ptr<formats::RailMap> map;
  bool giveRailMap = false;  // the check and render get the rail map (--rail-map)
  std::vector<Writer> writers;
  int connections = 0;                           // logical connections
  std::vector<int> endConnection;                // per connection end (connect record): its logical connection
  std::vector<std::pair<int, uint64_t>> endKey;  // per connection end: its writer and its "conn" id
  std::vector<bool> violating;                   // per logical connection: an injected violation
  int pxn = 0;                                   // connections sent through another GPU's NIC by PXN: not violations
  bool railsUnknown = false;                     // no record names a rail and no rail map is given
  std::string shape;                             // "64 ranks on 16 hosts, 2 planes, 4 channels, MNNVL off"
  std::string injected;                          // what was injected, for a miss's message
};

// The injections, in the order the suite lists them.
const std::vector<std::string>& injectionKinds();

// Throws std::invalid_argument for an unknown injection.
GeneratedJob generateJob(const std::string& injection, uint64_t seed, int ranks);

}  // namespace railtune::eval::paths
