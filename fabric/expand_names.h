// Name patterns of the compact cluster spec: "rack{d:02}", "{domain}-tray{t:02}".
#pragma once

#include <string>

namespace railtune::fabric {

struct NameFields {
  int d = 0;           // domain index
  int t = 0;           // tray index
  std::string domain;  // domain name ("" while naming domains)
};

// Replaces {d}, {t} (optionally {d:0N}: zero-padded to N digits) and {domain}. Throws
// std::invalid_argument naming `field` on an unknown placeholder or an unbalanced brace.
std::string formatName(const std::string& pattern, const NameFields& fields, const std::string& field);

}  // namespace railtune::fabric
