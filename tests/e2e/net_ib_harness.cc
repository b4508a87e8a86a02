// The simulated fabric for the verbs transport's end-to-end tests. See net_ib_harness.h.
#include "tests/e2e/net_ib_harness.h"

#include "emulator/verbs_sim/sim_sysfs.h"

#include <dlfcn.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace railtune::testing::netfault {
namespace {

namespace fs = std::filesystem;

std::string hostName(int host) {
  return "host" + std::to_string(host);
}

}  // namespace

SimFabric::SimFabric(ScopedEnv& env, const SimFabricSetup& setup, int hosts) {
  char pattern[] = "/tmp/railtune-verbs-XXXXXX";
  if (mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
  dir_ = pattern;
  fs::create_directories(dir_ + "/sim");
  std::string error;
  const std::optional<verbs_sim::SimFabric> description = verbs_sim::loadFabric(setup.fabric, &error);
  if (!description) throw std::runtime_error("the simulator's fabric '" + setup.fabric + "': " + error);
  for (int h = 0; h < hosts; ++h) {
    const std::string root = dir_ + "/" + hostName(h);
    // In this process, not through the simulator's tool: an aarch64 test under qemu cannot exec another program.
    error = verbs_sim::writeSysfsTree(*description, verbs_sim::selectHost(*description, hostName(h)), root);
    if (!error.empty()) throw std::runtime_error("the simulator's sysfs tree for " + hostName(h) + ": " + error);
    // The loopback interface, so that connection setup goes through 127.0.0.1 (NCCL_SOCKET_IFNAME=lo).
    fs::create_directories(root + "/sys/class/net/lo");
    std::ofstream(root + "/sys/class/net/lo/operstate") << "unknown\n";
    if (setup.peerMemory) {
      fs::create_directories(root + "/sys/module/nvidia_peermem");
      std::ofstream(root + "/sys/module/nvidia_peermem/version") << "580.65.06\n";
    }
  }
  // A simulator already loaded in this process (an earlier test of the same run) forgets its rendezvous folder,
  // host and fabric, so that it reads the ones below (its `reset`, refused while objects of it are alive).
  control("reset");
  env.set("RAILTUNE_NET_TRANSPORT", "ib");
  env.set("NCCL_IBVERBS_LIB", VERBS_SIM_LIBRARY);
  env.set("NCCL_SOCKET_IFNAME", "lo");  // connection setup over 127.0.0.1: the simulated hosts have no other
  env.set("RAILTUNE_VERBS_SIM_DIR", dir_ + "/sim");
  env.set("RAILTUNE_VERBS_SIM_FABRIC", setup.fabric);
  env.set("RAILTUNE_VERBS_SIM_TIME_SCALE", setup.timeScale);
  if (setup.adversarial) env.set("RAILTUNE_VERBS_SIM_ADVERSARIAL", "1");
  // The simulator's faults are this harness's own: a case gets exactly the ones it names.
  if (setup.faults.empty()) {
    env.unset("RAILTUNE_VERBS_SIM_FAULTS");
  } else {
    env.set("RAILTUNE_VERBS_SIM_FAULTS", setup.faults);
  }
  if (setup.qps) {
    env.set("NCCL_IB_QPS_PER_CONNECTION", std::to_string(*setup.qps));
    // Cleared: the case names its count through the variable that wins; railtune's own, if the user set it,
    // would only add a WARN that the two disagree.
    env.unset("RAILTUNE_NET_QPS");
  }
  if (setup.split) env.set("NCCL_IB_SPLIT_DATA_ON_QPS", *setup.split ? "1" : "0");
  for (const auto& [name, value] : setup.env) {
    if (value) {
      env.set(name, *value);
    } else {
      env.unset(name);
    }
  }
  env.set("RAILTUNE_VERBS_SIM_HOST", hostName(0));
  env.set("RAILTUNE_NET_SYSFS_ROOT", dir_ + "/" + hostName(0));
}

SimFabric::~SimFabric() {
  std::error_code ignored;
  fs::remove_all(dir_, ignored);
}

void SimFabric::becomeHost(int host) const {
  setenv("RAILTUNE_VERBS_SIM_HOST", hostName(host).c_str(), 1);
  setenv("RAILTUNE_NET_SYSFS_ROOT", (dir_ + "/" + hostName(host)).c_str(), 1);
}

int SimFabric::control(const std::string& command) {
  void* library = dlopen(VERBS_SIM_LIBRARY, RTLD_NOW | RTLD_NOLOAD);
  if (library == nullptr) return -1;
  auto* call = reinterpret_cast<int (*)(const char*)>(dlsym(library, "railtune_verbs_sim_control"));
  const int result = call != nullptr ? call(command.c_str()) : -1;
  dlclose(library);
  return result;
}

std::vector<uint32_t> SimFabric::qpNumbers() {
  std::vector<uint32_t> qpns;
  void* library = dlopen(VERBS_SIM_LIBRARY, RTLD_NOW | RTLD_NOLOAD);
  if (library == nullptr) return qpns;
  auto* stats = reinterpret_cast<size_t (*)(char*, size_t)>(dlsym(library, "railtune_verbs_sim_stats"));
  std::string text(1 << 16, '\0');
  if (stats != nullptr) text.resize(std::min(stats(text.data(), text.size()), text.size()));
  dlclose(library);
  for (size_t at = text.find("\"qpn\":"); at != std::string::npos; at = text.find("\"qpn\":", at + 1))
    qpns.push_back(static_cast<uint32_t>(std::strtoul(text.c_str() + at + 6, nullptr, 10)));
  std::sort(qpns.begin(), qpns.end());
  return qpns;
}

}  // namespace railtune::testing::netfault
