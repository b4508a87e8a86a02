// See mask.h.
#include "profiler_plugin/capture/mask.h"

#include <cctype>

namespace railtune::profiler {
namespace {

struct MaskName {
  const char* name;
  EventMask bits;
};

constexpr MaskName kNames[] = {
    {"coll", static_cast<EventMask>(EventType::Coll)},
    {"p2p", static_cast<EventMask>(EventType::P2p)},
    {"proxyop", static_cast<EventMask>(EventType::ProxyOp)},
    {"proxystep", static_cast<EventMask>(EventType::ProxyStep)},
    {"kernelch", static_cast<EventMask>(EventType::KernelCh)},
    {"kernelphase", static_cast<EventMask>(EventType::KernelPhase)},
    {"cecoll", static_cast<EventMask>(EventType::CeColl)},
    {"netplugin", static_cast<EventMask>(EventType::NetPlugin)},
    {"all", kAllProfileMask},
    {"default", kDefaultProfileMask},
    {"none", 0},
};

std::string lowered(const std::string& text) {
  std::string out = text;
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

ParsedMask parseProfileMask(const std::vector<std::string>& names) {
  ParsedMask parsed;
  if (names.empty()) return parsed;
  EventMask mask = 0;
  for (const std::string& raw : names) {
    const std::string name = lowered(raw);
    bool known = false;
    for (const MaskName& entry : kNames) {
      if (name == entry.name) {
        mask |= entry.bits;
        known = true;
      }
    }
    if (!known) {
      parsed.error =
          "unknown event name '" + raw +
          "'; expected coll, p2p, proxyop, proxystep, kernelch, kernelphase, cecoll, netplugin, all, default or none";
      return parsed;
    }
  }
  parsed.mask = mask;
  return parsed;
}

std::string profileMaskNames(EventMask mask) {
  std::string out;
  for (const MaskName& entry : kNames) {
    const bool single = entry.bits != 0 && (entry.bits & (entry.bits - 1)) == 0;
    if (!single || (mask & entry.bits) == 0) continue;
    if (!out.empty()) out += ',';
    out += entry.name;
  }
  return out.empty() ? "none" : out;
}

}  // namespace railtune::profiler
