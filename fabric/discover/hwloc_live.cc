// The live hwloc topology through libhwloc opened with dlopen: the one place railtune calls hwloc.
// The few functions used are declared here from hwloc's public 2.x ABI (opaque topology pointer,
// int-sized enums), so nothing includes <hwloc.h> and the CLI runs where hwloc is not installed.
#include <dlfcn.h>

#include <cstdio>
#include <string>
#include <vector>

#include "fabric/discover/hwloc_source.h"

namespace railtune::fabric::discover {
namespace {

using Topology = void*;  // hwloc_topology_t
using GetApiVersion = unsigned (*)();
using TopologyInit = int (*)(Topology*);
using SetIoTypesFilter = int (*)(Topology, int);
using TopologyLoad = int (*)(Topology);
using ExportXmlBuffer = int (*)(Topology, char**, int*, unsigned long);
using FreeXmlBuffer = void (*)(Topology, char*);
using TopologyDestroy = void (*)(Topology);

constexpr int kTypeFilterKeepImportant = 3;  // HWLOC_TYPE_FILTER_KEEP_IMPORTANT
constexpr const char* kDefaultLibrary = "libhwloc.so.15";
constexpr const char* kFallbackLibrary = "libhwloc.so";  // a development install without the soname link

// libhwloc's handle and the functions railtune calls; closed when it goes out of scope.
class HwlocLibrary {
 public:
  ~HwlocLibrary() {
    if (handle_) dlclose(handle_);
  }
  // Opens `name` (or the defaults when empty); on failure returns the reason.
  std::string open(const std::string& name);
  std::string exportXml(std::string& xml) const;
  const std::string& name() const { return name_; }

 private:
  template <typename F>
  bool bind(F& fn, const char* symbol, std::string& missing) {
    fn = reinterpret_cast<F>(dlsym(handle_, symbol));
    if (!fn && missing.empty()) missing = symbol;
    return fn != nullptr;
  }

  void* handle_ = nullptr;
  std::string name_;
  GetApiVersion getApiVersion_ = nullptr;
  TopologyInit init_ = nullptr;
  SetIoTypesFilter setIoTypesFilter_ = nullptr;
  TopologyLoad load_ = nullptr;
  ExportXmlBuffer exportXmlBuffer_ = nullptr;
  FreeXmlBuffer freeXmlBuffer_ = nullptr;
  TopologyDestroy destroy_ = nullptr;
};

std::string HwlocLibrary::open(const std::string& name) {
  const std::vector<std::string> candidates =
      name.empty() ? std::vector<std::string>{kDefaultLibrary, kFallbackLibrary} : std::vector<std::string>{name};
  std::string why;
  for (const std::string& candidate : candidates) {
    handle_ = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_) {
      name_ = candidate;
      break;
    }
    const char* reason = dlerror();
    if (why.empty() && reason) why = reason;
  }
  if (!handle_) {
    return "hwloc library not found (" + candidates.front() +
           "): install the libhwloc15 package or pass --hwloc-xml FILE exported with `lstopo --of xml`" +
           (why.empty() ? "" : " [" + why + "]");
  }
  std::string missing;
  bind(getApiVersion_, "hwloc_get_api_version", missing);
  bind(init_, "hwloc_topology_init", missing);
  bind(setIoTypesFilter_, "hwloc_topology_set_io_types_filter", missing);
  bind(load_, "hwloc_topology_load", missing);
  bind(exportXmlBuffer_, "hwloc_topology_export_xmlbuffer", missing);
  bind(freeXmlBuffer_, "hwloc_free_xmlbuffer", missing);
  bind(destroy_, "hwloc_topology_destroy", missing);
  if (!missing.empty()) return name_ + " is not an hwloc 2.x library: it does not export " + missing;
  // The ABI declared above is hwloc 2.x's; 1.x and 3.x changed it (hwloc_get_api_version() is 0xMMmmrr).
  const unsigned api = getApiVersion_();
  if ((api >> 16) != 2) {
    char version[32];
    std::snprintf(version, sizeof version, "0x%x", api);
    return name_ + " has hwloc API version " + version + ", railtune needs 2.x (0x2xxxx)";
  }
  return "";
}

std::string HwlocLibrary::exportXml(std::string& xml) const {
  Topology topo = nullptr;
  if (init_(&topo) != 0) return name_ + ": hwloc_topology_init failed";
  std::string why;
  char* buffer = nullptr;
  int length = 0;
  // KEEP_IMPORTANT: GPUs, NICs and the bridges above them, without every PCI bridge of the host.
  if (setIoTypesFilter_(topo, kTypeFilterKeepImportant) != 0) {
    why = name_ + ": hwloc_topology_set_io_types_filter failed";
  } else if (load_(topo) != 0) {
    why = name_ + ": hwloc_topology_load failed";
  } else if (exportXmlBuffer_(topo, &buffer, &length, 0) != 0 || !buffer || length <= 0) {
    why = name_ + ": hwloc_topology_export_xmlbuffer failed";
  } else {
    // hwloc counts the terminating NUL in the length.
    xml.assign(buffer, static_cast<size_t>(length) - (buffer[length - 1] == '\0' ? 1 : 0));
  }
  if (buffer) freeXmlBuffer_(topo, buffer);
  destroy_(topo);
  return why;
}

}  // namespace

HwlocTopology readLiveHwloc(std::vector<std::string>& errors, EnvLookup env) {
  const ParamValue<std::string> library = readString("RAILTUNE_HWLOC_LIBRARY", env);
  if (!library.ok()) {
    errors.push_back(library.error);
    return {};
  }
  HwlocLibrary hwloc;
  if (std::string why = hwloc.open(library.value); !why.empty()) {
    errors.push_back(why);
    return {};
  }
  std::string xml;
  if (std::string why = hwloc.exportXml(xml); !why.empty()) {
    errors.push_back(why);
    return {};
  }
  return readHwlocXml(xml, "hwloc:" + hwloc.name(), errors);
}

}  // namespace railtune::fabric::discover
