// railtune_sweep_run's manifest (nccl-tests-integration/run/manifest.h): lines written in one key order and read
// back whole; a line cut by a crash, of another schema or with a wrong type is one diagnostic; the last line of
// an id wins; the documented example reads cleanly.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "nccl-tests-integration/run/manifest.h"

namespace railtune::sweep {
namespace {

ManifestEntry fullEntry() {
  ManifestEntry e;
  e.id = "allreduce.ring-simple-ch16-chunk512K.r1";
  e.test = "all_reduce_perf";
  e.choice.algorithm = "ring";
  e.choice.protocol = "simple";
  e.choice.channels = 16;
  e.choice.chunkSize = 524288;
  e.repeat = 1;
  e.command = {"srun", "-N", "2", "all_reduce_perf", "-b", "8", "-e", "16G", "-J", "/s/runs/x.json"};
  e.env = {{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "Simple"}, {"RAILTUNE_SWEEP_RUN_ID", e.id}};
  e.output = "runs/" + e.id + ".txt";
  e.json = "runs/" + e.id + ".json";
  e.outputBytes = 5217;
  e.status = RunStatus::Failed;
  e.exitCode = 143;
  e.reason = "timed out after 600 s (--timeout): killed \"quoted\" \\ and \xc3\xa9";
  e.start = "2026-07-10T09:15:02.123Z";
  e.end = "2026-07-10T09:25:02.456Z";
  e.nvlDomains = 1;
  e.mnnvl = "on";
  e.fabric = ManifestFabric{ShapeSource::RailMap, "/etc/railtune/rail-map.json", FabricId{"", "RoCE", 400, 1, "oci"}};
  return e;
}

void expectSame(const ManifestEntry& a, const ManifestEntry& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.test, b.test);
  EXPECT_EQ(a.choice, b.choice);
  EXPECT_EQ(a.repeat, b.repeat);
  EXPECT_EQ(a.command, b.command);
  EXPECT_EQ(a.env, b.env);
  EXPECT_EQ(a.output, b.output);
  EXPECT_EQ(a.json, b.json);
  EXPECT_EQ(a.outputBytes, b.outputBytes);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.exitCode, b.exitCode);
  EXPECT_EQ(a.reason, b.reason);
  EXPECT_EQ(a.start, b.start);
  EXPECT_EQ(a.end, b.end);
  EXPECT_EQ(a.nvlDomains, b.nvlDomains);
  EXPECT_EQ(a.mnnvl, b.mnnvl);
  ASSERT_EQ(a.fabric.has_value(), b.fabric.has_value());
  if (!a.fabric) return;
  EXPECT_EQ(a.fabric->from, b.fabric->from);
  EXPECT_EQ(a.fabric->file, b.fabric->file);
  EXPECT_EQ(a.fabric->fabric, b.fabric->fabric);
  EXPECT_EQ(a.fabric->fabric.name, b.fabric->fabric.name);
  EXPECT_EQ(a.fabric->fabric.nicsPerGpu, b.fabric->fabric.nicsPerGpu);
}

// A fabric recorded by another writer must say where it came from: a rail map or a fabric.
TEST(SweepRunManifest, AFabricOfUnknownOriginIsABadLine) {
  std::string line = manifestLine(fullEntry());
  EXPECT_NE(line.find(R"("fabric":{"from":"rail-map","file":"/etc/railtune/rail-map.json","name":"oci",)"
                      R"("link_layer":"RoCE","nic_gbps":400,"nics_per_gpu":1})"),
            std::string::npos)
      << line;
  line.replace(line.find("\"rail-map\""), 10, "\"guess\"");
  const Manifest read = readManifestText(line);
  EXPECT_TRUE(read.entries.empty());
  ASSERT_EQ(read.diagnostics.size(), 1u);
  EXPECT_NE(read.diagnostics[0].message.find("expected rail-map or fabric"), std::string::npos);
}

TEST(SweepRunManifest, RoundTripKeepsEveryField) {
  const ManifestEntry entry = fullEntry();
  const std::string line = manifestLine(entry);
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  const Manifest read = readManifestText(line);
  EXPECT_TRUE(read.diagnostics.empty());
  ASSERT_EQ(read.entries.size(), 1u);
  expectSame(read.entries[0], entry);
}

