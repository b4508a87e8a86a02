// The cost-table view: what the rules library and the engines share.
#include "tuner_plugin/engine.h"

namespace railtune::tuner {

bool CostTableView::prefer(Algorithm a, Protocol p) {
  if (!available(a, p)) return false;  // forcing a combination NCCL did not set up would break the job
  table_[index(a)][index(p)] = 0.0f;
  return true;
}

}  // namespace railtune::tuner
