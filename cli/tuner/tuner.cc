// `railtune tuner <subcommand>`: what the tuner plugin decides and why. Each subcommand lives in its own
// file and is registered here; the group runs whichever was chosen.

#include "cli/tuner/tuner.h"
#include "cli/commands.h"

namespace railtune::cli {

Command addTunerCommand(CLI::App& parent) {
  return addCommandGroup(parent, "tuner", "the tuner plugin: what it decides for a communicator, and why",
                         {addTunerDecisionsCommand});
}

}  // namespace railtune::cli
