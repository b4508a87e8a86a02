// `railtune profile <subcommand>`: what the profiler's collective logs say about a job's slow and hung
// ranks. Each subcommand lives in its own file and is registered here, one line each.

#include "cli/profile/profile.h"
#include "cli/commands.h"

namespace railtune::cli {

Command addProfileCommand(CLI::App& parent) {
  return addCommandGroup(parent, "profile", "slow and hung ranks, trays and racks, from the profiler's collective logs",
                         {addProfileStragglersCommand, addProfileHangsCommand});
}

}  // namespace railtune::cli
