#include "topo_gen/sched_common.h"

#include <cstdio>
#include <stdexcept>

namespace railtune::topo {

const fabric::Host& hostNamed(const fabric::Fabric& fabric, const std::string& name) {
  for (const fabric::Host& host : fabric.hosts)
    if (host.name == name) return host;
  throw std::invalid_argument("host '" + name + "' is not in fabric '" + fabric.name + "'");
}

const fabric::NvlDomain& domainOf(const fabric::Fabric& fabric, const fabric::Host& host) {
  for (const fabric::NvlDomain& domain : fabric.domains)
    if (domain.name == host.domain) return domain;
  throw std::invalid_argument("host '" + host.name + "' names NVLink domain '" + host.domain +
                              "', which the fabric does not declare");
}

const fabric::RailGroup* railGroupOf(const fabric::Fabric& fabric, const fabric::NvlDomain& domain) {
  if (domain.railGroup.empty()) return nullptr;
  for (const fabric::RailGroup& group : fabric.network.railGroups)
    if (group.name == domain.railGroup) return &group;
  throw std::invalid_argument("NVLink domain '" + domain.name + "' names rail group '" + domain.railGroup +
                              "', which the fabric does not declare");
}

std::string yamlQuote(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20 || byte == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

namespace {
bool isLowerAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
}  // namespace

void requireObjectName(const std::string& name, const std::string& what) {
  bool valid = !name.empty() && name.size() <= 253 && isLowerAlnum(name.front()) && isLowerAlnum(name.back());
  for (const char c : name) valid = valid && (isLowerAlnum(c) || c == '-' || c == '.');
  if (!valid)
    throw std::invalid_argument(what + " '" + name +
                                "' is not a valid Kubernetes object name (lowercase letters, digits, '-' and "
                                "'.', starting and ending with a letter or digit, at most 253 characters)");
}

}  // namespace railtune::topo
