// The `railtune profile` group's subcommands (profile.cc registers them, one line each).
#pragma once

#include "cli/commands.h"

namespace railtune::cli {

Command addProfileStragglersCommand(CLI::App& profile);  // profile_stragglers.cc
Command addProfileHangsCommand(CLI::App& profile);       // profile_hangs.cc

}  // namespace railtune::cli
