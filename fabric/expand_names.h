// Name patterns of the compact cluster spec: "rack{d:02}", "{domain}-tray{t:02}", and the NIC GUID pattern
// "0xb83fd203{h:04x}{r:02x}00".
#pragma once

#include <string>

namespace railtune::fabric {

struct NameFields {
  int d = 0;           // domain index
  int t = 0;           // tray index
  std::string domain;  // domain name ("" while naming domains)
  int h = -1;          // host index over the cluster (d x trays + t); -1: not known here
  int r = -1;          // rail; -1: not known here
};

// Replaces {d}, {t}, {h}, {r} (optionally {d:0N}: zero-padded to N digits; {d:0Nx} or {d:x}: in hexadecimal;
// {d+N}: the index plus N, to count from 1) and {domain}; {h} and {r} only where `fields` knows them. Throws
// std::invalid_argument naming `field` on an unknown placeholder or an unbalanced brace.
std::string formatName(const std::string& pattern, const NameFields& fields, const std::string& field);

}  // namespace railtune::fabric
