// The railtune CLI's subcommands. Each file (named beside its function) adds one subcommand to the app and returns it
// with the action main() runs when that subcommand was chosen; the action's result is the exit status.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <initializer_list>
#include <string>

namespace railtune::cli {

struct Command {
  CLI::App* app;             // the subcommand, owned by the parent app
  std::function<int()> run;  // what main() runs when it was chosen
};

// A group of subcommands (`railtune topo`, `paths`, `profile`, `sweep`, `tuner`, `emu`): it requires one of
// MEMBERS, each added by its function, and runs the one chosen (cli/command_group.cc).
using AddCommand = Command (*)(CLI::App& group);
Command addCommandGroup(CLI::App& parent, const std::string& name, const std::string& description,
                        std::initializer_list<AddCommand> members);

Command addDemoCommand(CLI::App& parent);          // cli/demo/demo.cc
Command addConfigCommand(CLI::App& parent);        // cli/config.cc
Command addTopoCommand(CLI::App& parent);          // cli/topo/topo.cc: the `topo` group
Command addTopoCheckCommand(CLI::App& topo);       // cli/topo/check.cc: `railtune topo check`
Command addTopoDiscoverCommand(CLI::App& topo);    // cli/topo/discover.cc: `railtune topo discover`
Command addTopoMergeCommand(CLI::App& topo);       // cli/topo/merge.cc: `railtune topo merge`
Command addTopoExpandCommand(CLI::App& topo);      // cli/topo/merge.cc: `railtune topo expand`
Command addTopoNcclXmlCommand(CLI::App& topo);     // cli/topo/xml.cc: `railtune topo nccl-xml`
Command addTopoRailMapCommand(CLI::App& topo);     // cli/topo/xml.cc: `railtune topo rail-map`
Command addTopoLabelsCommand(CLI::App& topo);      // cli/topo/sched.cc: `railtune topo labels`
Command addTopoHyperNodesCommand(CLI::App& topo);  // cli/topo/sched.cc: `railtune topo hypernodes`
Command addTopoKueueCommand(CLI::App& topo);       // cli/topo/sched.cc: `railtune topo kueue`
Command addTopoSlurmCommand(CLI::App& topo);       // cli/topo/sched.cc: `railtune topo slurm`
Command addTopoEnvCommand(CLI::App& topo);         // cli/topo/sched.cc: `railtune topo env`
Command addExecCommand(CLI::App& parent);          // cli/exec.cc: `railtune exec -- CMD`
Command addTunerCommand(CLI::App& parent);         // cli/tuner/tuner.cc: the `tuner` group (cli/tuner/tuner.h)
Command addEmuCommand(CLI::App& parent);           // cli/emu/net_job.cc: the `emu` group (`railtune emu net-job`)
Command addPathsCommand(CLI::App& parent);         // cli/paths/paths.cc: the `paths` group (cli/paths/paths.h)
Command addProfileCommand(CLI::App& parent);  // cli/profile/profile.cc: the `profile` group (cli/profile/profile.h)
Command addDoctorCommand(CLI::App& parent);   // cli/doctor/doctor.cc: `railtune doctor` (checks in doctor/)
Command addSweepCommand(CLI::App& parent);    // cli/sweep/sweep.cc: the `sweep` group (cli/sweep/sweep.h)
Command addEvalCommand(CLI::App& parent);     // cli/eval/eval.cc: `railtune eval` (the suites in eval/)

}  // namespace railtune::cli
