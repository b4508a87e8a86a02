// The `railtune profile` group's subcommands (profile.cc registers them, one line each).
#pragma once

#include "cli/commands.h"

namespace railtune::cli {

Command addProfileStragglersCommand(CLI::App& profile);  // stragglers.cc: `railtune profile stragglers`
Command addProfileHangsCommand(CLI::App& profile);       // hangs.cc: `railtune profile hangs`

}  // namespace railtune::cli
