// The tuner's scope of a communicator for its rules (rule.h).
#include "tuner_plugin/rules/rule.h"

namespace railtune::tuner::rules {

RuleScope scopeOf(const CommInfo& comm) {
  RuleScope scope;
  scope.nRanks = comm.nRanks == 0 ? 1 : comm.nRanks;
  scope.nNodes = comm.nNodes == 0 ? 1 : comm.nNodes;
  if (comm.nvl && comm.nvl->nDomains > 0) {
    scope.nvlDomains = comm.nvl->nDomains;
    scope.minRanksPerDomain = comm.nvl->minRanksPerDomain;
    scope.maxRanksPerDomain = comm.nvl->maxRanksPerDomain;
    return scope;
  }
  scope.nvlDomains = static_cast<int>(scope.nNodes);
  scope.minRanksPerDomain = static_cast<int>(scope.nRanks / scope.nNodes);
  scope.maxRanksPerDomain = static_cast<int>((scope.nRanks + scope.nNodes - 1) / scope.nNodes);
  return scope;
}

}  // namespace railtune::tuner::rules
