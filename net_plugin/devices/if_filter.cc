// NCCL's interface-list syntax (see if_filter.h for the rules and why they are kept as NCCL has them).
#include "net_plugin/devices/if_filter.h"

#include <cctype>
#include <climits>
#include <cstdint>

namespace railtune::net {
namespace {

// atoi without its undefined overflow: leading blanks, a sign, digits up to the first non-digit;
// values beyond int are clamped.
int atoiLike(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  int64_t value = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    value = value * 10 + (text[i] - '0');
    if (value > int64_t{INT_MAX} + 1) value = int64_t{INT_MAX} + 1;
  }
  if (negative) value = -value;
  if (value > INT_MAX) value = INT_MAX;
  return static_cast<int>(value);
}

// NCCL stores rail and plane as int16_t.
int toInt16(int value) {
  return static_cast<int16_t>(value);
}

// strsep-style: the text up to the next ':' (all of it when there is none), and the rest.
std::string_view nextField(std::string_view* rest, bool* present) {
  *present = rest->data() != nullptr;
  if (!*present) return {};
  const size_t colon = rest->find(':');
  const std::string_view field = rest->substr(0, colon);
  *rest = colon == std::string_view::npos ? std::string_view{} : rest->substr(colon + 1);
  return field;
}

int numberField(std::string_view* rest) {
  bool present = false;
  const std::string_view field = nextField(rest, &present);
  return present && !field.empty() ? atoiLike(field) : -1;
}

}  // namespace

IfFilter parseIfFilter(std::string_view text, size_t maxEntries) {
  IfFilter filter;
  if (!text.empty() && text.front() == '^') filter.exclude = true, text.remove_prefix(1);
  if (!text.empty() && text.front() == '=') filter.exact = true, text.remove_prefix(1);
  size_t start = 0;
  while (start <= text.size() && filter.entries.size() < maxEntries) {
    const size_t comma = text.find(',', start);
    const size_t end = comma == std::string_view::npos ? text.size() : comma;
    std::string_view rest = text.substr(start, end - start);
    start = end + 1;
    if (rest.empty()) continue;  // strtok skips empty entries
    bool present = false;
    const std::string_view name = nextField(&rest, &present);
    if (name.empty()) continue;
    IfFilterEntry entry;
    entry.name = std::string(name.substr(0, kMaxIfNameChars));
    entry.port = numberField(&rest);
    entry.rail = toInt16(numberField(&rest));
    entry.plane = toInt16(numberField(&rest));
    filter.entries.push_back(std::move(entry));
  }
  return filter;
}

IfMatch matchIfFilter(const IfFilter& filter, std::string_view name, int port) {
  int matched = -1;
  bool found = filter.entries.empty();
  for (size_t i = 0; i < filter.entries.size() && !found; ++i) {
    const IfFilterEntry& entry = filter.entries[i];
    // NCCL compares strlen(name)+1 bytes when exact (so the whole name), strlen(entry) bytes otherwise.
    const bool nameMatches = filter.exact ? name == entry.name : name.starts_with(entry.name);
    const bool portMatches = port == -1 || entry.port == -1 || port == entry.port;
    if (nameMatches && portMatches) found = true, matched = static_cast<int>(i);
  }
  IfMatch result;
  result.accepted = found != filter.exclude;
  result.entry = result.accepted ? matched : -1;
  return result;
}

std::string describeIfFilter(const IfFilter& filter) {
  std::string text = std::string(filter.exclude ? "^" : "") + (filter.exact ? "=" : "");
  for (size_t i = 0; i < filter.entries.size(); ++i) {
    const IfFilterEntry& entry = filter.entries[i];
    if (i > 0) text += ',';
    text += entry.name + ':' + std::to_string(entry.port) + ':' + std::to_string(entry.rail) + ':' +
            std::to_string(entry.plane);
  }
  return text;
}

}  // namespace railtune::net
