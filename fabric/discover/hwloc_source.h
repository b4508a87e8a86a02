// The hwloc source of `railtune topo discover`: an hwloc topology, from an XML export (`lstopo --of
// xml`, hwloc 2.x or 3.0) or from the live machine through libhwloc opened with dlopen, read into
// an HwlocTopology (inventory.h). Nothing here includes <hwloc.h> or links libhwloc, so the CLI
// runs where hwloc is absent and says so.
//
// Errors: both readers append one line per problem to `errors` and return what they could read.
// A file that is not an hwloc 2.x/3.0 topology yields an empty topology and one error; a bad element
// (a PCI device without a valid bus id, an unparsable pci_type or cpuset) is skipped with an error
// naming `source:line:column`, so that one run reports every problem. A caller must treat a
// non-empty error list as "do not trust this topology". Two devices with one bus id (two host bridges
// numbering their buses alike) are an error when both are GPUs or NICs; one that is neither is left out
// with a line in HwlocTopology::warnings instead.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/params.h"
#include "fabric/discover/inventory.h"

namespace railtune::fabric::discover {

// Caps that keep hostile input from costing unbounded time, memory or stack. A real export of the
// largest machines hwloc knows stays far below each of them.
inline constexpr size_t kHwlocMaxXmlBytes = size_t{64} << 20;  // a 2-socket server with GPUs: ~200 KiB
inline constexpr int kHwlocMaxDepth = 64;                      // object nesting; real exports: < 25
inline constexpr size_t kHwlocMaxPciDevices = 4096;
inline constexpr size_t kHwlocMaxNumaNodes = 1024;
inline constexpr size_t kHwlocMaxPackages = 1024;
inline constexpr size_t kHwlocMaxOsDevsPerPci = 64;
inline constexpr size_t kHwlocMaxCpusetWords = 1024;  // 32,768 CPUs

// Reads an hwloc XML export. `sourceName` is what errors call the input ("node1.xml").
HwlocTopology readHwlocXml(std::string_view text, const std::string& sourceName, std::vector<std::string>& errors);

// Reads the file at `path` (at most kHwlocMaxXmlBytes) and then as readHwlocXml, errors naming `path`.
HwlocTopology readHwlocXmlFile(const std::string& path, std::vector<std::string>& errors);

// The live topology: dlopen libhwloc (RAILTUNE_HWLOC_LIBRARY, else libhwloc.so.15, then libhwloc.so),
// check that its API is 2.x, load the topology with the important I/O objects, export it to XML in
// memory and read that as readHwlocXml does (source name "hwloc:<library>").
HwlocTopology readLiveHwloc(std::vector<std::string>& errors, EnvLookup env = processEnv);

// ---- attribute parsers, exposed for tests and the fuzzer ----------------------------------------

// hwloc bitmap text ("0x3", "0xffffffff,0x00000003") → Linux cpumap form ("00000003",
// "ffffffff,00000003": 32-bit words, most significant first, each 8 hex digits, leading zero words
// dropped). nullopt for malformed text and for infinite sets ("0xf...f,..."), which a cpuset of a
// real NUMA node never is.
std::optional<std::string> hwlocBitmapToCpumap(std::string_view text);

// The lowest index set in an hwloc bitmap (a nodeset: NUMA os_index values); -1 when empty;
// nullopt when malformed.
std::optional<int> hwlocBitmapFirst(std::string_view text);

struct PciType {
  uint16_t classId = 0;
  uint16_t vendorId = 0;
  uint16_t deviceId = 0;
};
// "CCCC [VVVV:DDDD] [SVVV:SDDD] rev progif" → class, vendor, device; nullopt when it does not start
// with "CCCC [VVVV:DDDD]" (the subsystem ids and revision that follow are not needed, so not checked).
std::optional<PciType> parsePciType(std::string_view text);

// osdev_type → kind. hwloc 2.x writes an enum (0 block, 1 gpu, 2 network, 3 openfabrics, 4 dma,
// 5 coproc); hwloc 3.0 a bitmask (1 storage, 2 memory, 4 gpu, 8 coproc, 16 network, 32 openfabrics,
// 64 dma), where one device may set several bits: the most specific kind wins (GPU before coproc,
// OpenFabrics before network).
OsDevKind osDevKindFromHwloc(long value, bool bitmask);

}  // namespace railtune::fabric::discover
