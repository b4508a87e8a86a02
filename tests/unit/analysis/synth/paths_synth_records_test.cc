// `railtune paths synth`: the files it writes. Every line is read back by the plugins' strict readers
// (formats::path_log::parseRecords, formats::profile::parseCollectiveRecords and parseNetRecords); both ends
// of every connection agree; an injected cross-rail connection looks exactly as the net plugin's
// misbinding fault makes it look; the same seed writes the same bytes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/synth/path_records.h"
#include "analysis/synth/rail_map_source.h"
#include "analysis/synth/synth_job.h"
#include "analysis/synth/truth.h"
#include "analysis/synth/write_files.h"
#include "formats/profile_logs.h"
#include "tests/support/file_text.h"

namespace railtune::analysis::synth {
namespace {

namespace fs = std::filesystem;
namespace pl = formats::path_log;

std::unique_ptr<SynthJob> smallJob(uint64_t seed = 3, int crossRail = 2, bool net = false) {
  SynthOptions o;
  o.ranks = 64;
  o.collectives = 20;
  o.seed = seed;
  o.crossRail = crossRail;
  o.net = net;
  return makeSynthJob(o, loadRailMap(RAILTUNE_SYNTH_DATA "/four-small-racks.yaml", ""));
}

using railtune::testing::readFile;

// A fresh scratch folder under the system's temporary folder, one per test process and name.
fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("railtune_paths_synth_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Removes the folders when a test ends, whatever its outcome.
struct ScratchCleanup {
  std::vector<fs::path> dirs;
  ~ScratchCleanup() {
    for (const fs::path& dir : dirs) fs::remove_all(dir);
  }
};

TEST(PathsSynthRecords, EveryLineOfASmallJobParsesWithTheStrictReaders) {
  const auto job = smallJob(3, 2, true);
  const fs::path dir = scratch("parse");
  const ScratchCleanup cleanup{{dir}};
  const WriteSummary written = writeJobFiles(*job, dir.string(), 2);
  EXPECT_EQ(written.files, 64u * 3);  // path log, collective log, network summary per rank
  size_t pathRecords = 0, collectives = 0, nets = 0, netFiles = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    const std::string text = readFile(entry.path());
    if (name.ends_with(".collectives.jsonl")) {
      const auto parsed = formats::profile::parseCollectiveRecords(text, name);
      ASSERT_EQ(parsed.error, "");
      collectives += parsed.records.size();
    } else if (name.ends_with(".net.jsonl")) {
      // Eight ranks' summaries (their lines hold 32 flows each, slow to read under sanitizers); every
      // line of every summary is checked against the schema by cli.paths_synth_files.
      if (++netFiles > 8) continue;
      const auto parsed = formats::profile::parseNetRecords(text, name);
      ASSERT_EQ(parsed.error, "");
      nets += parsed.records.size();
    } else {
      const pl::ParseAllResult parsed = pl::parseRecords(text, name);
      ASSERT_EQ(parsed.error, "");
      pathRecords += parsed.records.size();
    }
  }
  EXPECT_EQ(collectives, 64u * 20);
  EXPECT_EQ(netFiles, 64u);
  EXPECT_EQ(nets, 8u * 20);
  EXPECT_EQ(pathRecords, 64u * 32 * 3);  // connect, snapshot, close per connection
  // The free-space check's estimate is close to what was written.
  EXPECT_NEAR(static_cast<double>(estimateBytes(*job)), static_cast<double>(written.bytes),
              0.2 * static_cast<double>(written.bytes));
}

TEST(PathsSynthRecords, BothEndsOfEveryConnectionAgree) {
  const auto job = smallJob();
  for (int r = 0; r < job->ranks(); ++r) {
    const int next = job->placement.ringNext[static_cast<size_t>(r)];
    for (int ch = 0; ch < job->connections.channels(); ++ch) {
      const pl::PathRecord send = sendConnect(*job, r, ch);
      const pl::PathRecord recv = recvConnect(*job, next, ch);
      EXPECT_EQ(send.comm, recv.comm);
      EXPECT_EQ(send.localDigest, recv.remoteDigest);
      EXPECT_EQ(send.remoteDigest, recv.localDigest);
      EXPECT_EQ(send.remote.host.view(), job->placement.hostOf(next).name);
      EXPECT_EQ(recv.remote.host.view(), job->placement.hostOf(r).name);
      EXPECT_EQ(send.remote.pid, job->pidOf(next));
      EXPECT_EQ(recv.remote.pid, job->pidOf(r));
      EXPECT_EQ(recv.remote.rank, r);
      EXPECT_EQ(send.rank, r);
      EXPECT_EQ(send.remote.hca.view(), recv.local.hca.view());
      EXPECT_EQ(send.remote.device, recv.local.device);
      EXPECT_EQ(recv.remote.hca.view(), send.local.hca.view());
      EXPECT_EQ(recv.remote.rail, send.local.rail);
    }
  }
}

TEST(PathsSynthRecords, ACrossRailConnectionLooksAsTheMisbindingFaultMakesIt) {
  const auto job = smallJob(3, 2);
  ASSERT_EQ(job->connections.crossRail().size(), 2u);
  for (const CrossRailConnection& c : job->connections.crossRail()) {
    const pl::PathRecord send = sendConnect(*job, c.rank, c.channel);
    const int peer = job->placement.ringNext[static_cast<size_t>(c.rank)];
    const pl::PathRecord recv = recvConnect(*job, peer, c.channel);
    EXPECT_EQ(send.local.device, c.device);  // NCCL's choice stays; the NIC used is another
    EXPECT_EQ(send.expectedRail, job->placement.expectedRailOf(c.rank));
    EXPECT_NE(send.local.rail, send.expectedRail);  // rail_match: false
    EXPECT_EQ(recv.local.rail, recv.expectedRail);  // the receiver's own end is right...
    EXPECT_NE(recv.remote.rail, recv.local.rail);   // ...but the remote end is on another rail
    EXPECT_EQ(recv.remote.hca.view(), send.local.hca.view());
    EXPECT_EQ(recv.remote.device, c.actual);  // the handshake comes from the NIC used
    const std::string line = pl::renderRecord(job->identityOf(c.rank), send);
    EXPECT_NE(line.find("\"rail_match\":false"), std::string::npos) << line;
  }
  // Every other connection is on its rail.
  int wrong = 0;
  for (int r = 0; r < job->ranks(); ++r)
    for (int ch = 0; ch < job->connections.channels(); ++ch) {
      const pl::PathRecord send = sendConnect(*job, r, ch);
      wrong += send.local.rail != send.expectedRail ? 1 : 0;
    }
  EXPECT_EQ(wrong, 2);
}

TEST(PathsSynthRecords, TheSameSeedWritesTheSameBytes) {
  const fs::path a = scratch("seed_a"), b = scratch("seed_b"), c = scratch("seed_c");
  const ScratchCleanup cleanup{{a, b, c}};
  writeJobFiles(*smallJob(9), a.string(), 2);
  writeJobFiles(*smallJob(9), b.string(), 1);  // a different split of the work
  writeJobFiles(*smallJob(10), c.string(), 2);
  size_t files = 0, differ = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(a)) {
    const std::string name = entry.path().filename().string();
    EXPECT_EQ(readFile(entry.path()), readFile(b / name)) << name;
    differ += readFile(entry.path()) != readFile(c / name) ? 1 : 0;
    ++files;
  }
  EXPECT_EQ(files, 64u * 2);
  EXPECT_GT(differ, 0u);
  EXPECT_EQ(renderTruth(*smallJob(9)), renderTruth(*smallJob(9)));
}

TEST(PathsSynthRecords, TheTruthNamesWhatWasInjected) {
  const auto job = smallJob(3, 2);
  const nlohmann::json truth = nlohmann::json::parse(renderTruth(*job));
  EXPECT_EQ(truth["schema"], "railtune.synth_truth.v1");
  EXPECT_EQ(truth["ranks"], 64);
  EXPECT_EQ(truth["racks"], 4);
  EXPECT_EQ(truth["connections"], 64 * 16);
  ASSERT_EQ(truth["offenders"].size(), 5u);
  EXPECT_EQ(truth["offenders"][0]["level"], "rack");
  EXPECT_EQ(truth["offenders"][1]["level"], "tray");
  const nlohmann::json& straggler = truth["offenders"][4];
  EXPECT_EQ(straggler["level"], "rank");
  EXPECT_EQ(straggler["late_collectives"], straggler["late_seqs"].size());
  EXPECT_GE(straggler["delay_us"]["min"].get<double>(), 200.0);
  EXPECT_LE(straggler["delay_us"]["max"].get<double>(), 2000.0);
  ASSERT_EQ(truth["cross_rail"].size(), 2u);
  const nlohmann::json& x = truth["cross_rail"][0];
  const CrossRailConnection& c = job->connections.crossRail()[0];
  EXPECT_EQ(x["rank"], c.rank);
  EXPECT_EQ(x["pid"], job->pidOf(c.rank));
  EXPECT_NE(x["rail"], x["expected_rail"]);
  EXPECT_EQ(x["peer_rank"], job->placement.ringNext[static_cast<size_t>(c.rank)]);
}

}  // namespace
}  // namespace railtune::analysis::synth
