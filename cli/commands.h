// The railtune CLI's subcommands. Each file adds one subcommand to the app and returns it with the
// action main() runs when that subcommand was chosen; the action's result is the exit status.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace railtune::cli {

struct Command {
  CLI::App* app;             // the subcommand, owned by the parent app
  std::function<int()> run;  // what main() runs when it was chosen
};

Command addDemoCommand(CLI::App& parent);    // demo.cc
Command addConfigCommand(CLI::App& parent);  // config.cc

}  // namespace railtune::cli
