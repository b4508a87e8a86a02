// `railtune paths <subcommand>`: which GPUs, NICs and rails a job's connections used, from the net
// plugin's path logs. Each subcommand lives in its own file and is registered here, one line each.

#include "cli/paths/paths.h"
#include "cli/commands.h"

namespace railtune::cli {

Command addPathsCommand(CLI::App& parent) {
  return addCommandGroup(parent, "paths", "which rails a job used: check path logs against the rail plan, render them",
                         {addPathsCheckCommand, addPathsRenderCommand, addPathsSynthCommand, addPathsImportCommand});
}

}  // namespace railtune::cli
