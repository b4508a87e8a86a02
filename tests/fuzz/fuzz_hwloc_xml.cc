// libFuzzer target for the hwloc XML reader (fabric/discover/hwloc_source.h) on arbitrary bytes. Besides
// crashes, sanitizer reports and stack exhaustion it checks the reader's promises: every error names
// the input, the caps hold, bus ids are canonical and unique, cpumaps are in Linux form.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>

#include "fabric/discover/hwloc_source.h"
#include "fabric/model.h"

namespace {

using namespace railtune::fabric::discover;

void require(bool promise) {
  if (!promise) std::abort();
}

// "ffffffff,00000003": 8 hex digits per word, commas between.
bool isCpumap(const std::string& map) {
  if (map.size() % 9 != 8) return false;
  for (size_t i = 0; i < map.size(); ++i) {
    const bool comma = i % 9 == 8;
    if (comma != (map[i] == ',')) return false;
    if (!comma && !std::isxdigit(static_cast<unsigned char>(map[i]))) return false;
  }
  return true;
}

void checkTopology(const HwlocTopology& topo) {
  require(topo.pciDevices.size() <= kHwlocMaxPciDevices);
  require(topo.numas.size() <= kHwlocMaxNumaNodes);
  require(topo.packages.size() <= kHwlocMaxPackages);
  std::set<std::string> busIds;
  for (const HwlocPciDevice& d : topo.pciDevices) {
    require(railtune::fabric::normalizeBusId(d.busId) == d.busId);
    require(busIds.insert(d.busId).second);
    require(d.osdevs.size() <= kHwlocMaxOsDevsPerPci);
    require(d.upstream.size() <= static_cast<size_t>(kHwlocMaxDepth));
    for (const std::string& key : d.upstream) require(!key.empty());
    for (const HwlocOsDev& o : d.osdevs) require(!o.name.empty());
  }
  for (const HwlocNuma& n : topo.numas) require(n.osIndex >= 0 && isCpumap(n.cpumap));
  for (const HwlocPackage& p : topo.packages) require(p.numas.size() <= topo.numas.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> errors;
  const HwlocTopology topo = readHwlocXml(text, "fuzz.xml", errors);
  for (const std::string& e : errors) require(e.rfind("fuzz.xml", 0) == 0);
  require(errors.size() <= 101);
  if (errors.empty()) require(topo.version.rfind("2.", 0) == 0 || topo.version.rfind("3.", 0) == 0);
  checkTopology(topo);
  return 0;
}
