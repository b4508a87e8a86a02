// NCCL's interface-list syntax (see nccl_if_list.h for the rules and why they are kept as NCCL has them).
#include "formats/nccl_if_list.h"

#include <cctype>
#include <charconv>
#include <climits>
#include <cstdint>

namespace railtune::formats {
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

// ":<value>" with to_chars, not to_string: in a translation unit of its own GCC inlines each to_string in full,
// 9 KB of the net plugin for a function only logs and tests call.
void appendField(std::string* text, int value) {
  char digits[16];
  digits[0] = ':';
  const std::to_chars_result end = std::to_chars(digits + 1, digits + sizeof(digits), value);
  text->append(digits, end.ptr);
}

}  // namespace

NcclIfList parseNcclIfList(std::string_view text, size_t maxEntries) {
  NcclIfList list;
  if (!text.empty() && text.front() == '^') list.exclude = true, text.remove_prefix(1);
  if (!text.empty() && text.front() == '=') list.exact = true, text.remove_prefix(1);
  size_t start = 0;
  while (start <= text.size() && list.entries.size() < maxEntries) {
    const size_t comma = text.find(',', start);
    const size_t end = comma == std::string_view::npos ? text.size() : comma;
    std::string_view rest = text.substr(start, end - start);
    start = end + 1;
    if (rest.empty()) continue;  // strtok skips empty entries
    bool present = false;
    const std::string_view name = nextField(&rest, &present);
    if (name.empty()) continue;
    NcclIfEntry entry;
    entry.name = std::string(name.substr(0, kMaxIfNameChars));
    entry.port = numberField(&rest);
    entry.rail = toInt16(numberField(&rest));
    entry.plane = toInt16(numberField(&rest));
    list.entries.push_back(std::move(entry));
  }
  return list;
}

bool ncclIfNameMatches(const NcclIfList& list, const NcclIfEntry& entry, std::string_view name) {
  // NCCL compares strlen(name)+1 bytes when exact (so the whole name), strlen(entry) bytes otherwise.
  return list.exact ? name == entry.name : name.starts_with(entry.name);
}

NcclIfMatch matchNcclIfList(const NcclIfList& list, std::string_view name, int port) {
  int matched = -1;
  bool found = list.entries.empty();
  for (size_t i = 0; i < list.entries.size() && !found; ++i) {
    const NcclIfEntry& entry = list.entries[i];
    const bool portMatches = port == -1 || entry.port == -1 || port == entry.port;
    if (ncclIfNameMatches(list, entry, name) && portMatches) found = true, matched = static_cast<int>(i);
  }
  NcclIfMatch result;
  result.accepted = found != list.exclude;
  result.entry = result.accepted ? matched : -1;
  return result;
}

std::string describeNcclIfList(const NcclIfList& list) {
  std::string text = std::string(list.exclude ? "^" : "") + (list.exact ? "=" : "");
  for (size_t i = 0; i < list.entries.size(); ++i) {
    const NcclIfEntry& entry = list.entries[i];
    if (i > 0) text += ',';
    text += entry.name;
    for (const int field : {entry.port, entry.rail, entry.plane}) appendField(&text, field);
  }
  return text;
}

}  // namespace railtune::formats
