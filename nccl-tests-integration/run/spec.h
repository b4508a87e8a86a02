// What `railtune sweep run` is asked, turned into a sweep ready to run (docs/sweep.md, "Running a sweep"): the
// options checked, the binary and the launcher found in PATH, the output folder made, -J support asked of the
// binary, the plan made (plan.h), and what the user should be told. Unlike plan.h this reads the file system
// and the environment: it is what the command does before its first run, callable without the command line.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "nccl-tests-integration/run/plan.h"

namespace railtune::sweep {

// The options of `railtune sweep run`, as given.
struct SweepRequest {
  std::string output;                               // -o DIR
  std::string launcher;                             // --launcher, one string ("srun -N 2")
  std::string algos, protos, channels, chunkSizes;  // comma-separated lists; "" = the defaults
  int repeats = 1;
  int nvlDomains = 0;
  std::string mnnvl;
  std::optional<ManifestFabric> fabric;  // --rail-map / --fabric, read by the caller
  double timeout = 0;
  std::string json = "auto";  // auto, on, off
  std::string tunerPlugin;    // for --chunk-sizes; "" = defaultTunerPlugin
  std::string defaultTunerPlugin;
  std::string test;              // --test, when the binary's name does not say
  std::vector<std::string> env;  // --env NAME=V1,V2,..., one per variable of the matrix
  bool dryRun = false;
  bool restart = false;
  std::vector<std::string> command;  // the nccl-tests binary and its arguments
};

struct PreparedSweep {
  SweepSpec spec;
  Plan plan;
  std::vector<std::string> notes;  // for the user, in order: what was found, left out or overridden
  std::vector<std::string> unset;  // variables removed from every run's environment (the sweep forces them)
  std::string jsonNote;            // what --json auto found or could not ask ("" when it was not asked)
};

// Checks the request and resolves the binary, the launcher, the test and the matrix. Throws
// std::invalid_argument naming the option at fault; notes gets what the user should know (a binary or a plugin
// that only the launcher's hosts have).
SweepSpec makeSpec(const SweepRequest& request, std::vector<std::string>& notes);

// The output folder, absolute; when create, made and checked writable. Throws std::invalid_argument naming -o.
std::string prepareOutputFolder(const std::string& given, bool create);

// makeSpec, the folder (made unless a dry run), -J support (--json auto asks `BINARY -h` unless a dry run), the
// plan, and the notes on variables of the caller's environment that the sweep removes or that move NCCL's own
// choice. Throws std::invalid_argument as makeSpec, prepareOutputFolder and makePlan do.
PreparedSweep prepareSweep(const SweepRequest& request);

// The runs an earlier sweep in the folder finished, which a resumed sweep skips (none with restart, or when
// the folder has no manifest yet). For a dry run's plan: the real run reads the manifest itself.
std::set<std::string> runsDoneBefore(const PreparedSweep& sweep, bool restart);

}  // namespace railtune::sweep
