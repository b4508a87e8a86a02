// `railtune paths <subcommand>`: which GPUs, NICs and rails a job's connections used, from the net
// plugin's path logs. Each subcommand lives in its own file and is registered here, one line each.
#include <memory>
#include <vector>

#include "cli/commands.h"
#include "cli/paths/paths.h"

namespace railtune::cli {

Command addPathsCommand(CLI::App& parent) {
  CLI::App* paths =
      parent.add_subcommand("paths", "which rails a job used: check path logs against the rail plan, render them");
  paths->require_subcommand(1);
  auto subcommands = std::make_shared<std::vector<Command>>(std::vector<Command>{
      addPathsCheckCommand(*paths),
      addPathsRenderCommand(*paths),
      addPathsSynthCommand(*paths),
      addPathsImportCommand(*paths),
  });
  return {paths, [subcommands]() {
            for (const Command& command : *subcommands)
              if (command.app->parsed()) return command.run();
            return 2;
          }};
}

}  // namespace railtune::cli
