// A synthetic job for the profile analyses' tests, made by railtune's one generator (analysis/synth,
// what `railtune paths synth` writes): ranks on trays in racks of a small rail map, named late ranks,
// trays and racks, host clocks that differ by more than a collective lasts, arrival jitter. The tests
// turn the end jitter off, so that every rank of a collective ends at the same true time and an
// estimate of the clocks can be checked to the nanosecond.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analysis/synth/synth_job.h"

namespace railtune::testing::synthetic_profile {

struct Injected {
  enum class Level { Rank, Tray, Rack } level = Level::Rank;
  int index = 0;          // the rank, tray or rack
  double delayUs = 1500;  // how late it arrives
  double share = 1.0;     // in this share of the collectives (every k-th, from the first)
};

struct JobSpec {
  std::string job = "synthetic";
  int ranks = 16;
  int ranksPerTray = 4;
  int traysPerRack = 18;
  int collectives = 100;
  double jitterUs = 10;         // arrival jitter, uniform
  double clockSpreadUs = 5000;  // host clock offsets, uniform in +-spread
  double driftPpm = 0;          // host clock drift, uniform in +-this
  int traysPerClock = 1;        // consecutive trays that are one machine (one clock)
  bool bootIds = false;         // each log starts with a header naming its machine's boot id
  uint64_t seed = 1;
  std::vector<Injected> injected;
  std::vector<int> silentRanks;  // ranks that write no file at all
  analysis::synth::V7Spec v7;    // profiler v7 records: tags, paths, kernel phases (analysis/synth/step_phases.h)
};

// A rail map (railtune.rail_map.v1) of the job's trays in racks: hosts "r003-t07" in racks "r003", one
// GPU and NIC per rank, a rail per GPU position.
std::string railMapJson(const JobSpec& spec);

// The job as analysis/synth decides it on that rail map.
std::unique_ptr<analysis::synth::SynthJob> makeJob(const JobSpec& spec);

// Each rank's collective log (<job>-<host>-<pid>.collectives.jsonl) under `dir`, on `threads` threads;
// no path logs.
void writeJob(const JobSpec& spec, const std::string& dir, unsigned threads);

// How far a tray's realtime clock is off (at the job's true time 0), and how fast it drifts.
double clockOffsetUs(const JobSpec& spec, int tray);
double clockDriftPpm(const JobSpec& spec, int tray);

// The collective-log lines of one rank, in seq order.
std::vector<std::string> rankLines(const JobSpec& spec, int rank);

}  // namespace railtune::testing::synthetic_profile
