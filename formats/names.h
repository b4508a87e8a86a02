// The names a cluster description and a rail map give hosts, NVLink domains and racks. Host and domain
// names become Kubernetes node and object names (DNS-1123 subdomains: lowercase), file names under an
// output folder and label values; a rack name is only a label value (uppercase allowed). Header only:
// the plugins' rail-map reader and the CLI-side validation share it. See docs/fabric.md ("Names").
#pragma once

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace railtune::formats {

inline constexpr size_t kMaxDnsSubdomain = 253;  // Kubernetes' DNS-1123 subdomain limit
inline constexpr size_t kMaxDnsLabel = 63;       // each dot-separated part, and a label value

// `name` for a message: non-printable bytes (NUL included) as \xNN, cut after 64 characters.
inline std::string printableName(std::string_view name) {
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < name.size() && i < 64; ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (name.size() > 64) out += "... (" + std::to_string(name.size()) + " bytes)";
  return out;
}

namespace names_detail {
inline bool lowerAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
inline bool anyAlnum(char c) {
  return lowerAlnum(c) || (c >= 'A' && c <= 'Z');
}
}  // namespace names_detail

// "" when `name` is a DNS-1123 subdomain (what Kubernetes takes as a node name): 1 to 253 characters,
// dot-separated parts of 1 to 63 of [a-z0-9-], each starting and ending with a letter or digit.
// Otherwise why not, for a message that already names the value.
inline std::string dnsSubdomainProblem(std::string_view name) {
  if (name.empty()) return "is empty";
  if (name.find('\0') != std::string_view::npos) return "contains a NUL character";
  if (name.size() > kMaxDnsSubdomain) return "is longer than " + std::to_string(kMaxDnsSubdomain) + " characters";
  size_t start = 0;
  while (start <= name.size()) {
    const size_t dot = std::min(name.find('.', start), name.size());
    const std::string_view part = name.substr(start, dot - start);
    if (part.empty()) return "has an empty part between dots";
    if (part.size() > kMaxDnsLabel) return "has a part longer than " + std::to_string(kMaxDnsLabel) + " characters";
    for (char c : part)
      if (!names_detail::lowerAlnum(c) && c != '-')
        return "may hold only lowercase letters, digits, '-' and '.' (a DNS-1123 name, as Kubernetes nodes have)";
    if (part.front() == '-' || part.back() == '-') return "has a part that starts or ends with '-'";
    start = dot + 1;
  }
  return "";
}

// "" when `name` is a non-empty Kubernetes label value: up to 63 of [A-Za-z0-9-_.], starting and
// ending with a letter or digit.
inline std::string labelValueProblem(std::string_view name) {
  if (name.empty()) return "is empty";
  if (name.find('\0') != std::string_view::npos) return "contains a NUL character";
  if (name.size() > kMaxDnsLabel) return "is longer than " + std::to_string(kMaxDnsLabel) + " characters";
  for (char c : name)
    if (!names_detail::anyAlnum(c) && c != '-' && c != '_' && c != '.')
      return "may hold only letters, digits, '-', '_' and '.' (a Kubernetes label value)";
  if (!names_detail::anyAlnum(name.front()) || !names_detail::anyAlnum(name.back()))
    return "must start and end with a letter or digit";
  return "";
}

// dir / relative, refusing (std::invalid_argument naming both) any `relative` that is empty, absolute,
// holds NUL or a "." or ".." part: whatever a name holds, the file stays under `dir`. Every writer that
// makes a file per host or domain joins through this, even for names validation already accepted.
inline std::filesystem::path joinUnder(const std::filesystem::path& dir, const std::string& relative) {
  const std::filesystem::path rel(relative);
  bool inside = !relative.empty() && relative.find('\0') == std::string::npos && rel.is_relative() &&
                !rel.has_root_name() && !rel.has_root_directory();
  for (const std::filesystem::path& part : rel) inside = inside && part != "." && part != ".." && !part.empty();
  if (!inside)
    throw std::invalid_argument("refusing to write '" + printableName(relative) + "': it would not stay under " +
                                dir.string());
  return dir / rel;
}

}  // namespace railtune::formats
