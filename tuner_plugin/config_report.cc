#include "tuner_plugin/config_report.h"

#include <mutex>
#include <set>

namespace railtune::tuner {
namespace {

std::mutex gReportedMutex;
std::set<std::string> gReportedProblems;  // guarded by gReportedMutex

}  // namespace

bool firstReportOf(const std::string& problem) {
  std::lock_guard<std::mutex> lock(gReportedMutex);
  if (gReportedProblems.count(problem) != 0) return false;
  if (gReportedProblems.size() >= kMaxRememberedConfigProblems) return true;  // rather a WARN too many than none
  gReportedProblems.insert(problem);
  return true;
}

void forgetReportedConfigProblems() {
  std::lock_guard<std::mutex> lock(gReportedMutex);
  gReportedProblems.clear();
}

}  // namespace railtune::tuner
