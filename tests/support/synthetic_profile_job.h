// A synthetic job's collective logs, written with the profiler's own renderer (renderCollectiveLine)
// for the tests and the scale benchmark of `railtune profile`: ranks on trays in racks, clocks that
// differ per host by more than a collective lasts, arrival jitter, and injected late ranks, trays and
// racks. Not part of the railtune binary.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/profile_record.h"

namespace railtune::testing::synthetic_profile {

struct Injected {
  enum class Level { Rank, Tray, Rack } level = Level::Rank;
  int index = 0;         // the rank, tray or rack
  double delayUs = 150;  // how late it arrives
  double share = 1.0;    // in this share of the collectives (every k-th)
};

struct JobSpec {
  std::string job = "synthetic";
  int ranks = 16;
  int ranksPerTray = 4;
  int traysPerRack = 18;
  int collectives = 100;
  uint64_t comm = 0x5d3c0f1e2a4b6c7dULL;
  double transferUs = 500;      // from the last arrival to the common end
  double jitterUs = 10;         // arrival jitter, uniform
  double clockSpreadUs = 5000;  // host clock offsets, uniform in +-spread
  uint64_t seed = 1;
  std::vector<Injected> injected;
  std::vector<int> silentRanks;  // ranks that write no file at all
};

std::string hostName(const JobSpec& spec, int rank);  // "r003-t07"
std::string rackName(int rack);                       // "r003"

// How far a tray's realtime clock is off (whole nanoseconds are written).
double clockOffsetUs(const JobSpec& spec, int tray);
// When each collective ends (µs after its period starts): the last arrival plus the transfer time.
std::vector<double> collectiveEndsUs(const JobSpec& spec);
// The collective-log lines of one rank, in seq order.
std::vector<std::string> rankLines(const JobSpec& spec, int rank, const std::vector<double>& endsUs);

// One file per rank (<job>-<host>-<pid>.collectives.jsonl) under `dir`, on `threads` threads.
void writeJob(const JobSpec& spec, const std::string& dir, unsigned threads);

// A rail map (railtune.rail_map.v1) placing the job's trays in racks: one GPU and NIC per rank.
std::string railMapJson(const JobSpec& spec);

}  // namespace railtune::testing::synthetic_profile
