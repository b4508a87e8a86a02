// Synthetic profiler logs of a job that hangs (or does not), for `railtune eval hangs`: the profile
// counterpart of `paths synth`. A job of R ranks (4 GPUs and 4 NICs per host, 18 hosts per rack) runs
// iterations of collectives over several communicators: the world (ring, tree or NVLS-like), and with 16
// ranks or more one per host (NVLink only) and one per GPU index across hosts (a rail-aligned ring).
// Every process writes its collective log as the profiler plugin does (formats/profile_logs.h: header,
// one line per completed operation, a hang record per operation its watchdog found incomplete, with every
// flow's outstanding steps from flow_sim.h), and a process that was stopped or killed writes nothing
// more: the records its writer still held are lost with it. Everything follows from (kind, seed, ranks).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace railtune::eval::hangs {

enum class Pattern { Ring, Tree, Nvls };
const char* patternName(Pattern pattern);

// What the analysis should name first; kind "none" for a job that did not hang.
struct Truth {
  std::string kind = "none";  // "rank", "link", "nic", "none"
  std::string host, toHost, hca;
  int pid = 0, toPid = 0;
  int rank = -1, toRank = -1;  // world ranks
  // Odd seeds write profiler v7 records: each communicator's operations carry one user tag (its place in
  // the iteration, 1..3), which every hung operation the analysis lists must name. Comm id (16 hex
  // digits) -> tag; empty for even seeds.
  std::map<std::string, uint64_t> commTags;
};

struct SynthJob {
  std::string shape;  // "64 ranks, ring, 3 comm kinds, fault in dp AllReduce"
  Truth truth;
  size_t files = 0, lines = 0;
};

// The scenario kinds this generator knows: sigstop, sigkill, never-enters, link-one-direction, nic-down,
// slow-rank, healthy. Writes one collective log per process into `dir`.
SynthJob writeSynthJob(const std::string& kind, uint64_t seed, int ranks, const std::string& dir);

}  // namespace railtune::eval::hangs
