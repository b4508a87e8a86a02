#include "doctor/fabric_checks.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>

#include "common/params.h"
#include "doctor/check.h"
#include "fabric/discover/sysfs_source.h"
#include "formats/rail_map_choice.h"
#include "topo_gen/nccl_xml.h"
#include "topo_gen/nccl_xml_check.h"

namespace railtune::doctor {
namespace {

namespace discover = fabric::discover;

size_t nicCount(const formats::RailMapHost& host) {
  size_t n = 0;
  for (const formats::RailMapGpu& gpu : host.gpus) n += gpu.nics.size();
  return n;
}

std::string fileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "not a regular file";
}

// The state of `port` of `device`, "" when sysfs does not list that port.
std::string portState(const discover::RdmaDevice& device, int port) {
  for (const discover::RdmaPort& p : device.ports)
    if (p.port == port) return p.state;
  return "";
}

}  // namespace

RailMapState checkRailMap(const DoctorOptions& options, const std::string& hostName, Report& report) {
  RailMapState state;
  state.hostName = hostName;
  const std::string source = !options.railMap.empty() ? options.railMap : processEnv("RAILTUNE_RAIL_MAP").value_or("");
  try {
    state.map = formats::readChosenRailMap(options.railMap);
  } catch (const std::exception& e) {
    report.add("fabric.rail_map", Status::Fail, e.what(),
               "fix the file, or regenerate it with `railtune topo rail-map`");
    return state;
  }
  if (!state.map) {
    report.add("fabric.rail_map", Status::Skip,
               "no rail map given (--rail-map, RAILTUNE_RAIL_MAP): the net plugin uses "
               "the RDMA devices it discovers, without rails");
    return state;
  }
  const std::string head =
      source + ": cluster " + state.map->cluster + ", " + std::to_string(state.map->rails) + " rail(s)";
  const formats::RailMapHost* host = state.host();
  if (host == nullptr)
    report.add("fabric.rail_map", Status::Warn,
               head + ", no entry for host " + hostName +
                   ": the net plugin falls back to discovered RDMA devices, without rails",
               "set RAILTUNE_HOST (or --host) to this node's name in the map, or add the host and regenerate the map");
  else
    report.add("fabric.rail_map", Status::Ok,
               head + "; host " + hostName + ": " + std::to_string(host->gpus.size()) + " GPU(s), " +
                   std::to_string(nicCount(*host)) + " NIC(s)");
  return state;
}

void checkNics(const DoctorOptions& options, const RailMapState& railMap, Report& report) {
  const discover::SysfsInventory sysfs = discover::readSysfs(options.root);
  std::map<std::string, const discover::RdmaDevice*> found;
  for (const discover::RdmaDevice& d : sysfs.rdma) found[d.name] = &d;
  std::vector<std::string> names;
  for (const auto& [name, device] : found) names.push_back(name);
  const std::string where = underRoot(options.root, "/sys/class/infiniband");
  if (found.empty()) {
    report.add("fabric.nics", Status::Skip, "no RDMA device under " + where + " (not present here)");
    return;
  }
  const formats::RailMapHost* host = railMap.host();
  if (host == nullptr) {
    report.add("fabric.nics", Status::Skip,
               std::to_string(found.size()) + " RDMA device(s) (" + joined(names) +
                   "); no rail map entry for this host to compare with");
    return;
  }
  std::vector<std::string> missing, down;
  std::set<std::string> mapped;
  for (const formats::RailMapGpu& gpu : host->gpus)
    for (const formats::RailMapNic& nic : gpu.nics) {
      mapped.insert(nic.hca);
      auto it = found.find(nic.hca);
      const std::string state = it == found.end() ? "" : portState(*it->second, nic.port);
      if (it == found.end())
        missing.push_back(nic.hca + " (rail " + std::to_string(nic.rail) + ")");
      else if (state != "ACTIVE")
        down.push_back(nic.hca + ":" + std::to_string(nic.port) + " " + (state.empty() ? "absent" : state));
    }
  std::vector<std::string> extra;
  for (const std::string& name : names)
    if (!mapped.count(name)) extra.push_back(name);
  if (!missing.empty() || !down.empty()) {
    std::string text = "rail map vs " + where + ":";
    if (!missing.empty()) text += " missing here: " + joined(missing) + ";";
    if (!down.empty()) text += " port not ACTIVE: " + joined(down) + ";";
    report.add("fabric.nics", Status::Fail, text + " found: " + joined(names),
               "the map was written for another host or hardware changed: regenerate it (`railtune topo discover` + "
               "`railtune topo rail-map`), or fix the link");
  } else if (!extra.empty()) {
    report.add("fabric.nics", Status::Warn,
               "all " + std::to_string(mapped.size()) + " rail HCA(s) present and ACTIVE; on no rail: " + joined(extra),
               "if these are compute NICs, regenerate the rail map; storage or management NICs can stay off the map");
  } else {
    report.add("fabric.nics", Status::Ok,
               "all " + std::to_string(mapped.size()) + " rail HCA(s) present and ACTIVE, none off the map");
  }
}

