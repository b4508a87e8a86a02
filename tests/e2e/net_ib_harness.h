// The verbs transport's end-to-end tests run the real net .so with RAILTUNE_NET_TRANSPORT=ib on the strict verbs
// simulator (emulator/verbs_sim): NCCL_IBVERBS_LIB names the simulator's libibverbs, each process picks
// its simulated host (RAILTUNE_VERBS_SIM_HOST), and the plugin discovers that host's HCAs in the fake sysfs
// tree the simulator's tool writes (RAILTUNE_NET_SYSFS_ROOT), as it would on a GB300 tray.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tests/e2e/net_fault_harness.h"

namespace railtune::testing::netfault {

// What one case needs. The harness sets the simulator's own variables (RAILTUNE_VERBS_SIM_*, NCCL_IBVERBS_LIB,
// RAILTUNE_NET_TRANSPORT=ib, the host's sysfs root) and what the case names here; every other variable of the
// process stays as the user set it (ScopedEnv restores what a case changed). A case that clears a variable
// says so in `env` with nullopt and a comment why.
struct SimFabricSetup {
  std::string fabric = "gb300";    // a simulator preset
  std::optional<int> qps;          // NCCL_IB_QPS_PER_CONNECTION (the variable that wins over RAILTUNE_NET_QPS)
  std::optional<bool> split;       // NCCL_IB_SPLIT_DATA_ON_QPS
  bool adversarial = false;        // RAILTUNE_VERBS_SIM_ADVERSARIAL=1 (else the simulator's default: off)
  bool peerMemory = false;         // the hosts' sysfs trees show nvidia_peermem: GPU pointers, and flush reads
  std::string timeScale = "0.05";  // NCCL_IB_TIMEOUT 20 x 8 tries = 34 s becomes about 1.7 s
  std::string faults;              // RAILTUNE_VERBS_SIM_FAULTS for this process ("" = none)
  std::vector<std::pair<std::string, std::optional<std::string>>> env;  // more: set (value) or cleared (nullopt)
};

// A temporary folder holding the simulator's rendezvous directory and each host's sysfs tree, removed at the
// end. useSimulatedVerbs() sets the environment of this process for host `host`; a forked peer calls
// becomeHost() before it loads the plugin.
class SimFabric {
 public:
  SimFabric(ScopedEnv& env, const SimFabricSetup& setup, int hosts = 2);
  ~SimFabric();
  SimFabric(const SimFabric&) = delete;
  SimFabric& operator=(const SimFabric&) = delete;
  void becomeHost(int host) const;  // setenv, for the process it is called in
  const std::string& dir() const { return dir_; }
  // The simulator's control call in this process (port_down mlx5_0 1, ...): 0 on success; -1 when the
  // simulator is not loaded in this process or refused the command.
  static int control(const std::string& command);
  // The QP numbers the simulator has in this process (from its stats), lowest first.
  static std::vector<uint32_t> qpNumbers();

 private:
  std::string dir_;
};

}  // namespace railtune::testing::netfault
