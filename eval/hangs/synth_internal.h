// The model behind writeSynthJob (synth_job.h, internal): layout, communicators, the fault and its
// outcome, shared by the generator (synth_job.cc) and the renderer (synth_render.cc).
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "eval/hangs/flow_sim.h"
#include "eval/hangs/synth_job.h"

namespace railtune::eval::hangs {

inline constexpr int kGpusPerHost = 4;  // and one NIC per GPU: mlx5_<gpu>, rail <gpu>

struct SynthComm {
  uint64_t id = 0;
  std::string name;          // "world", "tp3" (one host, NVLink), "dp1" (GPU 1 of every host)
  int order = 0;             // place in each iteration: tp, then dp, then world
  std::vector<int> members;  // world ranks, by rank in the communicator
  Pattern pattern = Pattern::Ring;
  int channels = 1;
};

struct SynthFault {
  int iteration = 1;               // iterations before it completed everywhere
  int comm = -1;                   // the operation of that iteration where it happens
  int target = -1;                 // rank kinds and slow-rank: the world rank
  int linkFrom = -1, linkTo = -1;  // link-one-direction: world ranks
  int nicRank = -1;                // nic-down: the rank whose NIC it is
  int round = 0;                   // when its links froze (flow_sim.h)
};

struct SynthModel {
  std::string kind;
  uint64_t seed = 0;
  bool v7 = false;  // records carry a user tag per communicator (Truth::commTags)
  int ranks = 0, hosts = 0;
  std::mt19937_64 rng;
  Pattern pattern = Pattern::Ring;
  std::vector<std::string> hostNames;
  std::vector<int> pids;  // by world rank
  std::vector<SynthComm> comms;
  SynthFault fault;
  std::vector<int> stuckIn;     // by world rank: the comm whose faulty-iteration operation it is stuck in; -1
  std::vector<char> completes;  // by comm: its faulty-iteration operation completed (eventually, slow-rank)
};

int hostOf(int rank);
const std::string& hostNameOf(const SynthModel& m, int rank);
bool absentFrom(const SynthModel& m, int comm, int rank, bool targetGone);
// Channel `channel` of a communicator's collective, over its ranks (indices into members).
SimPlan channelPlan(const SynthModel& m, const SynthComm& comm, int channel);
// Writes every process's collective log; counts files and lines into `job`.
void renderSynthJob(const SynthModel& m, const std::string& dir, SynthJob& job);

}  // namespace railtune::eval::hangs
