// Reads a fixture of tests/data/discover/hwloc/ for the hwloc tests, and a few lookups over the result.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fabric/discover/hwloc_source.h"

namespace railtune::fabric::discover::testing {

inline std::string fixturePath(const std::string& name) {
  return std::string(RAILTUNE_HWLOC_FIXTURES) + "/" + name;
}

struct Loaded {
  HwlocTopology topo;
  std::vector<std::string> errors;
};

// The real DGX-2 hwloc 3.0 export, read in place from the shared data folder (absent: the tests that
// need it skip, saying so).
inline std::string sharedHwlocPath(const std::string& name) {
  return std::string(RAILTUNE_SHARED_HWLOC) + "/" + name;
}

inline Loaded loadShared(const std::string& name) {
  Loaded loaded;
  loaded.topo = readHwlocXmlFile(sharedHwlocPath(name), loaded.errors);
  return loaded;
}

inline Loaded loadFixture(const std::string& name) {
  Loaded loaded;
  loaded.topo = readHwlocXmlFile(fixturePath(name), loaded.errors);
  return loaded;
}

inline std::vector<const HwlocPciDevice*> devicesWhere(const HwlocTopology& topo, uint16_t vendor, uint16_t cls) {
  std::vector<const HwlocPciDevice*> out;
  for (const HwlocPciDevice& d : topo.pciDevices)
    if (d.vendorId == vendor && d.classId == cls) out.push_back(&d);
  return out;
}

inline const HwlocPciDevice* deviceAt(const HwlocTopology& topo, const std::string& busId) {
  for (const HwlocPciDevice& d : topo.pciDevices)
    if (d.busId == busId) return &d;
  return nullptr;
}

// The device at `busId`; a test failure and an empty device when there is none.
inline const HwlocPciDevice& deviceRef(const HwlocTopology& topo, const std::string& busId) {
  static const HwlocPciDevice kNone;
  const HwlocPciDevice* d = deviceAt(topo, busId);
  if (!d) ADD_FAILURE() << "no PCI device " << busId;
  return d ? *d : kNone;
}

// Whether two devices sit under one PCI switch: their upstream chains share a bridge past the host
// bridge (inventory.h).
inline bool shareSwitch(const HwlocPciDevice& a, const HwlocPciDevice& b) {
  for (size_t i = 1; i < a.upstream.size(); ++i)
    if (std::find(b.upstream.begin() + (b.upstream.empty() ? 0 : 1), b.upstream.end(), a.upstream[i]) !=
        b.upstream.end())
      return true;
  return false;
}

inline std::vector<std::string> osdevNames(const HwlocPciDevice& d, OsDevKind kind) {
  std::vector<std::string> out;
  for (const HwlocOsDev& o : d.osdevs)
    if (o.kind == kind) out.push_back(o.name);
  return out;
}

}  // namespace railtune::fabric::discover::testing
