// makeEngine: whether railtune carries this process's traffic, over which devices and with what
// options. Everything here runs once per process, at the first init; a problem that would make
// the job slower or wrong steps aside (init fails with one WARN, NCCL moves on to its own transport),
// a bad tuning value is a WARN and its default.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "common/config_digest.h"
#include "common/identity.h"
#include "formats/rail_map.h"
#include "net_plugin/devices/device_list.h"
#include "net_plugin/devices/step_aside.h"
#include "net_plugin/engine.h"
#include "net_plugin/engine_ib.h"
#include "net_plugin/plugin_engine.h"

namespace railtune::net {
namespace {

// An integer variable within its range in the parameter table (common/params.cc), else its default
// with one WARN naming the variable, the value and the range.
int intParam(const char* name, const Log& log) {
  const ParamValue<int64_t> value = readInt(name);
  if (!value.ok())
    RT_WARN(log, NCCL_INIT | NCCL_ENV, "%s; using %lld", value.error.c_str(), static_cast<long long>(value.value));
  return static_cast<int>(value.value);
}

bool boolParam(const char* name, const Log& log) {
  const ParamValue<bool> value = readBool(name);
  if (!value.ok()) RT_WARN(log, NCCL_INIT | NCCL_ENV, "%s; using %d", value.error.c_str(), value.value ? 1 : 0);
  return value.value;
}

std::string stringParam(const char* name) {
  const ParamValue<std::string> value = readString(name);
  return value.ok() ? value.value : std::string();
}

int deviceIndex(const std::vector<NetDevice>& devices, const std::string& name) {
  for (size_t i = 0; i < devices.size(); ++i)
    if (devices[i].name == name) return static_cast<int>(i);
  return -1;
}

// RAILTUNE_NET_FAULT_MISBIND=FROM:TO. A value that names no device of this host is a WARN and no fault.
std::optional<std::pair<int, int>> misbindFault(const std::vector<NetDevice>& devices, const Log& log) {
  const std::string value = stringParam("RAILTUNE_NET_FAULT_MISBIND");
  if (value.empty()) return std::nullopt;
  const size_t colon = value.find(':');
  const int from = colon == std::string::npos ? -1 : deviceIndex(devices, value.substr(0, colon));
  const int to = colon == std::string::npos ? -1 : deviceIndex(devices, value.substr(colon + 1));
  if (from < 0 || to < 0) {
    RT_WARN(log, NCCL_INIT | NCCL_ENV,
            "RAILTUNE_NET_FAULT_MISBIND='%s': expected FROM:TO, two device names of this host; "
            "no fault injected",
            value.c_str());
    return std::nullopt;
  }
  RT_WARN(log, NCCL_INIT | NCCL_ENV,
          "RAILTUNE_NET_FAULT_MISBIND: connections on %s leave through %s (a fault injected "
          "for testing)",
          devices[static_cast<size_t>(from)].name.c_str(), devices[static_cast<size_t>(to)].name.c_str());
  return std::make_pair(from, to);
}

// Devices without an address cannot carry TCP: left out, with the reason.
std::vector<NetDevice> usableDevices(DeviceList list, const Log& log) {
  for (const std::string& note : list.notes) RT_INFO(log, NCCL_INIT | NCCL_NET, "%s", note.c_str());
  std::vector<NetDevice> usable;
  for (NetDevice& device : list.devices) {
    if (device.ipv4.empty()) {
      RT_INFO(log, NCCL_INIT | NCCL_NET, "device %s left out: its interface '%s' has no IPv4 address",
              device.name.c_str(), device.netdev.c_str());
      continue;
    }
    usable.push_back(std::move(device));
  }
  return usable;
}

std::shared_ptr<const formats::RailMap> railMapFor(const std::string& path) {
  if (path.empty()) return nullptr;
  return std::make_shared<const formats::RailMap>(formats::readRailMapFile(path));
}

}  // namespace

std::unique_ptr<Engine> makeEngine(const EngineOptions& engineOptions, const Log& log) {
  std::string root = stringParam("RAILTUNE_NET_SYSFS_ROOT");
  if (root.empty()) root = "/";
  const StepAsideDecision decision = decideStepAside(root);
  if (decision.stepAside) throw StepAside(decision.reason);
  if (!decision.reason.empty()) RT_INFO(log, NCCL_INIT | NCCL_NET, "%s", decision.reason.c_str());

  DeviceListOptions listOptions;
  listOptions.root = root;
  listOptions.addressFile = stringParam("RAILTUNE_NET_ADDRESS_FILE");
  const bool verbs = decision.choice == TransportChoice::Ib;
  std::vector<NetDevice> devices;
  std::shared_ptr<const formats::RailMap> railMap;
  try {
    DeviceList list = buildDeviceList(listOptions);
    if (verbs) {
      for (const std::string& note : list.notes) RT_INFO(log, NCCL_INIT | NCCL_NET, "%s", note.c_str());
      // HCAs only (from the rail map or /sys/class/infiniband): plain interfaces have no verbs.
      if (list.source != DeviceSource::Interfaces) devices = std::move(list.devices);
    } else {
      devices = usableDevices(std::move(list), log);
    }
    railMap = railMapFor(stringParam("RAILTUNE_RAIL_MAP"));
  } catch (const std::exception& e) {
    throw StepAside(std::string("cannot list the devices: ") + e.what());
  }
  if (devices.empty()) {
    throw StepAside(verbs
                        ? "RAILTUNE_NET_TRANSPORT=ib, but no RDMA device was found (rail map or /sys/class/infiniband)"
                        : "no network device with an IPv4 address to carry the traffic");
  }

  PluginOptions options;
  options.identity = resolveIdentity();
  options.digest = configDigest(digestInputsFromEnvironment());
  options.strict = boolParam("RAILTUNE_STRICT", log);
  // The table's range of RAILTUNE_NET_STREAMS is 1..kMaxStreams; min() only guards against the two drifting.
  options.socket.streams = std::min(intParam("RAILTUNE_NET_STREAMS", log), socket::kMaxStreams);
  options.socket.timeoutSeconds = intParam("RAILTUNE_NET_TIMEOUT", log);
  options.railMap = std::move(railMap);
  options.railMapHost = options.identity.host;
  options.misbind = misbindFault(devices, log);
  options.pathLog = pathlog::PathLogWriter::fromEnvironment(log);
  options.profiler = engineOptions.profiler;
  if (verbs) {
    options.ib = verbsSetup(listOptions, devices, options.railMap.get(), options.railMapHost, log);
    // Named in the reason: with rdma-core installed and no RDMA device, the library loads and then cannot list.
    const std::string library = options.ib->verbs.library;
    try {
      return std::make_unique<PluginEngine>(std::move(devices), std::move(options), log);
    } catch (const std::runtime_error& e) {
      throw StepAside("the verbs transport cannot use its devices through " + library + ": " + e.what());
    }
  }
  std::string names;
  for (const NetDevice& d : devices) names += (names.empty() ? "" : " ") + d.name + "/" + d.netdev + "=" + d.ipv4;
  RT_INFO(log, NCCL_INIT | NCCL_NET, "socket transport, %d streams per connection, timeout %d s, %s, devices: %s",
          options.socket.streams, options.socket.timeoutSeconds, digestHex(options.digest).c_str(), names.c_str());
  return std::make_unique<PluginEngine>(std::move(devices), std::move(options), log);
}

}  // namespace railtune::net