TEST(SweepRunManifest, KeysInOneOrderEmptyOnesLeftOut) {
  ManifestEntry e;
  e.id = "allreduce.default.r0";
  e.test = "all_reduce_perf";
  e.command = {"all_reduce_perf"};
  e.env = {{"RAILTUNE_SWEEP_RUN_ID", "allreduce.default.r0"}};
  e.output = "runs/allreduce.default.r0.txt";
  e.status = RunStatus::Ok;
  e.start = "2026-07-10T09:15:02.123Z";
  e.end = "2026-07-10T09:15:12.000Z";
  EXPECT_EQ(manifestLine(e),
            "{\"schema\":\"railtune.sweep-manifest/1\",\"id\":\"allreduce.default.r0\",\"test\":\"all_reduce_perf\","
            "\"choice\":{},\"repeat\":0,\"command\":[\"all_reduce_perf\"],\"env\":{\"RAILTUNE_SWEEP_RUN_ID\":"
            "\"allreduce.default.r0\"},\"output\":\"runs/allreduce.default.r0.txt\",\"status\":\"ok\",\"exit\":0,"
            "\"start\":\"2026-07-10T09:15:02.123Z\",\"end\":\"2026-07-10T09:15:12.000Z\"}\n");
  const std::string full = manifestLine(fullEntry());
  const char* keys[] = {
      "\"schema\"",     "\"id\"",     "\"test\"",    "\"choice\"", "\"algorithm\"", "\"protocol\"",     "\"channels\"",
      "\"chunk_size\"", "\"repeat\"", "\"command\"", "\"env\"",    "\"output\"",    "\"output_bytes\"", "\"json\"",
      "\"status\"",     "\"exit\"",   "\"reason\"",  "\"start\"",  "\"end\"",       "\"nvl_domains\"",  "\"mnnvl\""};
  size_t at = 0;
  for (const char* key : keys) {
    const size_t found = full.find(key, at);
    ASSERT_NE(found, std::string::npos) << key;
    at = found;
  }
}

TEST(SweepRunManifest, BadLinesAreDiagnosticsNeverThrows) {
  const std::string good = manifestLine(fullEntry());
  std::string wrongSchema = good;
  wrongSchema.replace(wrongSchema.find("railtune.sweep-manifest/1"), 25, "railtune.sweep-manifest/9");
  std::string wrongType = good;
  wrongType.replace(wrongType.find("\"repeat\":1"), 10, "\"repeat\":\"1\"");
  std::string wrongStatus = good;
  wrongStatus.replace(wrongStatus.find("\"failed\""), 8, "\"maybe\"");
  std::string negativeBytes = good;
  negativeBytes.replace(negativeBytes.find("\"output_bytes\":5217"), 19, "\"output_bytes\":-1");
  const std::string text = "\n" + good + wrongSchema + "[1,2]\n" + wrongType + wrongStatus + "   \n" + negativeBytes +
                           good.substr(0, good.size() / 2);  // the crash cut the last line
  const Manifest read = readManifestText(text);
  ASSERT_EQ(read.entries.size(), 1u);
  ASSERT_EQ(read.diagnostics.size(), 6u);
  EXPECT_EQ(read.diagnostics[0].line, 3u);
  EXPECT_NE(read.diagnostics[0].message.find("railtune.sweep-manifest/9"), std::string::npos);
  EXPECT_EQ(read.diagnostics[1].line, 4u);
  EXPECT_NE(read.diagnostics[1].message.find("not a JSON object"), std::string::npos);
  EXPECT_EQ(read.diagnostics[2].line, 5u);
  EXPECT_NE(read.diagnostics[2].message.find("\"repeat\""), std::string::npos);
  EXPECT_EQ(read.diagnostics[3].line, 6u);
  EXPECT_NE(read.diagnostics[3].message.find("maybe"), std::string::npos);
  EXPECT_EQ(read.diagnostics[4].line, 8u);
  EXPECT_EQ(read.diagnostics[4].message, "\"output_bytes\" is not a non-negative integer");
  EXPECT_EQ(read.diagnostics[5].line, 9u);
  EXPECT_NE(read.diagnostics[5].message.find("cut short"), std::string::npos);
}

TEST(SweepRunManifest, LastLineOfAnIdWins) {
  ManifestEntry failed = fullEntry();
  ManifestEntry ok = failed;
  ok.status = RunStatus::Ok;
  ok.exitCode = 0;
  ok.reason.clear();
  ManifestEntry other = fullEntry();
  other.id = "allreduce.default.r0";
  const Manifest read = readManifestText(manifestLine(failed) + manifestLine(other) + manifestLine(ok));
  ASSERT_EQ(read.entries.size(), 2u);
  EXPECT_EQ(read.entries[0].id, "allreduce.default.r0");
  EXPECT_EQ(read.entries[1].id, failed.id);
  EXPECT_EQ(read.entries[1].status, RunStatus::Ok);
}

TEST(SweepRunManifest, UnknownKeysAreIgnored) {
  std::string line = manifestLine(fullEntry());
  line.insert(line.size() - 2, ",\"host\":\"login-1\"");
  const Manifest read = readManifestText(line);
  EXPECT_TRUE(read.diagnostics.empty());
  EXPECT_EQ(read.entries.size(), 1u);
}

TEST(SweepRunManifest, StatusNames) {
  for (RunStatus s : {RunStatus::Ok, RunStatus::Rejected, RunStatus::Failed})
    EXPECT_EQ(runStatusFromName(runStatusName(s)), s);
  EXPECT_EQ(runStatusFromName("skipped"), std::nullopt);
}

TEST(SweepRunManifest, DocumentedExampleReads) {
  std::ifstream in(std::string(RAILTUNE_DOCS_FORMATS) + "/sweep-manifest.example.jsonl");
  ASSERT_TRUE(in) << "docs/formats/sweep-manifest.example.jsonl";
  std::ostringstream text;
  text << in.rdbuf();
  const Manifest read = readManifestText(text.str());
  for (const ManifestDiagnostic& d : read.diagnostics) ADD_FAILURE() << "line " << d.line << ": " << d.message;
  EXPECT_GE(read.entries.size(), 5u);
}

}  // namespace
}  // namespace railtune::sweep
