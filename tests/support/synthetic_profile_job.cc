// The synthetic job (synthetic_job.h). Every rank's arrival and the collective's common end are drawn
// from one generator per collective, so each rank's file can be written on its own thread and still
// agree with the others.
#include "tests/support/synthetic_profile_job.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "formats/profile_logs.h"
#include "formats/schemas.h"

namespace railtune::testing::synthetic_profile {
namespace {

constexpr int64_t kEpochNs = 1764480000000000000LL;
constexpr int64_t kPeriodNs = 10'000'000;  // one collective every 10 ms

int64_t ns(double us) {
  return static_cast<int64_t>(us * 1000.0);
}

// splitmix64 of (seed, a, b): a uniform number in [0, 1) that any thread can recompute.
double uniform(uint64_t seed, uint64_t a, uint64_t b) {
  uint64_t z = seed * 0x9e3779b97f4a7c15ULL + (a << 32 ^ b) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

bool hits(const Injected& inj, const JobSpec& spec, int rank, int seq) {
  const int tray = rank / spec.ranksPerTray, rack = tray / spec.traysPerRack;
  const int target = inj.level == Injected::Level::Rank ? rank : inj.level == Injected::Level::Tray ? tray : rack;
  if (target != inj.index) return false;
  const int every = inj.share >= 1.0 ? 1 : static_cast<int>(1.0 / inj.share + 0.5);
  return seq % every == 0;
}

double arrivalUs(const JobSpec& spec, int rank, int seq) {
  double delay = spec.jitterUs * uniform(spec.seed, static_cast<uint64_t>(seq), static_cast<uint64_t>(rank) + 1);
  for (const Injected& inj : spec.injected)
    if (hits(inj, spec, rank, seq)) delay += inj.delayUs;
  return delay;
}

}  // namespace

double clockOffsetUs(const JobSpec& spec, int tray) {
  return spec.clockSpreadUs * (2.0 * uniform(spec.seed, 0, 1u << 30 | static_cast<uint64_t>(tray)) - 1.0);
}

std::vector<double> collectiveEndsUs(const JobSpec& spec) {
  std::vector<double> ends(static_cast<size_t>(spec.collectives), 0.0);
  for (int seq = 0; seq < spec.collectives; ++seq) {
    for (int r = 0; r < spec.ranks; ++r)
      ends[static_cast<size_t>(seq)] = std::max(ends[static_cast<size_t>(seq)], arrivalUs(spec, r, seq));
    ends[static_cast<size_t>(seq)] += spec.transferUs;
  }
  return ends;
}

std::string rackName(int rack) {
  char text[16];
  std::snprintf(text, sizeof text, "r%03d", rack);
  return text;
}

std::string hostName(const JobSpec& spec, int rank) {
  const int tray = rank / spec.ranksPerTray;
  char text[32];
  std::snprintf(text, sizeof text, "%s-t%02d", rackName(tray / spec.traysPerRack).c_str(), tray % spec.traysPerRack);
  return text;
}

std::vector<std::string> rankLines(const JobSpec& spec, int rank, const std::vector<double>& endsUs) {
  const Identity id{hostName(spec, rank), spec.job, 1000 + rank};
  const int tray = rank / spec.ranksPerTray;
  const int64_t clockNs = ns(clockOffsetUs(spec, tray));
  const int64_t monotonicBase = 1'000'000'000LL * (1 + tray);
  auto record = std::make_unique<formats::profile::OperationRecord>();
  formats::profile::OperationRecord& r = *record;
  r.comm = spec.comm, r.rank = rank, r.nRanks = spec.ranks;
  r.operation.assign("AllReduce"), r.datatype.assign("ncclFloat32"), r.algorithm.assign("RING");
  r.protocol.assign("SIMPLE"), r.channels = 16, r.bytes = 64u << 20, r.timing = formats::profile::TimingSource::Kernel;
  std::vector<std::string> lines;
  for (int seq = 0; seq < spec.collectives; ++seq) {
    const int64_t base = seq * kPeriodNs;
    const int64_t start = base + ns(arrivalUs(spec, rank, seq)), end = base + ns(endsUs[static_cast<size_t>(seq)]);
    r.seq = static_cast<uint64_t>(seq);
    r.start = {kEpochNs + start + clockNs, monotonicBase + start};
    r.end = {kEpochNs + end + clockNs, monotonicBase + end};
    lines.push_back(formats::profile::renderCollectiveLine(id, r, 0));
  }
  return lines;
}

void writeJob(const JobSpec& spec, const std::string& dir, unsigned threads) {
  const std::vector<double> ends = collectiveEndsUs(spec);
  std::atomic<int> next{0};
  auto work = [&]() {
    for (int rank = next++; rank < spec.ranks; rank = next++) {
      if (std::find(spec.silentRanks.begin(), spec.silentRanks.end(), rank) != spec.silentRanks.end()) continue;
      const std::string path =
          dir + "/" + spec.job + "-" + hostName(spec, rank) + "-" + std::to_string(1000 + rank) + ".collectives.jsonl";
      std::ofstream out(path, std::ios::binary);
      for (const std::string& line : rankLines(spec, rank, ends)) out << line << '\n';
      if (!out) throw std::runtime_error(path + ": cannot write");
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::max(1u, threads); ++t) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
}

std::string railMapJson(const JobSpec& spec) {
  nlohmann::json hosts = nlohmann::json::array();
  const int trays = (spec.ranks + spec.ranksPerTray - 1) / spec.ranksPerTray;
  for (int tray = 0; tray < trays; ++tray) {
    nlohmann::json gpus = nlohmann::json::array();
    for (int g = 0; g < spec.ranksPerTray; ++g) {
      char bus[32];
      std::snprintf(bus, sizeof bus, "0000:%02x:00.0", 0x10 + g);
      gpus.push_back({{"index", g},
                      {"bus_id", bus},
                      {"nics",
                       {{{"hca", "mlx5_" + std::to_string(g)},
                         {"netdev", ""},
                         {"bus_id", bus},
                         {"port", 1},
                         {"rail", g},
                         {"plane", -1},
                         {"speed_mbps", 400000}}}}});
    }
    hosts.push_back({{"name", hostName(spec, tray * spec.ranksPerTray)},
                     {"domain", rackName(tray / spec.traysPerRack)},
                     {"gpus", gpus}});
  }
  return nlohmann::json{{"schema", formats::kRailMapSchema},
                        {"cluster", spec.job},
                        {"rails", spec.ranksPerTray},
                        {"planes", 1},
                        {"hosts", hosts}}
             .dump(1) +
         "\n";
}

}  // namespace railtune::testing::synthetic_profile
