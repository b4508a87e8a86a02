// `railtune sweep <subcommand>`: nccl-tests sweeps → dataset → tuner rules → tuned-vs-default report. Each
// subcommand lives in its own file and is registered here, one line each.
#include <iostream>
#include <memory>
#include <vector>

#include "cli/commands.h"
#include "cli/sweep/sweep.h"

namespace railtune::cli {

void printWarning(std::string_view what) {
  std::cerr << "railtune: warning: " << what << "\n";
}

Command addSweepCommand(CLI::App& parent) {
  CLI::App* sweep = parent.add_subcommand(
      "sweep",
      "nccl-tests sweeps: run them, parse them into a dataset, derive tuner rules, compare tuned with default");
  sweep->require_subcommand(1);
  auto subcommands = std::make_shared<std::vector<Command>>(std::vector<Command>{
      addSweepRunCommand(*sweep),
      addSweepParseCommand(*sweep),
      addSweepRulesCommand(*sweep),
      addSweepCompareCommand(*sweep),
  });
  return {sweep, [subcommands]() {
            for (const Command& command : *subcommands)
              if (command.app->parsed()) return command.run();
            return 2;
          }};
}

}  // namespace railtune::cli
