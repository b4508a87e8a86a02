#include "emulator/net_job/launcher.h"

#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/regular_file.h"
#include "emulator/net_job/launcher_internal.h"
#include "fabric/default_cluster.h"
#include "fabric/rail_map_write.h"
#include "formats/names.h"

namespace railtune::emu::netjob {
namespace {

namespace fs = std::filesystem;

// fork() copies only the calling thread: a parent with other threads could hand a child a lock
// held forever. The CLI and the tests call runJob from their only thread; say so clearly otherwise.
void requireSingleThreaded() {
  std::error_code ec;
  size_t threads = 0;
  for (auto it = fs::directory_iterator("/proc/self/task", ec); !ec && it != fs::directory_iterator(); ++it) ++threads;
  if (threads > 1)
    throw std::runtime_error(
        "the net job forks its ranks and must be started from a single-threaded process (this one has " +
        std::to_string(threads) + " threads)");
}

void writeFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::string makeJobDir(const std::string& given) {
  if (!given.empty()) {
    std::error_code ec;
    fs::create_directories(given, ec);
    if (ec) throw std::runtime_error("cannot create " + given + ": " + ec.message());
    return fs::absolute(given).string();
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/railtune-net-job-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error("cannot create a job folder " + pattern + ": " + std::strerror(errno));
  return pattern;
}

// The job folder: the rail map every rank reads, one address file per host, the handle folder.
void prepareJobDir(const std::string& dir, const std::string& railMap, const JobPlan& plan) {
  writeFile(fs::path(dir) / "rail-map.json", railMap);
  std::error_code ec;
  fs::create_directories(fs::path(dir) / "addresses", ec);
  fs::create_directories(fs::path(dir) / "handles", ec);
  if (ec) throw std::runtime_error("cannot create folders in " + dir + ": " + ec.message());
  for (const PlannedHost& host : plan.hosts)
    writeFile(formats::joinUnder(fs::path(dir) / "addresses", host.name + ".txt"), addressFileText(host));
}

}  // namespace

std::string railMapText(const std::string& path) {
  if (path.empty()) return fabric::writeRailMap(fabric::loadDefaultCluster());
  const RegularFile file = readRegularFile(path, kMaxConfigFileBytes);
  if (!file.ok()) throw std::runtime_error("cannot read rail map " + file.describe());
  return file.bytes;
}

int JobResult::pluginConnections() const {
  int n = 0;
  for (const RankResult& r : ranks) n += r.pluginSends;
  return n;
}

JobResult runJob(const JobOptions& options) {
  requireSingleThreaded();
  if (options.bytes == 0) throw std::runtime_error("--bytes must be at least 1");
  if (options.iterations < 1) throw std::runtime_error("--iterations must be at least 1");
  if (options.warmup < 0) throw std::runtime_error("--warmup must be at least 0");
  if (options.collectives.empty()) throw std::runtime_error("no collective to run");
  if (options.chunkBytes == 0 || options.chunkBytes > (size_t{1} << 30))
    throw std::runtime_error("--chunk-bytes must be 1 .. 1073741824 (NCCL's largest net message)");
  if (!(options.timeoutSeconds > 0)) throw std::runtime_error("--timeout must be positive");
  if (options.delayRank >= options.placement.ranks)
    throw std::runtime_error("--delay-rank " + std::to_string(options.delayRank) + " is not a rank");
  if (!(options.delayUs >= 0 && options.delayUs <= 10e6))
    throw std::runtime_error("--delay-us must be 0 .. 10000000 (10 s)");
  if (!options.profileDir.empty() && options.profilerPath.empty())
    throw std::runtime_error("a profile folder needs the profiler plugin's path");
  // Profiled, every ring step of every link is one ProxyStep: each part must hold at least one byte.
  if (!options.profileDir.empty() && options.bytes < static_cast<size_t>(options.placement.ranks))
    throw std::runtime_error("--profile-dir needs --bytes of at least --ranks (every ring step moves a part)");
  const std::string mapText = railMapText(options.railMapPath);
  const formats::RailMap map =
      formats::parseRailMap(mapText, options.railMapPath.empty() ? "default rail map" : options.railMapPath);
  JobResult result;
  result.plan = makePlan(map, options.placement);
  result.jobDir = makeJobDir(options.jobDir);
  for (const std::string& dir : {options.pathLogDir, options.profileDir}) {
    if (dir.empty()) continue;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw std::runtime_error("cannot create the folder " + dir + ": " + ec.message());
  }
  prepareJobDir(result.jobDir, mapText, result.plan);
  if (options.transport == NetTransport::Ib)
    result.verbs = prepareVerbsJob(result.jobDir, map, result.plan, options.verbsLibrary);
  runRanks(options, result);
  if (result.verbs.rendezvousOutsideJob) {  // the agents' sockets went with the ranks
    std::error_code ec;
    fs::remove_all(result.verbs.rendezvousDir, ec);
  }
  if (result.ok() && options.jobDir.empty()) {
    std::error_code ec;
    fs::remove_all(result.jobDir, ec);
    result.jobDir.clear();
  }
  return result;
}

}  // namespace railtune::emu::netjob
