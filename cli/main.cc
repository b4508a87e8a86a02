// railtune: the operator's command line. Subcommands live one per file (commands.h).
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace {

// The words of the subcommand that was chosen ("topo nccl-xml"), which every error message of it starts with.
std::string chosenCommand(const CLI::App& app) {
  std::string words;
  for (const CLI::App* level = &app; !level->get_subcommands().empty();) {
    level = level->get_subcommands().front();
    words += (words.empty() ? "" : " ") + level->get_name();
  }
  return words;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"railtune: NCCL tuner, net and profiler plugins for rail-optimized GPU clusters", "railtune"};
  app.set_version_flag("--version", "railtune " RAILTUNE_VERSION);
  // One command per run: once a subcommand is parsed, a later word that names another (`railtune eval paths`: the
  // suite, not `railtune paths`) is that command's argument.
  app.require_subcommand(0, 1);

  const std::vector<railtune::cli::Command> commands = {
      railtune::cli::addDemoCommand(app),  railtune::cli::addConfigCommand(app),  railtune::cli::addExecCommand(app),
      railtune::cli::addTopoCommand(app),  railtune::cli::addTunerCommand(app),   railtune::cli::addEmuCommand(app),
      railtune::cli::addPathsCommand(app), railtune::cli::addProfileCommand(app), railtune::cli::addDoctorCommand(app),
      railtune::cli::addSweepCommand(app), railtune::cli::addEvalCommand(app),
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version end here with 0; a usage error is status 2 whatever CLI11's own code, so
    // scripts can tell it from a gate's "found something" (1).
    return app.exit(e) == 0 ? 0 : 2;
  }
  // The one place a subcommand's failure becomes its message and exit status (docs/design.md, "Exit status"):
  // whatever its libraries throw means the command could not do its job (unusable input, a file it cannot
  // write), status 2, so that 1 keeps its meaning of "found something" where a command gates.
  try {
    for (const auto& command : commands)
      if (command.app->parsed()) return command.run();
  } catch (const std::exception& e) {
    std::cerr << "railtune " << chosenCommand(app) << ": " << e.what() << "\n";
    return 2;
  }
  std::cerr << app.help() << "\nrailtune: a subcommand is required\n";
  return 1;
}
