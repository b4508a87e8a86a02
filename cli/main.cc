// railtune: the operator's command line. Subcommands live one per file (commands.h).
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <vector>

#include "cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"railtune: NCCL tuner, net and profiler plugins for rail-optimized GPU clusters", "railtune"};
  app.set_version_flag("--version", "railtune " RAILTUNE_VERSION);

  const std::vector<railtune::cli::Command> commands = {
      railtune::cli::addDemoCommand(app), railtune::cli::addConfigCommand(app), railtune::cli::addExecCommand(app),
      railtune::cli::addTopoCommand(app), railtune::cli::addTunerCommand(app),  railtune::cli::addEmuCommand(app),
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    for (const auto& command : commands)
      if (command.app->parsed()) return command.run();
  } catch (const std::exception& e) {
    std::cerr << "railtune: " << e.what() << "\n";
    return 1;
  }
  std::cerr << app.help() << "\nrailtune: a subcommand is required\n";
  return 1;
}
