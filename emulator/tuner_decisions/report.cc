// The counts a decisions report gives of its rows (report.h).
#include "emulator/tuner_decisions/report.h"

namespace railtune::emu {

size_t DecisionsReport::mismatches() const {
  size_t n = 0;
  for (const DecisionRow& row : rows) n += row.reason.kind == DecisionReason::Kind::Mismatch ? 1 : 0;
  return n;
}

DecisionsReport::Changed DecisionsReport::changed() const {
  Changed c;
  for (const DecisionRow& row : rows) {
    if (row.bypass.path != ncclmodel::BypassPath::Tuned) {
      ++c.bypassed;  // the tuner's pick never runs here
      continue;
    }
    if (row.nccl == row.railtune) continue;
    ++c.rows;
    c.byRules += row.reason.kind == DecisionReason::Kind::Rule ? 1 : 0;
    c.byModel += row.reason.kind == DecisionReason::Kind::Model ? 1 : 0;
    c.byFit += row.reason.kind == DecisionReason::Kind::Fit ? 1 : 0;
    c.mismatched += row.reason.kind == DecisionReason::Kind::Mismatch ? 1 : 0;
  }
  return c;
}

bool DecisionsReport::pathShown() const {
  if (bypass.given) return true;
  for (const DecisionRow& row : rows)
    if (row.bypass.path != ncclmodel::BypassPath::Tuned || !row.bypass.caveat.empty()) return true;
  return false;
}

}  // namespace railtune::emu
