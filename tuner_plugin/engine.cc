// The cost-table view: what the rules library and the engines share.
#include "tuner_plugin/engine.h"

namespace railtune::tuner {

bool CostTableView::prefer(Algorithm a, Protocol p) {
  if (!available(a, p)) return false;  // forcing a combination NCCL did not set up would break the job
  table_[index(a)][index(p)] = 0.0f;
  return true;
}

bool CostTableView::reprice(Algorithm a, Protocol p, float cost) {
  if (!available(a, p) || !(cost >= 0.0f)) return false;  // IGNORE stays IGNORE; a cost is never negative or NaN
  table_[index(a)][index(p)] = cost;
  return true;
}

}  // namespace railtune::tuner
