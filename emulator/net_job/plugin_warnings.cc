#include "emulator/net_job/plugin_warnings.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace railtune::emu::netjob {
namespace {

bool isWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

// `line` with each occurrence of `token` that is not part of a longer word (letters and digits)
// written as `mark`.
std::string marked(const std::string& line, const std::string& token, const std::string& mark) {
  if (token.empty()) return line;
  std::string out;
  size_t from = 0;
  for (size_t at = line.find(token); at != std::string::npos; at = line.find(token, at + 1)) {
    const size_t end = at + token.size();
    const bool alone = (at == 0 || !isWordChar(line[at - 1])) && (end == line.size() || !isWordChar(line[end]));
    if (!alone || at < from) continue;
    out += line.substr(from, at - from) + mark;
    from = end;
  }
  return out + line.substr(from);
}

// The line as several ranks would log it alike: the rank's record-file "<pid>.<tag>", then its pid.
std::string withRankMarked(const PluginWarning& w) {
  if (w.pid <= 0) return w.line;
  const std::string pid = std::to_string(w.pid);
  const std::string line = w.startTag.empty() ? w.line : marked(w.line, pid + "." + w.startTag, "<pid>.<tag>");
  return marked(line, pid, "<pid>");
}

std::string withoutLevel(const std::string& line) {
  return line.rfind("WARN ", 0) == 0 ? line.substr(5) : line;
}

}  // namespace

std::vector<WarningGroup> groupPluginWarnings(const std::vector<PluginWarning>& warnings) {
  struct Building {
    std::string alike;
    std::set<int> ranks;
    std::string firstLine;  // shown as is when one rank alone logged it
    int lines = 0;
  };
  std::vector<Building> building;
  for (const PluginWarning& w : warnings) {
    const std::string alike = withRankMarked(w);
    auto it = std::find_if(building.begin(), building.end(), [&](const Building& b) { return b.alike == alike; });
    if (it == building.end()) {
      building.push_back({alike, {}, w.line, 0});
      it = building.end() - 1;
    }
    it->ranks.insert(w.rank);
    ++it->lines;
  }
  std::vector<WarningGroup> groups;
  for (const Building& b : building)
    groups.push_back(
        {withoutLevel(b.ranks.size() == 1 ? b.firstLine : b.alike), {b.ranks.begin(), b.ranks.end()}, b.lines});
  return groups;
}

std::string rankListText(const std::vector<int>& ranks) {
  std::string out;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(ranks[i]) + (j > i ? "-" + std::to_string(ranks[j]) : "");
    i = j + 1;
  }
  return (ranks.size() == 1 ? "rank " : "ranks ") + out;
}

std::string formatPluginWarnings(const std::vector<PluginWarning>& warnings) {
  std::string out;
  for (const WarningGroup& g : groupPluginWarnings(warnings))
    out += "WARN (" + rankListText(g.ranks) + "): " + g.text + "\n";
  return out;
}

std::string pluginWarningSummary(const std::vector<PluginWarning>& warnings) {
  if (warnings.empty()) return "plugin WARNs: none\n";
  std::set<int> ranks;
  for (const PluginWarning& w : warnings) ranks.insert(w.rank);
  return "plugin WARNs: " + std::to_string(warnings.size()) + " from " + std::to_string(ranks.size()) + " rank(s), " +
         std::to_string(groupPluginWarnings(warnings).size()) + " distinct (printed on stderr)\n";
}

}  // namespace railtune::emu::netjob
