// railtune_verbs_sim_tool: the simulator's description as files.
//   railtune_verbs_sim_tool sysfs --fabric F --host H --out DIR   the host's fake sysfs tree (sim_sysfs.h)
//   railtune_verbs_sim_tool hosts --fabric F                      the host names, one a line
#include <cstdio>
#include <string>

#include "emulator/verbs_sim/sim_fabric.h"
#include "emulator/verbs_sim/sim_sysfs.h"

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: railtune_verbs_sim_tool sysfs --fabric F --host H --out DIR\n"
               "       railtune_verbs_sim_tool hosts --fabric F\n"
               "F: gb300, gb300-2plane, dgx-h100-roce or a JSON file; H: a host name or index\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  std::string command = argv[1], fabricName = "gb300", host, out;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--fabric") {
      fabricName = argv[i + 1];
    } else if (flag == "--host") {
      host = argv[i + 1];
    } else if (flag == "--out") {
      out = argv[i + 1];
    } else {
      return usage();
    }
  }
  std::string error;
  auto fabric = railtune::verbs_sim::loadFabric(fabricName, &error);
  if (!fabric) {
    std::fprintf(stderr, "railtune_verbs_sim_tool: %s\n", error.c_str());
    return 1;
  }
  if (command == "hosts") {
    for (const auto& h : fabric->hosts) std::printf("%s\n", h.name.c_str());
    return 0;
  }
  if (command != "sysfs" || out.empty() || host.empty()) return usage();
  error = railtune::verbs_sim::writeSysfsTree(*fabric, railtune::verbs_sim::selectHost(*fabric, host), out);
  if (!error.empty()) {
    std::fprintf(stderr, "railtune_verbs_sim_tool: %s\n", error.c_str());
    return 1;
  }
  return 0;
}
