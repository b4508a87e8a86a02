// The `railtune paths` group's subcommands (paths.cc registers them, one line each).
#pragma once

#include "cli/commands.h"

namespace railtune::cli {

Command addPathsCheckCommand(CLI::App& paths);   // check.cc: `railtune paths check LOGDIR`
Command addPathsRenderCommand(CLI::App& paths);  // render.cc: `railtune paths render LOGDIR -o F`
Command addPathsSynthCommand(CLI::App& paths);   // synth.cc: `railtune paths synth`
Command addPathsImportCommand(CLI::App& paths);  // import.cc: `railtune paths import LOG... -o DIR`

}  // namespace railtune::cli
