// The paths suite's emulated scenarios: a small job (8 to 16 ranks) run through the real net plugin .so by
// `railtune emu net-job`, one process per rank, writing real path logs; then `railtune paths check --json` and
// `railtune paths render` run on the job's path-log folder with the job's rail map, as a user runs them.
// `emu-misbound` binds one rank's GPU to another rail's HCA with the plugin's own fault injection
// (RAILTUNE_NET_FAULT_MISBIND, through net-job's --fault-rank/--fault); `emu-healthy` injects nothing. The truth
// is derived from the injection and the rail map, never from the logs: every plugin connection of the misbound
// rank (sending or receiving) is a violation, no other connection is, and the counts are those of the job's
// plugin edges (emulator/net_job/schedule.h), the same plan the job runs.
#pragma once

#include <string>
#include <vector>

#include "eval/common/suite.h"

namespace railtune::eval::paths {

const std::vector<std::string>& emulatedKinds();  // "emu-misbound", "emu-healthy"
bool isEmulatedKind(const std::string& kind);

// The emulated scenarios of a set: 1 seed per kind in CI (a second or so each), 20 in the full set.
std::vector<ScenarioSpec> emulatedScenarios(SetSize set);

// Counters as the suite's scorer names them (injected_violations, found_violations, false_violations,
// counts_compared, count_mismatches), so the suite's targets hold them too.
ScenarioResult runEmulated(const ScenarioSpec& spec, const RunContext& context);

}  // namespace railtune::eval::paths
