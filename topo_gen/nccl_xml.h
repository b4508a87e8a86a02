// NCCL topology XML (NCCL_TOPO_FILE) for one host of the fabric model, and the reader that turns such a
// file (ours or a real NCCL_TOPO_DUMP_FILE) back into a fabric::Host. NCCL's parser (src/graph/xml.cc)
// is a small hand-written one with fixed limits; the writer stays inside them and the reader enforces
// them, so that `railtune topo check` can report a file NCCL would reject before a job loads it.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "fabric/model.h"

namespace railtune::topo {

// NCCL's limits (src/graph/xml.h, topo.h). A quoted value or a name is read into a 256-byte buffer that
// must also hold the closing quote/delimiter, so at most 253 characters fit.
inline constexpr int kNcclMaxAttrs = 16;                           // MAX_ATTR_COUNT: more are silently dropped
inline constexpr int kNcclMaxElements = 256;                       // NCCL_TOPO_XML_MAX_NODES
inline constexpr int kNcclMaxChildren = 640;                       // MAX_SUBS
inline constexpr int kNcclMaxTextLen = 253;                        // MAX_STR_LEN - 2
inline constexpr const char* kNvSwitchTarget = "fffffff:ff:ff.0";  // NCCL's NVLink target for an NVSwitch
inline constexpr const char* kNvSwitchClass = "0x068000";

// One element as NCCL's dumper writes it: attributes in insertion order, children in order.
struct XmlElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attrs;
  std::vector<XmlElement> children;

  XmlElement& attr(const std::string& key, const std::string& value);
  XmlElement& child(const std::string& childName);
  int countElements() const;  // this element and all below it
};

// True for a PCI address as NCCL writes it: "dddd:bb:dd.f", lowercase hex.
bool isNcclBusId(const std::string& text);

// The element tree NCCL would load for `host`. Throws std::invalid_argument naming the host and the
// GPU/NIC when the model cannot be placed (a GPU or NIC on a NUMA node with no CPU, a bad bus id).
XmlElement buildNcclXml(const fabric::Host& host);

// NCCL's dumper style: no prolog, 2-space indentation, `<a k="v"/>` for leaves, one element a line.
std::string dumpNcclXml(const XmlElement& root);

// buildNcclXml + dumpNcclXml.
std::string writeNcclXml(const fabric::Host& host);

// Every way `root` would break NCCL's parser limits, one message each, naming the element path.
std::vector<std::string> ncclLimitViolations(const XmlElement& root);

// A file NCCL would reject or one that does not describe a host; what() is "SOURCE:LINE:COLUMN: reason"
// (just "SOURCE: reason" when the file cannot be opened).
class NcclXmlError : public std::runtime_error {
 public:
  NcclXmlError(const fabric::SourceLoc& where, const std::string& reason)
      : std::runtime_error(where.str() + ": " + reason), where_(where), reason_(reason) {}
  const fabric::SourceLoc& where() const { return where_; }
  const std::string& reason() const { return reason_; }

 private:
  fabric::SourceLoc where_;
  std::string reason_;
};

// Parses NCCL topology XML into a Host: CPUs (numaid, arch, vendor, affinity, family/model), GPUs (bus id
// of their PCI function, dev as index, sm, NVLink count summed over targets, C2C), NICs (net name as HCA,
// PCI bus id, speed, port, guid, rail, plane, NUMA, the GPU under the same PCI bridge). Host::name comes
// from `<system name=...>` when present. A partial file (PCI tree only) gives GPUs and NICs with what is
// there. `source` names the input in errors.
fabric::Host readNcclXml(const std::string& text, const std::string& source);
fabric::Host readNcclXmlFile(const std::string& path);

}  // namespace railtune::topo
