// The WARNs the plugins (net, profiler) logged in an emulated job, as `railtune emu net-job` and
// `railtune demo` show them on stderr: every WARN of every rank that reported, once each. A line that
// several ranks logged alike is printed once with the ranks it came from ("WARN (ranks 0-7): ..."); two
// lines are alike when they are equal once each rank's own process id is written as <pid> and its
// record files' "<pid>.<start tag>" as "<pid>.<tag>" (common/record_files.h: the plugins' file names
// carry both, so the same failure of eight ranks would read as eight different lines).
#pragma once

#include <string>
#include <vector>

namespace railtune::emu::netjob {

// One WARN line one rank's plugins logged (emulator/logger.h: "WARN file:line text").
struct PluginWarning {
  int rank = -1;
  int pid = 0;           // the rank's process
  std::string startTag;  // its processStartTag()
  std::string line;
};

struct WarningGroup {
  std::string text;        // the line without its "WARN " level; marked (<pid>, <tag>) when several ranks share it
  std::vector<int> ranks;  // ascending, each once
  int lines = 0;           // how many lines the group stands for (a rank may log the same line twice)
};

// Groups alike lines, in the order of their first appearance.
std::vector<WarningGroup> groupPluginWarnings(const std::vector<PluginWarning>& warnings);

// "rank 3", "ranks 0-7", "ranks 0-2,5,9-11".
std::string rankListText(const std::vector<int>& ranks);

// One line per group, "WARN (ranks 0-7): <text>\n"; "" when there is none.
std::string formatPluginWarnings(const std::vector<PluginWarning>& warnings);

// The report's summary line: "plugin WARNs: none\n", or "plugin WARNs: 8 from 8 rank(s), 1 distinct
// (printed on stderr)\n".
std::string pluginWarningSummary(const std::vector<PluginWarning>& warnings);

}  // namespace railtune::emu::netjob
