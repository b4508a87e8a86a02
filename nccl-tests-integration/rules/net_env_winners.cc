// The network settings that won a sweep's environment matrix (net_env_winners.h).
#include "nccl-tests-integration/rules/net_env_winners.h"

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <utility>

#include "formats/measured_env.h"
#include "nccl-tests-integration/rules/derive.h"
#include "nccl-tests-integration/rules/net_env_baseline.h"

namespace railtune::sweep {
namespace {

using Settings = std::map<NetEnv, const SizeTable*>;  // the tables of one collective and shape, per setting

// One size measured, on NCCL's own choice, under both the setting and the baseline.
struct SizeJudgement {
  uint64_t size = 0;
  double gain = 0, threshold = 0;
  ChoiceStats setting, baseline;
};

// A setting against the baseline.
struct Judged {
  NetEnv setting;
  bool qualifies = false;
  std::string why;  // for the terminal: the verdict with its figures
  formats::NetEnvEvidence evidence;
  std::string barName;  // "--min-gain", "spread", "one-run noise"
  double bar = 0;
};

std::string netEnvPercent(double fraction) {
  return fixedText(fraction * 100, 1) + " %";
}

std::string runsAgainst(int runs, int baselineRuns) {
  return std::to_string(runs) + (runs == 1 ? " run" : " runs") + " against " + std::to_string(baselineRuns);
}

// NCCL's own choice at a size: the samples of the runs that forced nothing, when there are any.
const Samples* ncclChoice(const SizeTable& table, uint64_t size) {
  const auto at = table.find(size);
  if (at == table.end()) return nullptr;
  const auto def = at->second.find(Choice{});
  return def == at->second.end() || def->second.busbw.empty() ? nullptr : &def->second;
}

// The algorithm rules' bar (derive.h): --min-gain, the spread of either, the one-run noise when either has one run.
double netEnvThreshold(double minGain, const ChoiceStats& a, const ChoiceStats& b) {
  const bool oneRun = a.runs < 2 || b.runs < 2;
  return std::max({minGain, a.spread, b.spread, oneRun ? kOneRunNoise : 0.0});
}

std::vector<SizeJudgement> judgedSizesOf(const SizeTable& setting, const SizeTable& baseline, double minGain) {
  std::vector<SizeJudgement> out;
  for (const auto& entry : setting) {
    const Samples* s = ncclChoice(setting, entry.first);
    const Samples* b = ncclChoice(baseline, entry.first);
    if (s == nullptr || b == nullptr) continue;
    SizeJudgement j{entry.first, 0, 0, statsOf(*s), statsOf(*b)};
    if (j.baseline.median <= 0) continue;
    j.gain = j.setting.median / j.baseline.median - 1;
    j.threshold = netEnvThreshold(minGain, j.setting, j.baseline);
    out.push_back(j);
  }
  return out;
}

double medianGainOf(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// The evidence at the judged sizes (>= kNetEnvJudgedFromBytes), the bar the median gain must clear and its name.
void setEvidence(const std::vector<SizeJudgement>& judged, double minGain, Judged& out) {
  formats::NetEnvEvidence& ev = out.evidence;
  std::vector<double> gains;
  ev.runs = judged.front().setting.runs;
  ev.baselineRuns = judged.front().baseline.runs;
  for (const SizeJudgement& j : judged) {
    ev.sizes.push_back(j.size);
    gains.push_back(j.gain);
    ev.runs = std::min(ev.runs, j.setting.runs);
    ev.baselineRuns = std::min(ev.baselineRuns, j.baseline.runs);
    ev.maxSpread = std::max({ev.maxSpread, j.setting.spread, j.baseline.spread});
  }
  ev.minGain = *std::min_element(gains.begin(), gains.end());
  ev.maxGain = *std::max_element(gains.begin(), gains.end());
  ev.medianGain = medianGainOf(gains);
  const double noise = ev.runs < 2 || ev.baselineRuns < 2 ? kOneRunNoise : 0.0;
  out.bar = std::max({minGain, ev.maxSpread, noise});
  out.barName = out.bar <= minGain ? "--min-gain" : ev.maxSpread >= noise ? "spread" : "one-run noise";
}

// The figures of a verdict: "+70.0 % median (+69.1 % to +71.0 %)" and "6 sizes, 512 MiB to 16 GiB".
std::string gainsText(const formats::NetEnvEvidence& ev) {
  return signedPercent(ev.medianGain) + " median (" + signedPercent(ev.minGain) + " to " + signedPercent(ev.maxGain) +
         ")";
}
std::string judgedSizesText(const formats::NetEnvEvidence& ev) {
  const size_t n = ev.sizes.size();
  return std::to_string(n) + (n == 1 ? " size, " : " sizes, ") + sizeText(ev.sizes.front()) +
         (n == 1 ? "" : " to " + sizeText(ev.sizes.back()));
}

Judged judge(const NetEnv& setting, const SizeTable& table, const SizeTable& baseline, double minGain) {
  Judged out;
  out.setting = setting;
  const std::string name = netEnvLabel(setting);
  const std::vector<SizeJudgement> sizes = judgedSizesOf(table, baseline, minGain);
  std::optional<SizeJudgement> veto;
  std::vector<SizeJudgement> judged;
  for (const SizeJudgement& j : sizes) {
    out.evidence.worstRegression = std::max(out.evidence.worstRegression, -j.gain);
    if (j.gain < -j.threshold && (!veto || j.gain < veto->gain)) veto = j;
    if (j.size >= kNetEnvJudgedFromBytes) judged.push_back(j);
  }
  if (judged.empty()) {
    out.why = name + ": no size of at least " + sizeText(kNetEnvJudgedFromBytes) +
              " measured with NCCL's own choice under both it and the baseline";
    return out;
  }
  setEvidence(judged, minGain, out);
  const formats::NetEnvEvidence& ev = out.evidence;
  out.why = name + ": " + gainsText(ev) + " at " + judgedSizesText(ev) + ", " + runsAgainst(ev.runs, ev.baselineRuns);
  if (veto) {
    out.why += "; vetoed: " + signedPercent(veto->gain) + " at " + sizeText(veto->size) + ", a fall beyond the noise " +
               netEnvPercent(veto->threshold) + " (network settings are per process, every size gets them)";
    return out;
  }
  out.qualifies = ev.medianGain > out.bar;
  out.why += (out.qualifies ? "; > " : "; <= ") + out.barName + " " + netEnvPercent(out.bar);
  return out;
}

formats::NetEnvShape netEnvShapeOf(const Shape& s) {
  formats::NetEnvShape out{s.ranks, s.nodes, s.nvlDomains, s.ranksPerDomain, s.gpu, {}};
  out.fabric.transport = s.fabric.transport.empty() ? "unknown" : s.fabric.transport;
  const std::string& ll = s.fabric.linkLayer;
  out.fabric.linkLayer = ll == "IB" || ll == "RoCE" ? ll : "unknown";
  out.fabric.nicGbps = std::max(0, s.fabric.nicGbps);
  return out;
}

// The winner's env as NCCL reads it, or why it cannot be written (measured_env.h's checks).
std::string envOf(const NetEnv& setting, formats::MeasuredEnv& env) {
  for (const auto& [name, value] : setting) {
    const std::string v = netEnvValueAsNcclReads(name, value);
    std::string problem = formats::measuredNameProblem(name);
    if (problem.empty()) problem = formats::measuredValueProblem(name, v);
    if (!problem.empty()) return name + "=" + value + ": " + problem;
    env.emplace_back(name, v);
  }
  return "";
}

std::string descriptionOf(const Judged& w, const std::string& baseline) {
  const formats::NetEnvEvidence& ev = w.evidence;
  return netEnvLabel(w.setting) + ": busbw " + gainsText(ev) + " over " + baseline + " at " + judgedSizesText(ev) +
         ", NCCL's own algorithm choice under both; " + runsAgainst(ev.runs, ev.baselineRuns) + ", bar " + w.barName +
         " " + netEnvPercent(w.bar) + "; worst fall at any size measured: " +
         (ev.worstRegression > 0 ? "-" + netEnvPercent(ev.worstRegression) : std::string("none"));
}

// The baseline of one collective and shape: the rows under no setting, else NCCL's defaults' setting.
std::optional<NetEnv> baselineOf(const Settings& settings, const std::string& linkLayer) {
  if (settings.contains(NetEnv{})) return NetEnv{};
  for (const auto& entry : settings)
    if (isNcclDefaultSetting(entry.first, linkLayer)) return entry.first;
  return std::nullopt;
}

struct SettingsGroup {
  std::string collective;
  Shape shape;
  Settings settings;
};

// Decides one collective and shape: an entry, or a not_decided with why; the verdict for the terminal.
void decideGroup(const SettingsGroup& g, const NetEnvOptions& options, NetEnvWinners& out) {
  NetEnvVerdict verdict{g.collective, g.shape.label(), "", {}};
  const formats::NetEnvShape shape = netEnvShapeOf(g.shape);
  const auto undecided = [&](const std::string& why) {
    verdict.outcome = "not decided: " + why;
    if (shape.nodes >= 1 && shape.nvlDomains >= 1) out.file.notDecided.push_back({shape, g.collective, why});
    out.verdicts.push_back(std::move(verdict));
  };
  if (g.shape.nodes == 1)
    return undecided(
        "not network-bound: one node (NCCL's nNodes 1), where NCCL opens no network connection, so no "
        "network setting is judged here");
  if (g.shape.nodes < 1 || g.shape.nvlDomains < 1)  // the file's shapes need both; the dataset may not know them
    return undecided("the number of nodes or NVLink domains is unknown, so whether the network was used is too");
  const std::optional<NetEnv> baseline = baselineOf(g.settings, g.shape.fabric.linkLayer);
  if (!baseline) {
    std::string measured;
    for (const auto& entry : g.settings) measured += (measured.empty() ? "" : "; ") + netEnvLabel(entry.first);
    return undecided(
        "no baseline: neither rows measured under no setting nor a setting whose every variable holds "
        "NCCL's default on " +
        shape.fabric.linkLayer + " link layer (docs/sweep.md); measured: " + measured);
  }
  const std::string baselineName =
      baseline->empty() ? "no setting" : "NCCL's defaults (" + netEnvLabel(*baseline) + ")";
  verdict.settings.push_back("baseline: " + baselineName);
  std::optional<Judged> best;
  for (const auto& [setting, table] : g.settings) {
    if (setting == *baseline) continue;
    if (isNcclDefaultSetting(setting, g.shape.fabric.linkLayer)) {
      verdict.settings.push_back(netEnvLabel(setting) + ": NCCL's defaults, not a candidate");
      continue;
    }
    Judged j = judge(setting, *table, *g.settings.at(*baseline), options.minGain);
    verdict.settings.push_back(j.why);
    if (j.qualifies && (!best || j.evidence.medianGain > best->evidence.medianGain)) best = std::move(j);
  }
  if (!best) return undecided("no setting cleared the bar against " + baselineName);
  for (const formats::NetEnvEntry& e : out.file.entries)
    if (e.shape == shape && e.collective == g.collective)
      return undecided("a shape counted the same (other host counts) already won: its setting stands");
  formats::NetEnvEntry entry{shape, g.collective, {}, best->evidence, descriptionOf(*best, baselineName)};
  if (const std::string problem = envOf(best->setting, entry.env); !problem.empty())
    return undecided("the winner cannot be written: " + problem);
  verdict.outcome = "won: " + entry.description;
  out.file.entries.push_back(std::move(entry));
  out.verdicts.push_back(std::move(verdict));
}

}  // namespace

NetEnvWinners deriveNetEnvWinners(const Aggregate& aggregate, const NetEnvOptions& options) {
  std::map<std::pair<std::string, Shape>, Settings> groups;
  bool anySetting = false;
  for (const auto& [key, table] : aggregate.groups) {
    groups[{key.collective, key.shape}][key.netEnv] = &table;
    anySetting = anySetting || !key.netEnv.empty();
  }
  if (!anySetting)
    throw std::runtime_error(
        "--net-env: no row of the datasets was measured under a `sweep run --env` setting, so "
        "there is nothing to compare (docs/sweep.md, \"Environment matrices\")");
  NetEnvWinners out;
  out.file.generatedBy = options.generatedBy;
  out.file.datasets = options.datasets;
  for (const auto& [key, settings] : groups) {
    if (settings.size() == 1 && settings.begin()->first.empty()) continue;  // no setting measured on this shape
    decideGroup(SettingsGroup{key.first, key.second, settings}, options, out);
  }
  return out;
}

std::string netEnvReport(const NetEnvWinners& winners) {
  std::string out;
  for (const NetEnvVerdict& v : winners.verdicts) {
    out += v.collective + ", " + v.shape + ": " + v.outcome + "\n";
    for (const std::string& line : v.settings) out += "  " + line + "\n";
  }
  return out;
}

}  // namespace railtune::sweep
