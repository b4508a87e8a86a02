#include "emulator/net_job/verbs_job.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "emulator/verbs_sim/sim_fabric.h"
#include "emulator/verbs_sim/sim_sysfs.h"

namespace railtune::emu::netjob {
namespace {

namespace fs = std::filesystem;
namespace vs = railtune::verbs_sim;

// The agents' Unix sockets live in the rendezvous folder: "<dir>/agent-<pid>-<6 hex>.sock" must fit
// sockaddr_un's 108 bytes with room for a long pid.
constexpr size_t kLongestRendezvousDir = 70;

std::string choosePreset(const formats::RailMap& map) {
  if (map.network.linkLayer == qp::LinkLayer::Ethernet) return "dgx-h100-roce";
  if (map.planes >= 2) return "gb300-2plane";
  return "gb300";
}

// The plan's hosts once each, in plan order: the description's host list.
std::vector<std::string> jobHosts(const JobPlan& plan) {
  std::vector<std::string> hosts;
  std::set<std::string> seen;
  for (const PlannedHost& h : plan.hosts)
    if (seen.insert(h.name).second) hosts.push_back(h.name);
  return hosts;
}

// Every HCA the rail map gives a job host must be a device of the preset's hosts (all alike).
void requireHcasOfPreset(const formats::RailMap& map, const std::vector<std::string>& hosts,
                         const vs::SimFabric& preset) {
  std::set<std::string> devices;
  std::string names;
  for (const vs::SimDeviceDesc& d : preset.hosts.front().devices) {
    devices.insert(d.name);
    names += (names.empty() ? "" : ", ") + d.name;
  }
  for (const std::string& name : hosts) {
    const formats::RailMapHost* host = map.findHost(name);
    if (host == nullptr) continue;
    for (const formats::RailMapGpu& gpu : host->gpus)
      for (const formats::RailMapNic& nic : gpu.nics)
        if (devices.count(nic.hca) == 0)
          throw std::runtime_error("--transport ib: the rail map gives host " + name + " the HCA " + nic.hca +
                                   ", which the verbs simulator's " + preset.name + " hosts do not have (" + names +
                                   ")");
  }
}

std::string makeRendezvousDir(const std::string& jobDir, bool* outside) {
  std::string dir = (fs::path(jobDir) / "verbs-sim").string();
  *outside = dir.size() > kLongestRendezvousDir;
  if (*outside) {
    const char* tmp = std::getenv("TMPDIR");
    dir = std::string(tmp != nullptr && *tmp != '\0' && std::strlen(tmp) < 48 ? tmp : "/tmp") + "/rtvs-XXXXXX";
    if (::mkdtemp(dir.data()) == nullptr)
      throw std::runtime_error("cannot create the verbs simulator's folder " + dir + ": " + std::strerror(errno));
    return dir;
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir + ": " + ec.message());
  return dir;
}

}  // namespace

NetTransport parseNetTransport(const std::string& word) {
  if (word == "socket") return NetTransport::Socket;
  if (word == "ib") return NetTransport::Ib;
  throw std::invalid_argument("--transport '" + word + "': expected socket or ib");
}

const char* netTransportName(NetTransport transport) {
  return transport == NetTransport::Ib ? "ib" : "socket";
}

VerbsJob prepareVerbsJob(const std::string& jobDir, const formats::RailMap& map, const JobPlan& plan,
                         const std::string& library) {
  std::error_code ec;
  if (library.empty() || !fs::is_regular_file(library, ec))
    throw std::runtime_error("--transport ib: the verbs simulator's library '" + library +
                             "' is not a file (build railtune_verbs_sim, or name it with --verbs-lib)");
  VerbsJob job;
  job.library = fs::absolute(library).string();
  job.preset = choosePreset(map);
  const std::vector<std::string> hosts = jobHosts(plan);
  const auto preset = vs::presetFabric(job.preset, static_cast<int>(hosts.size()));
  if (!preset) throw std::logic_error("unknown verbs simulator preset " + job.preset);
  requireHcasOfPreset(map, hosts, *preset);

  job.fabricPath = (fs::path(jobDir) / "verbs-fabric.json").string();
  {
    std::ofstream out(job.fabricPath, std::ios::trunc);
    out << nlohmann::json{{"preset", job.preset}, {"hosts", hosts}}.dump(2) << "\n";
    if (!out) throw std::runtime_error("cannot write " + job.fabricPath);
  }
  std::string error;
  const auto fabric = vs::loadFabric(job.fabricPath, &error);  // read back as every rank will read it
  if (!fabric) throw std::runtime_error(job.fabricPath + ": " + error);
  job.sysfsRoot = (fs::path(jobDir) / "verbs-sysfs").string();
  for (size_t i = 0; i < fabric->hosts.size(); ++i) {
    const std::string problem =
        vs::writeSysfsTree(*fabric, static_cast<int>(i), (fs::path(job.sysfsRoot) / fabric->hosts[i].name).string());
    if (!problem.empty()) throw std::runtime_error("the sysfs tree of " + fabric->hosts[i].name + ": " + problem);
  }
  job.rendezvousDir = makeRendezvousDir(jobDir, &job.rendezvousOutsideJob);
  return job;
}

std::vector<std::pair<std::string, std::string>> verbsRankEnvironment(const VerbsJob& job, const std::string& host,
                                                                      bool timeScaleSet) {
  std::vector<std::pair<std::string, std::string>> env = {
      {"RAILTUNE_NET_TRANSPORT", "ib"},
      {"NCCL_IBVERBS_LIB", job.library},
      {"RAILTUNE_VERBS_SIM_DIR", job.rendezvousDir},
      {"RAILTUNE_VERBS_SIM_FABRIC", job.fabricPath},
      {"RAILTUNE_VERBS_SIM_HOST", host},
      {"RAILTUNE_NET_SYSFS_ROOT", (fs::path(job.sysfsRoot) / host).string()}};
  if (!timeScaleSet) env.emplace_back("RAILTUNE_VERBS_SIM_TIME_SCALE", kVerbsJobTimeScale);
  return env;
}

}  // namespace railtune::emu::netjob
