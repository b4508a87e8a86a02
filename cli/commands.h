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

Command addDemoCommand(CLI::App& parent);          // demo.cc
Command addConfigCommand(CLI::App& parent);        // config.cc
Command addTopoCommand(CLI::App& parent);          // topo.cc: the `topo` group; its subcommands register there
Command addTopoCheckCommand(CLI::App& topo);       // topo_check.cc: `railtune topo check`
Command addTopoDiscoverCommand(CLI::App& topo);    // topo_discover.cc: `railtune topo discover`
Command addTopoMergeCommand(CLI::App& topo);       // topo_merge.cc: `railtune topo merge`
Command addTopoExpandCommand(CLI::App& topo);      // topo_merge.cc: `railtune topo expand`
Command addTopoNcclXmlCommand(CLI::App& topo);     // topo_xml.cc: `railtune topo nccl-xml`
Command addTopoRailMapCommand(CLI::App& topo);     // topo_xml.cc: `railtune topo rail-map`
Command addTopoLabelsCommand(CLI::App& topo);      // topo_sched.cc: `railtune topo labels`
Command addTopoHyperNodesCommand(CLI::App& topo);  // topo_sched.cc: `railtune topo hypernodes`
Command addTopoKueueCommand(CLI::App& topo);       // topo_sched.cc: `railtune topo kueue`
Command addTopoSlurmCommand(CLI::App& topo);       // topo_sched.cc: `railtune topo slurm`
Command addTopoEnvCommand(CLI::App& topo);         // topo_sched.cc: `railtune topo env`
Command addExecCommand(CLI::App& parent);          // exec.cc: `railtune exec -- CMD`
Command addTunerCommand(CLI::App& parent);    // tuner.cc: the `tuner` group (cli/tuner/tuner.h lists its subcommands)
Command addEmuCommand(CLI::App& parent);      // net_job.cc: the `emu` group (`railtune emu net-job`)
Command addPathsCommand(CLI::App& parent);    // paths.cc: the `paths` group (cli/paths/paths.h lists its subcommands)
Command addProfileCommand(CLI::App& parent);  // profile.cc: the `profile` group (cli/profile/profile.h)
Command addDoctorCommand(CLI::App& parent);   // doctor.cc: `railtune doctor` (checks in cli/doctor/)
Command addSweepCommand(CLI::App& parent);    // sweep.cc: the `sweep` group (cli/sweep/sweep.h)
Command addEvalCommand(CLI::App& parent);     // eval/eval.cc: `railtune eval` (the suites in eval/)

}  // namespace railtune::cli
