// Choosing the net-env entry for a cluster (net_env_pick.h).
#include "formats/net_env_pick.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "common/byte_size.h"

namespace railtune::formats {
namespace {

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

std::string percent(double fraction) {
  const long rounded = std::lround(fraction * 100);
  return (rounded >= 0 ? "+" : "") + std::to_string(rounded) + "%";
}

// A network NCCL_IB_* settings act on: NCCL's IB transport, or railtune's net plugin (its verbs transport).
bool ibTransport(const std::string& transport) {
  return transport == "IB" || transport == "railtune";
}

std::string fabricLabel(const NetEnvFabric& f) {
  return f.transport + "/" + f.linkLayer + (f.nicGbps > 0 ? " " + std::to_string(f.nicGbps) + " Gb/s" : "");
}

bool matches(const NetEnvEntry& e, const NetEnvCluster& c) {
  const NetEnvFabric& f = e.shape.fabric;
  return gpuNameMatches(e.shape.gpu, c.gpuModel, c.grace) && ibTransport(f.transport) && f.linkLayer == c.linkLayer &&
         (f.nicGbps == 0 || c.nicGbps == 0 || f.nicGbps == c.nicGbps);
}

// Most nodes, then most ranks, then all-reduce (the collective whose bandwidth training jobs are bound by).
bool better(const NetEnvEntry& a, const NetEnvEntry& b) {
  if (a.shape.nodes != b.shape.nodes) return a.shape.nodes > b.shape.nodes;
  if (a.shape.ranks != b.shape.ranks) return a.shape.ranks > b.shape.ranks;
  return a.collective == "allreduce" && b.collective != "allreduce";
}

std::string envText(const MeasuredEnv& env) {
  std::string out;
  for (const auto& [name, value] : env) out += (out.empty() ? "" : " ") + name + "=" + value;
  return out;
}

std::string nothingApplies(const NetEnvFile& file, const NetEnvCluster& cluster, const std::string& fileName) {
  std::set<std::string> others;
  for (const NetEnvEntry& e : file.entries)
    others.insert((e.shape.gpu.empty() ? "unknown GPU" : e.shape.gpu) + ", " + fabricLabel(e.shape.fabric));
  std::string list;
  for (const std::string& o : others) list += (list.empty() ? "" : "; ") + o;
  return fileName + ": no entry is for this cluster (" + cluster.label() + ")" +
         (list.empty() ? std::string(": the file has no entries") : ": its entries are for " + list) +
         "; nothing measured applies, the QP policy's choices stand";
}

}  // namespace

std::string NetEnvCluster::label() const {
  return (gpuModel.empty() ? std::string("GPU model not stated") : gpuModel + (grace ? " (Grace)" : "")) + ", " +
         linkLayer + (nicGbps > 0 ? " " + std::to_string(nicGbps) + " Gb/s" : "");
}

bool gpuNameMatches(const std::string& deviceName, const std::string& model, bool grace) {
  if (model.empty()) return false;
  const std::string wanted = upper(model), withGrace = "G" + wanted;
  const std::string name = upper(deviceName);
  // Where a word starts, the model's words follow and end a word.
  const auto phraseAt = [&name](size_t begin, const std::string& phrase) {
    return name.compare(begin, phrase.size(), phrase) == 0 &&
           (begin + phrase.size() == name.size() || name[begin + phrase.size()] == ' ');
  };
  for (size_t begin = 0; begin < name.size();) {
    if (phraseAt(begin, wanted) || (grace && phraseAt(begin, withGrace))) return true;
    const size_t space = name.find(' ', begin);
    if (space == std::string::npos) break;
    begin = space + 1;
  }
  return false;
}

std::string measuredSource(const std::string& fileName, const NetEnvEntry& e) {
  const NetEnvEvidence& ev = e.evidence;
  const std::string sizes = ev.sizes.empty() ? std::string("no size")
                            : ev.sizes.size() == 1
                                ? byteSizeLabel(ev.sizes.front())
                                : byteSizeLabel(ev.sizes.front()) + "-" + byteSizeLabel(ev.sizes.back());
  return "measured: " + fileName + ", " + e.collective + " on " + e.shape.label() + ", " + percent(ev.medianGain) +
         " median (" + percent(ev.minGain) + " to " + percent(ev.maxGain) + ") at " + sizes + ", " +
         std::to_string(ev.runs) + (ev.runs == 1 ? " run" : " runs") + " against " + std::to_string(ev.baselineRuns);
}

NetEnvChoice chooseNetEnv(const NetEnvFile& file, const NetEnvCluster& cluster, const std::string& fileName) {
  NetEnvChoice choice;
  std::vector<const NetEnvEntry*> candidates;
  for (const NetEnvEntry& e : file.entries)
    if (e.shape.nodes >= 2 && matches(e, cluster)) candidates.push_back(&e);
  if (candidates.empty()) {
    choice.notes.push_back(nothingApplies(file, cluster, fileName));
    return choice;
  }
  const NetEnvEntry* chosen = *std::min_element(
      candidates.begin(), candidates.end(), [](const NetEnvEntry* a, const NetEnvEntry* b) { return better(*a, *b); });
  choice.entry = *chosen;
  choice.measured = measuredNetOf(choice.entry->env, measuredSource(fileName, *choice.entry));
  const NetEnvFabric& f = choice.entry->shape.fabric;
  if (f.nicGbps == 0 || cluster.nicGbps == 0)
    choice.notes.push_back(fileName + ": the NIC speed is unknown to " +
                           (f.nicGbps == 0 ? std::string("the measurement") : std::string("the fabric description")) +
                           "; the entry is taken on GPU and link layer alone");
  for (const NetEnvEntry* other : candidates)
    if (other != chosen && other->env != chosen->env)
      choice.notes.push_back(fileName + ": " + other->collective + " on " + other->shape.label() + " measured " +
                             envText(other->env) + " where " + choice.entry->collective + " on " +
                             choice.entry->shape.label() + " measured " + envText(choice.entry->env) +
                             "; network settings are per process, so the largest shape's are used");
  return choice;
}

}  // namespace railtune::formats
