// The fabric model's lookups and the PCI bus id canonical form (fabric/model.h).
#include "fabric/model.h"

#include <algorithm>
#include <cctype>

namespace railtune::fabric {

std::string SourceLoc::str() const {
  if (file.empty()) return "(built-in)";
  if (line <= 0) return file;
  // Appended piece by piece: g++ 12 at -O3 warns (-Wrestrict, a false positive) on "a + ':' + b".
  std::string text = file;
  text.append(":").append(std::to_string(line));
  if (column > 0) text.append(":").append(std::to_string(column));
  return text;
}

namespace {

template <typename T>
const T* findByName(const std::vector<T>& items, const std::string& name) {
  auto it = std::find_if(items.begin(), items.end(), [&](const T& item) { return item.name == name; });
  return it == items.end() ? nullptr : &*it;
}

bool allHex(const std::string& text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

const Host* Fabric::findHost(const std::string& hostName) const {
  return findByName(hosts, hostName);
}
const NvlDomain* Fabric::findDomain(const std::string& domainName) const {
  return findByName(domains, domainName);
}
const RailGroup* Fabric::findRailGroup(const std::string& groupName) const {
  return findByName(network.railGroups, groupName);
}

const Switch* Fabric::leafFor(const std::string& railGroup, int rail, int plane) const {
  for (const Switch& s : network.switches)
    if (s.tier == SwitchTier::Leaf && s.railGroup == railGroup && s.rail == rail && s.plane == plane) return &s;
  return nullptr;
}

// Accepts "bb:dd.f", "dddd:bb:dd.f" and the 8-digit domain form NVML and NCCL print
// ("00000000:01:00.0"), any case; the domain keeps its low 16 bits only when the high digits are 0.
std::optional<std::string> normalizeBusId(const std::string& text) {
  const size_t dot = text.rfind('.');
  if (dot == std::string::npos || dot + 2 != text.size()) return std::nullopt;
  const std::string function = text.substr(dot + 1);
  if (function[0] < '0' || function[0] > '7') return std::nullopt;
  const std::string head = text.substr(0, dot);
  const size_t lastColon = head.rfind(':');
  if (lastColon == std::string::npos) return std::nullopt;
  const std::string device = head.substr(lastColon + 1);
  const std::string rest = head.substr(0, lastColon);
  const size_t colon = rest.rfind(':');
  const std::string bus = colon == std::string::npos ? rest : rest.substr(colon + 1);
  std::string domain = colon == std::string::npos ? "0000" : rest.substr(0, colon);
  if (device.size() != 2 || bus.size() != 2 || !allHex(device) || !allHex(bus) || !allHex(domain)) return std::nullopt;
  if (domain.size() > 8) return std::nullopt;
  if (domain.size() > 4) {
    if (domain.find_first_not_of('0') < domain.size() - 4) return std::nullopt;
    domain = domain.substr(domain.size() - 4);
  }
  if (std::stoul(device, nullptr, 16) > 0x1f) return std::nullopt;
  std::string canonical(4 - domain.size(), '0');
  canonical.append(domain).append(":").append(bus).append(":").append(device).append(".").append(function);
  return lower(canonical);
}

bool isGidText(const std::string& text) {
  if (text.size() != 39) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    const bool separator = i % 5 == 4;
    if (separator != (text[i] == ':')) return false;
    if (!separator && !std::isxdigit(static_cast<unsigned char>(text[i]))) return false;
  }
  return true;
}

}  // namespace railtune::fabric
