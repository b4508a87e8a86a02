// The `railtune tuner` group's subcommands (tuner.cc registers them, one line each).
#pragma once

#include "cli/commands.h"

namespace railtune::cli {

Command addTunerDecisionsCommand(CLI::App& tuner);  // decisions.cc: `railtune tuner decisions`

}  // namespace railtune::cli
