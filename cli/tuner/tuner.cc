// `railtune tuner <subcommand>`: what the tuner plugin decides and why. Each subcommand lives in its own
// file and is registered here; the group runs whichever was chosen.
#include <memory>
#include <vector>

#include "cli/commands.h"
#include "cli/tuner/tuner.h"

namespace railtune::cli {

Command addTunerCommand(CLI::App& parent) {
  CLI::App* group = parent.add_subcommand("tuner", "the tuner plugin: what it decides for a communicator, and why");
  group->require_subcommand(1);
  auto subcommands = std::make_shared<std::vector<Command>>(std::vector<Command>{
      addTunerDecisionsCommand(*group),
  });
  return {group, [subcommands] {
            for (const Command& sub : *subcommands)
              if (sub.app->parsed()) return sub.run();
            return 1;  // unreachable: CLI11 requires one subcommand
          }};
}

}  // namespace railtune::cli
