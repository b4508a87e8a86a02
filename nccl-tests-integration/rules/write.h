// Derived rules written for the tuner: railtune's rules JSON (railtune.tuner-rules/1, each rule with its
// evidence in "description" and "evidence", which the tuner reads past) or the CSV of NCCL's example tuner
// (evidence in a comment line above each rule; it cannot say NVLink domains or chunk sizes, so rules that
// need them are written as comments), and the coverage report.
#pragma once

#include <string>
#include <vector>

#include "nccl-tests-integration/rules/derive.h"

namespace railtune::sweep {

struct RulesProvenance {
  std::vector<std::string> datasets;  // the inputs, as given
  double minGain = 0.05;
  NetEnv netEnv;  // the `sweep run --env` setting whose rows made the rules (--net-env-rows); empty: none
};
// "the rows measured under no `sweep run --env` setting", "the rows measured under NCCL_IB_QPS_PER_CONNECTION=4":
// which rows made the rules, as the file's description and `sweep rules`' summary say it.
std::string rowsOfSetting(const NetEnv& setting);

std::string rulesJson(const DerivedRules& rules, const RulesProvenance& provenance);
std::string rulesNcclCsv(const DerivedRules& rules, const RulesProvenance& provenance);
// The rules file `sweep rules` writes: its text in a format ("railtune-json" or "nccl-csv"; "" = from the output's
// name, NCCL's CSV for a .csv), read back through the tuner's rules reader (rules_choice.h) so that a file the
// tuner would refuse is never written: std::runtime_error with the reader's errors then.
struct RulesFile {
  std::string text;
  size_t rules = 0;  // what the reader found in it
};
RulesFile rulesFile(const DerivedRules& rules, const RulesProvenance& provenance, const std::string& format,
                    const std::string& output);
// One line per size decision and per coverage note, for the terminal.
std::string rulesReport(const DerivedRules& rules);

}  // namespace railtune::sweep
