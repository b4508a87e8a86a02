// The `railtune sweep` group's subcommands (sweep.cc registers them, one line each): nccl-tests sweeps
// turned into a dataset, tuner rules and a tuned-vs-default report (docs/sweep.md).
#pragma once

#include <string_view>

#include "cli/commands.h"

namespace railtune::cli {

Command addSweepRunCommand(CLI::App& sweep);      // run.cc: `railtune sweep run [--launcher L] -o DIR -- BINARY ARGS`
Command addSweepParseCommand(CLI::App& sweep);    // parse.cc: `railtune sweep parse FILE... -o DATASET.jsonl`
Command addSweepRulesCommand(CLI::App& sweep);    // rules.cc: `railtune sweep rules DATASET... -o RULES.json`
Command addSweepCompareCommand(CLI::App& sweep);  // compare.cc: `railtune sweep compare DATASET... -o REPORT.html`
Command addSweepFitCommand(CLI::App& sweep);      // fit.cc: `railtune sweep fit DATASET... -o MODEL.json`

// "railtune: warning: <what>" on stderr: the warnings of the datasets `sweep rules` and `sweep compare` read.
void printWarning(std::string_view what);

}  // namespace railtune::cli
