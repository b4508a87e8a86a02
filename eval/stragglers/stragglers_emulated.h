// The stragglers suite's emulated scenarios: a small job (8 or 16 ranks, one process each) run through the real net
// and profiler plugin .so files by `railtune emu net-job --profile-dir`, then `railtune profile stragglers --json` on
// its profile folder with its rail map, as a user runs them. `emu-late-rank` makes one rank late before each timed
// collective (net-job's --delay-rank/--delay-us: the application sleeps before the call, which is what a straggler
// is); `emu-one-host-clock` injects nothing. Every process runs on this one machine, so all share its boot id and
// its clock: the truth for the host clock offsets is exactly 0 in both kinds, and the offender is the delayed rank,
// named at rank level, or nobody.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "eval/common/suite.h"

namespace railtune::eval::stragglers {

// Emulated seeds from this one on are the full set's (8 or 16 ranks); below it CI's (8 ranks).
inline constexpr uint64_t kFullEmulatedSeeds = 1000;

const std::vector<std::string>& emulatedKinds();  // "emu-late-rank", "emu-one-host-clock"
bool isEmulatedKind(const std::string& kind);

// 1 seed per kind in CI (8 ranks, seconds each), 12 per kind in the full set (8 or 16 ranks).
std::vector<ScenarioSpec> emulatedScenarios(SetSize set);

// Counters named as scoreReport's (score.h), so the suite's targets read them: offenders_true, offenders_named,
// offenders_hit, clock_hosts, clocks_within_bars, clocks_unknown, max_clock_error_us, max_same_machine_us.
ScenarioResult runEmulated(const ScenarioSpec& spec, const RunContext& context);

}  // namespace railtune::eval::stragglers
