// `railtune paths synth`'s steps around the job (synth_run.h).
#include "analysis/synth/synth_run.h"

#include <filesystem>
#include <fstream>
#include <utility>

#include "analysis/synth/rail_map_source.h"
#include "analysis/synth/truth.h"
#include "common/printed.h"

namespace railtune::analysis::synth {
namespace {

namespace fs = std::filesystem;

// A job larger than the cluster is refused before anything is placed, saying how to give a larger one:
// the default cluster (2 racks, 144 GPUs) holds small jobs only.
void requireEnoughGpus(const formats::RailMap& map, int ranks) {
  size_t gpus = 0;
  for (const formats::RailMapHost& host : map.hosts) gpus += host.gpus.size();
  if (ranks <= 0 || static_cast<size_t>(ranks) <= gpus) return;
  throw SynthError(std::to_string(ranks) + " ranks need more GPUs than the rail map's " + std::to_string(gpus) + " (" +
                   std::to_string(map.hosts.size()) +
                   " hosts): place the job on a larger cluster with --fabric FILE or --rail-map FILE "
                   "(railtune's source tree has bench/data/gb300-114-racks.yaml: 114 GB300 NVL72 racks, "
                   "8,208 GPUs)");
}

std::string offenderLine(const JobPlacement& place, const Offender& o) {
  if (o.level == OffenderLevel::Rank)
    return printed("injected slow rank: rank %d on %s\n", o.index, place.hostOf(o.index).name.c_str());
  const std::string where = o.level == OffenderLevel::Tray ? place.hosts[static_cast<size_t>(o.index)].entry->name
                                                           : place.domains[static_cast<size_t>(o.index)];
  return printed("injected slow %s: %s (%zu ranks)\n", offenderLevelName(o.level), where.c_str(), o.ranks.size());
}

std::string crossRailLine(const JobPlacement& place, const CrossRailConnection& c) {
  const PlacedHost& host = place.hosts[static_cast<size_t>(place.ranks[static_cast<size_t>(c.rank)].host)];
  const HostNic& nic = host.nics[static_cast<size_t>(c.actual)];
  return printed("injected cross-rail: rank %d on %s channel %d sends through %s (rail %d), its GPU's rail is %d\n",
                 c.rank, host.entry->name.c_str(), c.channel, nic.hca.c_str(), nic.rail, place.expectedRailOf(c.rank));
}

}  // namespace

std::unique_ptr<SynthJob> planSynthJob(SynthOptions options, const std::string& fabric, const std::string& railMap,
                                       const std::vector<std::string>& late) {
  for (const std::string& text : late) options.late.push_back(parseNamedOffender(text));
  formats::RailMap map = loadRailMap(fabric, railMap);
  requireEnoughGpus(map, options.ranks);
  return makeSynthJob(options, std::move(map));
}

std::string renderSynthPlan(const SynthJob& job) {
  const JobPlacement& place = job.placement;
  std::string text = printed("job %s: %d ranks on %zu hosts in %zu racks (%s), %zu collectives, %d channels\n",
                             job.options.job.c_str(), job.ranks(), place.hosts.size(), place.domains.size(),
                             place.mnnvl ? "MNNVL: a rack is one NCCL node" : "no MNNVL: a tray is one NCCL node",
                             job.timeline.collectives().size(), job.connections.channels());
  for (const Offender& o : job.offenders.list) text += offenderLine(place, o);
  for (const CrossRailConnection& c : job.connections.crossRail()) text += crossRailLine(place, c);
  return text;
}

std::string noNetworkNote(const SynthJob& job) {
  for (int r = 0; r < job.ranks(); ++r)
    if (job.placement.hasNetPeers(r)) return "";
  return "every rank is in one NCCL node, so no connection uses the network and no path log is written (more "
         "racks, or --no-mnnvl, give some)";
}

uint64_t prepareOutDir(const std::string& dir, uint64_t needBytes) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_empty(dir, ec))
    throw SynthError("--out " + dir + " is not empty; synth writes into a new or empty folder");
  fs::create_directories(dir, ec);
  if (ec) throw SynthError("cannot create --out " + dir + ": " + ec.message());
  const fs::space_info space = fs::space(dir, ec);
  if (ec) return 0;  // unknown: the writes will say if it runs out
  if (space.available < needBytes + needBytes / 20)
    throw SynthError("--out " + dir + ": the logs need about " + gigabytesText(needBytes) + " and only " +
                     gigabytesText(space.available) + " are free there");
  return space.available;
}

void writeTruthFile(const SynthJob& job, const std::string& path) {
  std::ofstream out(path, std::ios::trunc);
  out << renderTruth(job);
  if (!out.flush()) throw SynthError("cannot write " + path);
}

std::string gigabytesText(uint64_t bytes) {
  return printed("%.1f GB", static_cast<double>(bytes) / 1e9);
}

}  // namespace railtune::analysis::synth
