// `railtune profile <subcommand>`: what the profiler's collective logs say about a job's slow and hung
// ranks. Each subcommand lives in its own file and is registered here, one line each.
#include <memory>
#include <vector>

#include "cli/commands.h"
#include "cli/profile/profile.h"

namespace railtune::cli {

Command addProfileCommand(CLI::App& parent) {
  CLI::App* profile =
      parent.add_subcommand("profile", "slow and hung ranks, trays and racks, from the profiler's collective logs");
  profile->require_subcommand(1);
  auto subcommands = std::make_shared<std::vector<Command>>(std::vector<Command>{
      addProfileStragglersCommand(*profile),
      addProfileHangsCommand(*profile),
  });
  return {profile, [subcommands]() {
            for (const Command& command : *subcommands)
              if (command.app->parsed()) return command.run();
            return 2;
          }};
}

}  // namespace railtune::cli