void checkTopoFile(const RailMapState& railMap, Report& report) {
  const std::optional<std::string> path = processEnv("NCCL_TOPO_FILE");
  if (!path || path->empty()) {
    report.add("topo.file", Status::Skip, "NCCL_TOPO_FILE unset: NCCL detects the topology itself");
    return;
  }
  struct stat st {};
  if (::stat(path->c_str(), &st) != 0) {
    report.add("topo.file", Status::Fail, "NCCL_TOPO_FILE=" + *path + ": " + std::strerror(errno),
               "write it with `railtune topo nccl-xml`, mount it into the container, or unset NCCL_TOPO_FILE");
    return;
  }
  if (!S_ISREG(st.st_mode)) {
    report.add("topo.file", Status::Fail,
               "NCCL_TOPO_FILE=" + *path + " is " + fileKind(st.st_mode) + ", not a regular file",
               "point NCCL_TOPO_FILE at the topology XML file itself");
    return;
  }
  // A file that cannot be opened (permission denied) needs no rebuild: say so before parsing, whose
  // error would carry the rebuild hint. O_NONBLOCK: the file was regular at stat, but may be swapped.
  const int fd = ::open(path->c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    report.add("topo.file", Status::Fail, "NCCL_TOPO_FILE=" + *path + " cannot be read: " + std::strerror(error),
               error == EACCES ? "make it readable by the user the job runs as (chmod a+r " + *path +
                                     "), or mount it readable into the container"
                               : "check the file and the file system it is on");
    return;
  }
  ::close(fd);
  fabric::Host topo;
  try {
    topo = topo::readNcclXmlFile(*path);
  } catch (const std::exception& e) {
    report.add("topo.file", Status::Fail, std::string("NCCL_TOPO_FILE: ") + e.what(),
               "regenerate it with `railtune topo nccl-xml`, or fix the line named");
    return;
  }
  const std::string head = "NCCL_TOPO_FILE=" + *path + ": " + std::to_string(topo.gpus.size()) + " GPU(s), " +
                           std::to_string(topo.nics.size()) + " NIC(s)";
  if (railMap.host() == nullptr) {
    report.add("topo.file", Status::Ok, head + " (no rail map entry to compare with)");
    return;
  }
  fabric::Diagnostics diagnostics;
  topo::checkTopoAgainstRailMap(topo, *railMap.map, railMap.hostName, fabric::SourceLoc{*path, 0, 0}, diagnostics);
  std::vector<std::string> problems;
  for (const fabric::Diagnostic& d : diagnostics.all()) problems.push_back(d.message);
  if (problems.empty())
    report.add("topo.file", Status::Ok, head + ", NICs agree with the rail map");
  else
    report.add("topo.file", Status::Fail, head + ", disagrees with the rail map: " + joined(problems),
               "regenerate both from one fabric description (`railtune topo nccl-xml`, `railtune topo rail-map`)");
}

}  // namespace railtune::doctor
