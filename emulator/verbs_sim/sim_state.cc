// The one per-process state (sim_state.h): created on first use, with the fork handlers that keep it usable
// in a child, and read from the environment (fabric, host, settings, scheduled faults) on the first call.
#include <pthread.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "emulator/verbs_sim/sim_state.h"

namespace railtune::verbs_sim {

Sim& sim() {
  // Never destroyed (sim_state.h). fork(): the lock is taken around it, so the child never inherits it held
  // by the agent thread, and the child drops the agent it has no thread for (forgetAgentInChild).
  static Sim* instance = [] {
    auto* created = new Sim;
    pthread_atfork([] { sim().mu.lock(); }, [] { sim().mu.unlock(); },
                   [] {
                     Sim& s = sim();
                     forgetAgentInChild(s);
                     s.mu.unlock();
                   });
    return created;
  }();
  return *instance;
}

bool ensureInitialised(Sim& s) {
  if (s.initialised) return s.initError.empty();
  s.initialised = true;
  auto fabric = fabricFromEnvironment(&s.initError);
  if (!fabric) {
    std::fprintf(stderr, "railtune verbs sim: %s\n", s.initError.c_str());
    return false;
  }
  s.fabric = std::move(*fabric);
  s.host = selectHost(s.fabric);
  const SimHostDesc& host = s.fabric.hosts[static_cast<size_t>(s.host)];
  for (size_t i = 0; i < host.devices.size(); ++i) {
    auto device = std::make_unique<Device>();
    device->index = static_cast<int>(i);
    device->desc = &host.devices[i];
    device->abi.nodeType = ib::kIbvNodeCa;
    device->abi.transportType = 0;  // IBV_TRANSPORT_IB, RoCE included
    std::snprintf(device->abi.name, sizeof device->abi.name, "%s", device->desc->name.c_str());
    std::snprintf(device->abi.devName, sizeof device->abi.devName, "uverbs%zu", i);
    std::snprintf(device->abi.devPath, sizeof device->abi.devPath, "/sys/class/infiniband_verbs/uverbs%zu", i);
    std::snprintf(device->abi.ibdevPath, sizeof device->abi.ibdevPath, "/sys/class/infiniband/%s",
                  device->desc->name.c_str());
    s.devices.push_back(std::move(device));
  }
  if (const char* env = std::getenv("RAILTUNE_VERBS_SIM_TIME_SCALE"); env != nullptr && *env != '\0') {
    double scale = std::atof(env);
    if (scale > 0) s.timeScale = scale;
  }
  if (const char* env = std::getenv("RAILTUNE_VERBS_SIM_ADVERSARIAL"); env != nullptr) {
    s.adversarial = std::strcmp(env, "1") == 0;
  }
  if (const char* env = std::getenv("RAILTUNE_VERBS_SIM_DIR"); env != nullptr) s.dir = env;
  if (const char* env = std::getenv("RAILTUNE_VERBS_SIM_SEED"); env != nullptr)
    s.rng.seed(std::strtoull(env, nullptr, 0));
  // "port_down mlx5_0 1 @500ms; qp_fatal 0x123 @1s": applied by the agent after the delay.
  if (const char* env = std::getenv("RAILTUNE_VERBS_SIM_FAULTS"); env != nullptr) {
    std::string all = env;
    size_t pos = 0;
    while (pos <= all.size()) {
      size_t end = all.find(';', pos);
      if (end == std::string::npos) end = all.size();
      std::string item = all.substr(pos, end - pos);
      pos = end + 1;
      size_t at = item.find('@');
      if (item.find_first_not_of(" \t") == std::string::npos) continue;
      double delayMs = 0;
      if (at != std::string::npos) {
        std::string delay = item.substr(at + 1);
        delayMs = std::atof(delay.c_str());
        if (delay.find("ms") == std::string::npos && delay.find('s') != std::string::npos) delayMs *= 1000;
        item = item.substr(0, at);
      }
      s.faults.push_back({s.start + std::chrono::microseconds(static_cast<int64_t>(delayMs * 1000)), item});
    }
  }
  return true;
}

}  // namespace railtune::verbs_sim
