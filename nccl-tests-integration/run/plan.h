// A sweep's plan (`railtune sweep run`, docs/sweep.md): the matrix of NCCL choices a user asked for turned
// into runs of one nccl-tests binary, each with its id, environment and command line. NCCL's own choice (the
// default run, nothing forced) comes first in every repeat, then every algorithm × protocol (× channel count
// × chunk size); with an --env matrix, so in every repeat for each combination of its settings (env_matrix.h).
// Choices NCCL's source never offers for the collective are planned as "not run" with the reason
// (src/graph/tuning.cc), as are all forced choices of the point-to-point tests (NCCL_ALGO and NCCL_PROTO do not
// apply to them). Pure: nothing here touches the file system or the environment.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nccl-tests-integration/dataset/call_mode.h"
#include "nccl-tests-integration/dataset/choice.h"
#include "nccl-tests-integration/dataset/from_output.h"
#include "nccl-tests-integration/run/env_matrix.h"
#include "nccl-tests-integration/run/manifest.h"

namespace railtune::sweep {

// What the user asked for, options checked and paths resolved.
struct SweepSpec {
  std::string dir;                    // the output folder, absolute
  std::vector<std::string> launcher;  // the launcher's words ("srun", "-N", "2"); empty: the binary runs alone
  std::string binary;                 // the nccl-tests binary as it is put on the command line
  std::string test;                   // its nccl-tests name, "all_reduce_perf"
  std::vector<std::string> args;      // the binary's arguments ("-b", "8", "-e", "16G", "-g", "8")
  // The matrix, in the tuner rules' spelling; "" = left to NCCL. Empty lists: the defaults below.
  std::vector<std::string> algorithms, protocols;
  std::vector<int> channels;         // NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS; 0 = NCCL's own
  std::vector<uint64_t> chunkSizes;  // forced through the railtune tuner's rules; 0 = NCCL's own
  std::vector<EnvAxis> env;          // --env NAME=V1,V2: the settings every choice runs under (none: one, unset)
  int repeats = 1;
  bool json = false;         // add -J DIR/runs/<id>.json
  std::string tunerPlugin;   // libnccl-tuner-railtune.so, for chunk sizes
  bool setNcclDebug = true;  // NCCL_DEBUG=WARN (the user has not set NCCL_DEBUG)
  // The probe: the first default run (repeat 0) gets NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV instead, so that
  // NCCL's own lines tell `sweep parse` nNodes, MNNVL and the network (init.cc:1422, :486@v2.30.7). Only when the
  // user set neither variable.
  bool probe = true;
  int nvlDomains = 0;                    // --nvl-domains, recorded in the manifest
  std::string mnnvl;                     // --mnnvl on|off, recorded in the manifest
  std::optional<ManifestFabric> fabric;  // --rail-map / --fabric, recorded in the manifest
  CallMode call;                         // -R/-D/-x among args (call_options.h), recorded in the manifest
};

// Whether a run is the sweep's probe (SweepSpec::probe): NCCL's own choice, nothing forced, repeat 0.
bool isProbeRun(const Choice& choice, int repeat);

struct PlannedRun {
  std::string id;  // "allreduce.ring-ll128.r0", "allreduce.default.ar1-split1.r0"
  Choice choice;
  NetEnv netEnv;  // the combination of the --env matrix it runs under (also in env); empty without a matrix
  int repeat = 0;
  std::vector<std::string> command;        // launcher words, the binary, its arguments, -J FILE
  std::map<std::string, std::string> env;  // what this run sets
  std::string output;                      // "runs/<id>.txt", relative to the folder
  std::string json;                        // "runs/<id>.json", or "" without -J
  std::string rulesFile;                   // the tuner rules file of a chunk size (absolute), or ""
  std::string rulesText;                   // its content
  std::string notRun;                      // why it is not run (NCCL never offers the choice), or ""
};

struct Plan {
  std::string test, collective;  // "all_reduce_perf", "allreduce"
  std::vector<PlannedRun> runs;
  std::vector<std::string> notes;  // for the user: what was left out and why
};

// The default matrix: algorithms the collective can use (NCCL 2.24-2.30, src/graph/tuning.cc), every protocol.
std::vector<std::string> defaultAlgorithms(std::string_view collective);
std::vector<std::string> defaultProtocols();

// The nccl-tests name of a binary from its file name: "all_reduce_perf", also for "all_reduce_perf_mpi",
// "/opt/nccl-tests/build/all_gather_perf" or a wrapper whose name ends with one ("fake_all_reduce_perf").
std::optional<std::string> testFromBinaryName(std::string_view path);
// The collective of a test: collectiveOfTest (dataset/from_output.h), shared with `sweep parse`.
// Whether NCCL's algorithm and protocol selection applies: tunerCollective (dataset/from_output.h).
// Why NCCL never offers a forced choice for the collective ("" when it may): the checks NCCL 2.24-2.30 make
// before costing a choice (src/graph/tuning.cc:294-303@v2.30.7, :273-282@v2.28.9).
std::string neverOffered(std::string_view collective, const Choice& choice);

// A run's id: "<collective>.<choice>[.<setting>].r<repeat>" ("allreduce.ring-ll128.qps4-split1.r0").
std::string runId(std::string_view collective, const Choice& choice, const NetEnv& netEnv, int repeat);
// The choice as it appears in a run id: "default", "ring-ll128", "ring-simple-ch16", "ring-simple-chunk512K";
// a part left to NCCL is left out ("ring", "ch16").
std::string idLabel(const Choice& choice);
// The tuner rules file that forces the choice's chunk size (docs/formats/tuner-rules.schema.json), with its
// newline.
std::string tunerRulesText(std::string_view collective, const Choice& choice);

// Whether the launcher is Open MPI's (mpirun, mpiexec, orterun, prterun), which passes a variable to remote
// ranks only when named with -x.
bool launcherNeedsExport(const std::vector<std::string>& launcher);

// Throws std::invalid_argument naming the option for a matrix that cannot be run (chunk sizes without an
// algorithm and a protocol, an unknown name, a run id twice).
Plan makePlan(const SweepSpec& spec);

// Shell-like word splitting of a --launcher string: blanks separate words, '...' and "..." quote, a backslash
// escapes. Throws std::invalid_argument on an unclosed quote.
std::vector<std::string> splitCommandLine(std::string_view text);

}  // namespace railtune::sweep
