// `railtune sweep <subcommand>`: nccl-tests sweeps → dataset → tuner rules → tuned-vs-default report. Each
// subcommand lives in its own file and is registered here, one line each.
#include <iostream>

#include "cli/commands.h"
#include "cli/sweep/sweep.h"

namespace railtune::cli {

void printWarning(std::string_view what) {
  std::cerr << "railtune: warning: " << what << "\n";
}

Command addSweepCommand(CLI::App& parent) {
  return addCommandGroup(
      parent, "sweep",
      "nccl-tests sweeps: run them, parse them into a dataset, derive tuner rules, fit NCCL's model, compare tuned "
      "with default",
      {addSweepRunCommand, addSweepParseCommand, addSweepRulesCommand, addSweepFitCommand, addSweepCompareCommand});
}

}  // namespace railtune::cli
