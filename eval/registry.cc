// The list of suites (registry.h): one line per analysis; each suite's folder holds its generators and
// its scorer.
#include "eval/registry.h"

#include "eval/fit/fit_suite.h"
#include "eval/hangs/hangs_suite.h"
#include "eval/import/import_suite.h"
#include "eval/paths/paths_suite.h"
#include "eval/stragglers/stragglers_suite.h"

namespace railtune::eval {

std::vector<std::unique_ptr<Suite>> allSuites() {
  std::vector<std::unique_ptr<Suite>> suites;
  suites.push_back(makeHangsSuite());
  suites.push_back(makeStragglersSuite());
  suites.push_back(makePathsSuite());
  suites.push_back(makeImportSuite());
  suites.push_back(makeFitSuite());
  return suites;
}

}  // namespace railtune::eval
