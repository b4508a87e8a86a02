// Shared steps of the `railtune profile` subcommands (command_support.h).
#include "cli/profile/command_support.h"

#include <algorithm>
#include <ostream>
#include <stdexcept>

namespace railtune::cli {

void reportProblems(const analysis::profile::ProfileLogs& logs, std::ostream& err) {
  for (const std::string& note : logs.inputNotes) err << "warning: " << note << "\n";
  if (logs.unreadableFiles > 0)
    err << logs.unreadableFiles << " file" << (logs.unreadableFiles == 1 ? "" : "s")
        << " could not be read; the rest was analysed\n";
  for (const std::string& problem : logs.problems.first) err << problem << "\n";
  if (logs.problems.count > 0)
    err << logs.problems.count << " bad line" << (logs.problems.count == 1 ? "" : "s") << " skipped"
        << (logs.problems.count > logs.problems.first.size()
                ? " (the first " + std::to_string(logs.problems.first.size()) + " shown)"
                : "")
        << "; the rest was analysed\n";
  if (logs.skippedFiles > 0)
    err << logs.skippedFiles << " file" << (logs.skippedFiles == 1 ? "" : "s")
        << " passed over: not a railtune profiler log\n";
}

namespace {

// An error message when --job names a job the logs do not hold ("" otherwise).
std::string missingJob(const analysis::profile::ProfileLogs& logs, const std::optional<std::string>& job) {
  if (!job || std::find(logs.jobs.begin(), logs.jobs.end(), *job) != logs.jobs.end()) return "";
  std::vector<std::string> jobs = logs.jobs;
  std::sort(jobs.begin(), jobs.end());
  std::string names;
  for (const std::string& j : jobs) names += (names.empty() ? "" : ", ") + j;
  return "no records of job " + *job + (names.empty() ? std::string() : "; the logs hold job(s) " + names);
}

}  // namespace

analysis::profile::ProfileLogs readLogsToAnalyse(const analysis::profile::ReadOptions& read,
                                                 const std::optional<std::string>& job, bool hangRecordsCount,
                                                 std::ostream& err) {
  analysis::profile::ProfileLogs logs = analysis::profile::readProfileLogs(read);
  reportProblems(logs, err);
  if (const std::string missing = missingJob(logs, job); !missing.empty()) throw std::runtime_error(missing);
  if (logs.samples.empty() && (!hangRecordsCount || logs.hangs.empty()))
    throw std::runtime_error("no readable collective records in " + read.folders.front() +
                             (read.folders.size() > 1 ? " and the other folders" : "") + " (" +
                             std::to_string(logs.collectiveFiles) + " collective logs found)");
  return logs;
}

}  // namespace railtune::cli
