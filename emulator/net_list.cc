// NCCL's net plugin list (net.cc): NCCL_NET_PLUGIN parsing, lazy loading of each entry, and the
// per-communicator selection with its quirks (2.28's finalize after a failed init).
#include <strings.h>

#include <cstring>

#include "emulator/logger.h"
#include "emulator/net_driver.h"
#include "emulator/plugin_open.h"
#include "emulator/profiler_sequence.h"

namespace railtune::emu {
namespace {

constexpr int kMaxPlugins = NCCL_NET_MAX_PLUGINS;  // 16, two of them NCCL's internal IB and Socket
constexpr int kInternalPlugins = 2;
constexpr std::size_t kMaxNetNameLength = 255;

NetCandidate externalEntry(const std::string& name) {
  NetCandidate c;
  c.binding.kind = PluginKind::Net;
  c.binding.requested = name;
  return c;
}

NetCandidate internalEntry(const std::string& name) {
  NetCandidate c = externalEntry("");
  c.internal = true;
  c.internalName = name;
  c.state = NetEntryState::InitReady;
  return c;
}

// strtok_r on ',': empty fields are skipped, as NCCL's tokenizer does.
std::vector<std::string> splitList(const std::string& list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    if (end > start) out.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string entryName(const NetCandidate& c) {
  if (c.internal) return c.internalName;
  return c.binding.table ? *static_cast<const char* const*>(c.binding.table) : c.binding.requested;
}

}  // namespace

std::vector<NetCandidate> Loader::openNetList() {
  netListLog_.clear();
  std::vector<NetCandidate> list;
  const std::optional<std::string> env = env_.get("NCCL_NET_PLUGIN");
  if (env) {
    netListLog_.push_back(infoLine("NCCL_NET_PLUGIN set by environment to " + *env));
    const std::string names = strcasecmp(env->c_str(), "none") == 0 ? std::string() : *env;
    for (const std::string& name : splitList(names)) {
      if (static_cast<int>(list.size()) >= kMaxPlugins - kInternalPlugins) {
        // NCCL's message says one fewer than the limit it applies.
        netListLog_.push_back(infoLine("NCCL_NET_PLUGIN list contains more than " +
                                       std::to_string(kMaxPlugins - (kInternalPlugins + 1)) +
                                       " plugins, ignoring the rest"));
        break;
      }
      if (name.size() + 1 <= kMaxNetNameLength) {
        list.push_back(externalEntry(name));
      } else {
        netListLog_.push_back(infoLine("NCCL_NET_PLUGIN list contains a plugin name " + name + " longer than " +
                                       std::to_string(kMaxNetNameLength) + " characters, ignoring it."));
      }
    }
  } else {
    list.push_back(externalEntry("libnccl-net.so"));
  }
  list.push_back(internalEntry("IB"));
  list.push_back(internalEntry("Socket"));
  return list;
}

void Loader::loadNet(NetCandidate& c) {
  Binding& b = c.binding;
  auto opened = openPluginLibrary(PluginKind::Net, b.requested, b.log);
  if (!opened) {
    c.state = NetEntryState::LoadFailed;
    return;
  }
  netLibName_ = opened->openedName;
  b.openedName = opened->openedName;
  const std::string shown = opened->library->path().empty() ? b.requested : opened->library->path();
  if (!bindNewestSymbol(behaviour_, PluginKind::Net, opened->library, b)) {
    b.log.push_back(infoLine("External network plugin " + shown + " is unsupported"));
    netLibName_.clear();  // NCCL closes it, which forgets the name too
    c.state = NetEntryState::LoadFailed;
    return;
  }
  b.log.push_back(infoLine("Successfully loaded external network plugin " + shown));
  c.state = NetEntryState::InitReady;
}

namespace {

// NCCL's ncclNetCheckDeviceVersion on device 0: HOST, or UNPACK at the version NCCL was built for.
bool deviceTypeAccepted(NetDriver& driver, std::vector<std::string>& log) {
  ncclNetProperties_v12_t props{};
  if (driver.getProperties(0, &props) != ncclSuccess) return false;
  if (props.netDeviceType == NCCL_NET_DEVICE_HOST) return true;
  if (props.netDeviceType == NCCL_NET_DEVICE_UNPACK) {
    if (props.netDeviceVersion == NCCL_NET_DEVICE_UNPACK_VERSION) {
      log.push_back(
          infoLine("Using NCCL_NET_DEVICE_UNPACK net plugin version " + std::to_string(props.netDeviceVersion)));
      return true;
    }
    log.push_back(warnLine("NCCL_DEVICE_UNPACK plugin has incompatible version " +
                           std::to_string(props.netDeviceVersion) + ", this NCCL build is compatible with " +
                           std::to_string(NCCL_NET_DEVICE_UNPACK_VERSION) + ", not using it"));
    return false;
  }
  log.push_back(warnLine("Unknown device code index " + std::to_string(props.netDeviceType)));
  return false;
}

// NCCL's ncclNetPluginInit for an external entry; returns the driver when the entry is enabled.
std::shared_ptr<NetDriver> initExternal(NcclBehaviour behaviour, NetCandidate& c, uint64_t commId, int trafficClass,
                                        std::vector<std::string>& log) {
  auto driver = std::make_shared<NetDriver>(c.binding);
  // NCCL hands every net plugin its ncclProfilerCallback, which looks for a profiler at call time.
  bool initCompleted = driver->init(commId, trafficClass, pluginLogger(), netProfilerCallback) == ncclSuccess;
  bool ok = initCompleted;
  if (ok && c.state == NetEntryState::InitReady) {  // devices() only the first time the entry comes up
    int ndev = 0;
    ok = driver->devices(&ndev) == ncclSuccess && ndev > 0;
    if (ok) c.physDevs = ndev;
  }
  if (!ok) {
    log.push_back(infoLine("Failed to initialize NET plugin " + entryName(c)));
    // 2.28 calls finalize(comm->netContext) even when init itself failed; 2.30 only after a good init.
    if (behaviour == NcclBehaviour::V2_28 || initCompleted) driver->finalize();
    c.physDevs = -1;
    c.state = NetEntryState::Disabled;
    return nullptr;
  }
  c.state = NetEntryState::Enabled;
  log.push_back(infoLine("Initialized NET plugin " + entryName(c)));
  return driver;
}

void disableOtherExternals(std::vector<NetCandidate>& candidates, std::size_t chosen, std::vector<std::string>& log) {
  std::string names;
  for (std::size_t i = 0; i < candidates.size(); i++) {
    if (candidates[i].internal || i == chosen) continue;
    names += (names.empty() ? "" : ", ") + candidates[i].binding.requested;
    candidates[i].state = NetEntryState::Disabled;
  }
  if (!names.empty()) log.push_back(infoLine("Disabling external plugins: " + names));
}

// The emulator has no RDMA device: NCCL's IB finds none and fails; its Socket transport always works.
bool initInternal(NcclBehaviour, NetCandidate& c, std::vector<std::string>& log) {
  if (c.internalName == "IB") {
    log.push_back(infoLine("Failed to initialize NET plugin IB"));
    c.state = NetEntryState::Disabled;
    return false;
  }
  c.state = NetEntryState::Enabled;
  log.push_back(infoLine("Initialized NET plugin " + c.internalName));
  return true;
}

// One line at a time: g++ 12 reports a false null dereference for the range insert here.
void appendLog(std::vector<std::string>& to, const std::vector<std::string>& from) {
  for (const std::string& line : from) to.push_back(line);
}

}  // namespace

NetSelection selectNet(Loader& loader, std::vector<NetCandidate>& candidates, uint64_t commId, int trafficClass) {
  NetSelection sel;
  appendLog(sel.log, loader.netListLog());
  const std::optional<std::string> filter = loader.netNameFilter();
  for (std::size_t i = 0; i < candidates.size(); i++) {
    NetCandidate& c = candidates[i];
    if (!c.internal && c.state == NetEntryState::LoadReady) {
      loader.loadNet(c);
      appendLog(sel.log, c.binding.log);
    }
    if (c.state < NetEntryState::InitReady) continue;
    if (filter && strcasecmp(filter->c_str(), entryName(c).c_str()) != 0) continue;
    if (c.internal) {
      if (!initInternal(loader.behaviour(), c, sel.log)) continue;
    } else {
      auto driver = initExternal(loader.behaviour(), c, commId, trafficClass, sel.log);
      if (!driver) continue;
      if (!deviceTypeAccepted(*driver, sel.log)) {
        driver->finalize();  // NCCL finalizes the entry for this communicator and moves on
        continue;
      }
      sel.driver = driver;
    }
    sel.chosen = static_cast<int>(i);
    sel.chosenName = entryName(c);
    sel.log.push_back(infoLine("Assigned NET plugin " + sel.chosenName + " to comm"));
    if (!c.internal) disableOtherExternals(candidates, i, sel.log);
    return sel;
  }
  sel.log.push_back(warnLine("Failed to initialize any NET plugin"));
  return sel;
}

}  // namespace railtune::emu
