#include "topo_gen/slurm_hostlist.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace railtune::topo {
namespace {

struct Split {
  std::string prefix;
  std::string digits;  // trailing digits, "" when the name does not end in one
};

Split splitTrailingDigits(const std::string& name) {
  size_t start = name.size();
  while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9') --start;
  // Long digit runs would overflow the range arithmetic; Slurm treats such names as plain names too.
  if (name.size() - start > 9) start = name.size();
  return {name.substr(0, start), name.substr(start)};
}

struct Group {
  std::string prefix;
  size_t width = 0;
  std::vector<long> numbers;  // in order of appearance
  std::string plain;          // a name without trailing digits (then numbers is empty)
};

std::string padded(long value, size_t width) {
  char text[32];
  std::snprintf(text, sizeof text, "%0*ld", static_cast<int>(width), value);
  return text;
}

std::string renderGroup(const Group& group) {
  if (!group.plain.empty()) return group.plain;
  if (group.numbers.size() == 1) return group.prefix + padded(group.numbers[0], group.width);
  std::string ranges;
  for (size_t i = 0; i < group.numbers.size();) {
    size_t j = i;
    while (j + 1 < group.numbers.size() && group.numbers[j + 1] == group.numbers[j] + 1) ++j;
    if (!ranges.empty()) ranges += ',';
    ranges += padded(group.numbers[i], group.width);
    if (j > i) ranges += '-' + padded(group.numbers[j], group.width);
    i = j + 1;
  }
  return group.prefix + "[" + ranges + "]";
}

void expandRange(const std::string& prefix, const std::string& range, const std::string& suffix,
                 std::vector<std::string>& out) {
  const size_t dash = range.find('-');
  const std::string first = range.substr(0, dash);
  const std::string last = dash == std::string::npos ? first : range.substr(dash + 1);
  const bool digitsOnly = first.find_first_not_of("0123456789") == std::string::npos &&
                          last.find_first_not_of("0123456789") == std::string::npos;
  if (first.empty() || last.empty() || !digitsOnly || first.size() > 9 || last.size() > 9)
    throw std::invalid_argument("hostlist range '" + range + "' is not N or N-M");
  const long from = std::stol(first);
  const long to = std::stol(last);
  if (to < from) throw std::invalid_argument("hostlist range '" + range + "' runs backwards");
  for (long n = from; n <= to; ++n) out.push_back(prefix + padded(n, first.size()) + suffix);
}

}  // namespace

std::string compressHostlist(const std::vector<std::string>& hosts) {
  std::vector<Group> groups;
  for (const std::string& host : hosts) {
    const Split split = splitTrailingDigits(host);
    if (split.digits.empty()) {
      groups.push_back({"", 0, {}, host});
      continue;
    }
    Group* match = nullptr;
    for (Group& group : groups)
      if (group.plain.empty() && group.prefix == split.prefix && group.width == split.digits.size()) match = &group;
    if (match == nullptr) match = &groups.emplace_back(Group{split.prefix, split.digits.size(), {}, ""});
    match->numbers.push_back(std::stol(split.digits));
  }
  std::string expression;
  for (const Group& group : groups) {
    if (!expression.empty()) expression += ',';
    expression += renderGroup(group);
  }
  return expression;
}

std::vector<std::string> expandHostlist(const std::string& expression) {
  std::vector<std::string> hosts;
  size_t pos = 0;
  while (pos < expression.size()) {
    const size_t open = expression.find('[', pos);
    const size_t comma = expression.find(',', pos);
    if (open == std::string::npos || (comma != std::string::npos && comma < open)) {
      const size_t end = comma == std::string::npos ? expression.size() : comma;
      if (end > pos) hosts.push_back(expression.substr(pos, end - pos));
      pos = end + 1;
      continue;
    }
    const size_t close = expression.find(']', open);
    if (close == std::string::npos) throw std::invalid_argument("hostlist '" + expression + "': '[' without ']'");
    const size_t end = std::min(expression.find(',', close), expression.size());
    const std::string prefix = expression.substr(pos, open - pos);
    const std::string suffix = expression.substr(close + 1, end - close - 1);
    const std::string inside = expression.substr(open + 1, close - open - 1);
    for (size_t start = 0; start <= inside.size();) {
      const size_t next = std::min(inside.find(',', start), inside.size());
      expandRange(prefix, inside.substr(start, next - start), suffix, hosts);
      start = next + 1;
    }
    pos = end + 1;
  }
  return hosts;
}

}  // namespace railtune::topo
