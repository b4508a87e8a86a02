// The net-env writer (net_env.h): keys in the documented order, the env's variables in byte order (the order the
// reader returns them in), so that a file read and written again is the same bytes.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "formats/net_env.h"

namespace railtune::formats {
namespace {

using ordered = nlohmann::ordered_json;

ordered shapeRecord(const NetEnvShape& s) {
  ordered fabric{{"transport", s.fabric.transport}, {"link_layer", s.fabric.linkLayer}, {"nic_gbps", s.fabric.nicGbps}};
  return ordered{{"ranks", s.ranks},
                 {"nodes", s.nodes},
                 {"nvl_domains", s.nvlDomains},
                 {"ranks_per_domain", s.ranksPerDomain},
                 {"gpu", s.gpu},
                 {"fabric", std::move(fabric)}};
}

ordered evidenceRecord(const NetEnvEvidence& e) {
  return ordered{{"sizes", e.sizes},
                 {"min_gain", e.minGain},
                 {"median_gain", e.medianGain},
                 {"max_gain", e.maxGain},
                 {"runs", e.runs},
                 {"baseline_runs", e.baselineRuns},
                 {"max_spread", e.maxSpread},
                 {"worst_regression", e.worstRegression}};
}

ordered envRecord(MeasuredEnv env) {
  std::sort(env.begin(), env.end());
  ordered out = ordered::object();
  for (const auto& [name, value] : env) out[name] = value;
  return out;
}

}  // namespace

std::string writeNetEnv(const NetEnvFile& file) {
  ordered entries = ordered::array(), undecided = ordered::array();
  for (const NetEnvEntry& e : file.entries)
    entries.push_back(ordered{{"shape", shapeRecord(e.shape)},
                              {"collective", e.collective},
                              {"env", envRecord(e.env)},
                              {"evidence", evidenceRecord(e.evidence)},
                              {"description", e.description}});
  for (const NetEnvUndecided& u : file.notDecided)
    undecided.push_back(ordered{{"shape", shapeRecord(u.shape)}, {"collective", u.collective}, {"why", u.why}});
  const ordered doc{{"schema", kNetEnvSchema},
                    {"generated_by", file.generatedBy},
                    {"datasets", file.datasets},
                    {"entries", std::move(entries)},
                    {"not_decided", std::move(undecided)}};
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace railtune::formats
