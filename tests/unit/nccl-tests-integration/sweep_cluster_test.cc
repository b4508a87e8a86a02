// The GPU model and the fabric in a sweep's shape (issue 30, item 5 b and c): NCCL's own INFO lines read in the
// exact format of its source (nccl_info.h), the shape's counts from them against the caller's, the fabric of a row,
// the NVL72 warning when MNNVL is unknown, groups of different clusters never pooled and one rules file refusing
// them, and the dataset's new keys written and read (old rows still read).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "nccl-tests-integration/dataset/dataset.h"
#include "nccl-tests-integration/dataset/from_output.h"
#include "nccl-tests-integration/parse/nccl_info.h"
#include "nccl-tests-integration/parse/nccl_tests_text.h"
#include "nccl-tests-integration/rules/cluster_pick.h"
#include "nccl-tests-integration/rules/read_datasets.h"

namespace railtune::sweep {
namespace cluster_test {

// NCCL's messages printed from the format strings of its source (v2.30.7-1; identical at v2.28.9-1).
std::string commLine(int rank, int nRanks, int nNodes, int localRanks, int mnnvl) {
  char text[256];
  // src/init.cc:1422@v2.30.7-1, :1170@v2.28.9-1
  std::snprintf(text, sizeof text, "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d",
                static_cast<void*>(text), rank, nRanks, nNodes, localRanks, rank % localRanks, mnnvl);
  return text;
}
std::string usingNetwork(const char* name) {
  char text[128];
  std::snprintf(text, sizeof text, "Using network %s", name);  // src/init.cc:486@v2.30.7-1, :428@v2.28.9-1
  return text;
}
std::string ibDevices(const char* line) {
  char text[512];
  // src/transport/net_ib/init.cc:513@v2.30.7-1, src/transport/net_ib.cc:839@v2.28.9-1
  std::snprintf(text, sizeof text, "NET/IB : Using%s %s; OOB %s:%s", line, "[RO]", "ib0", "10.0.0.1<0>");
  return text;
}
// NCCL's log prefix, "host:pid:tid [cudaDev] NCCL INFO " (src/debug.cc).
std::string info(const std::string& host, int device, const std::string& message) {
  return host + ":4121:4121 [" + std::to_string(device) + "] NCCL INFO " + message + "\n";
}

TEST(SweepCluster, NcclsLinesAreReadInTheFormatOfItsSource) {
  NcclFacts facts;
  EXPECT_TRUE(readNcclInfo(commLine(1, 16, 2, 8, 0), facts));
  EXPECT_EQ(facts.nRanks, 16);
  EXPECT_EQ(facts.nNodes, 2);
  EXPECT_EQ(facts.mnnvl, 0);
  EXPECT_TRUE(readNcclInfo(usingNetwork("IB"), facts));
  EXPECT_EQ(facts.network, "IB");
  // 2.28: " [%d]%s:%d/%s"; 2.30 adds ":rail" or "::plane" before the link layer.
  EXPECT_TRUE(readNcclInfo(ibDevices(" [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE"), facts));
  EXPECT_EQ(facts.linkLayer, "RoCE");
  EXPECT_EQ(facts.netDevices, 2);
  NcclFacts planes;
  EXPECT_TRUE(readNcclInfo(ibDevices(" [0]mlx5_0:1:0/IB [1]mlx5_1:1::1/IB [2]mlx5_2:1:2:0/RoCE"), planes));
  EXPECT_EQ(planes.linkLayer, "IB+RoCE");
  NcclFacts socket;
  EXPECT_TRUE(readNcclInfo("NET/Socket : Using [0]eth0:10.0.139.244<0>", socket));  // net_socket.cc:77@v2.30.7-1
  EXPECT_EQ(socket.netDevices, 1);
  // Lines that only look like them: Init COMPLETE's "nranks", NET/Socket's thread count, a comm without nNodes.
  NcclFacts none;
  EXPECT_FALSE(readNcclInfo("comm 0x7f85a4000fa0 rank 0 nranks 2 cudaDev 0 busId 1e0 - Init COMPLETE", none));
  EXPECT_FALSE(readNcclInfo("NET/Socket: Using 2 threads and 8 sockets per thread", none));
  EXPECT_FALSE(readNcclInfo("Using network ", none));
  EXPECT_FALSE(none.any());
  // Two ranks of one communicator that disagree are said.
  NcclFacts two;
  readNcclInfo(commLine(0, 8, 1, 4, 1), two);
  readNcclInfo(commLine(5, 8, 2, 4, 0), two);
  EXPECT_TRUE(two.disagree);
}

// Two trays of 4 GB300, NCCL's lines between the device lines and the table.
std::string twoTrays(const std::string& ncclLines) {
  std::string text =
      "# nccl-tests version 2.19.6 nccl-headers=23007 nccl-library=23007\n"
      "# Collective test starting: all_reduce_perf\n# Using devices\n";
  for (int r = 0; r < 8; ++r)
    text += "#  Rank  " + std::to_string(r) + " Group  0 Pid   4121 on gb300-t0" + std::to_string(r / 4) + " device  " +
            std::to_string(r % 4) + " [0000:04:00] NVIDIA GB300\n";
  text += ncclLines;
  text +=
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   "
      "busbw  #wrong\n"
      "     4194304       1048576     float     sum      -1    26.60  157.69  275.95       0    26.50  158.28  "
      "276.99       0\n";
  return text;
}

std::vector<DatasetRow> rowsOf(const std::string& text, const OutputContext& context,
                               std::vector<DatasetDiagnostic>& diagnostics) {
  std::vector<DatasetRow> rows;
  appendRowsFromOutput(parseNcclTestsText(text), context, rows, diagnostics);
  return rows;
}

bool said(const std::vector<DatasetDiagnostic>& diagnostics, const std::string& words) {
  for (const DatasetDiagnostic& d : diagnostics)
    if (d.message.find(words) != std::string::npos) return true;
  return false;
}

TEST(SweepCluster, TraysWithNoMnnvlInformationAreFlaggedAndNcclsLineSettlesThem) {
  OutputContext context;
  context.source = "trays.txt";
  std::vector<DatasetDiagnostic> notes;
  DatasetRow row = rowsOf(twoTrays(""), context, notes).at(0);
  EXPECT_EQ(row.shape.nodes, 2);
  EXPECT_EQ(row.shape.source, ShapeSource::Assumed);
  EXPECT_EQ(row.shape.gpu, "NVIDIA GB300");
  EXPECT_TRUE(said(notes, "2 hosts of 4 NVIDIA GB300 GPUs counted as 2 nodes, 2 NVLink domains of 4 (no MNNVL"));
  EXPECT_TRUE(said(notes, "--nvl-domains N, --rail-map FILE or --fabric FILE, or rerun with NCCL_DEBUG=INFO"));
  EXPECT_NE(unsureDomainsWarning(row.shape), "");

  // NCCL's own line: both trays one MNNVL clique, one node, one domain of 8; no network in the way.
  notes.clear();
  std::string lines = info("gb300-t00", 0, usingNetwork("IB")) + info("gb300-t00", 0, ibDevices(" [0]mlx5_0:1/RoCE"));
  for (int r = 0; r < 8; ++r) lines += info(r < 4 ? "gb300-t00" : "gb300-t01", r % 4, commLine(r, 8, 1, 8, 1));
  row = rowsOf(twoTrays(lines), context, notes).at(0);
  EXPECT_EQ(row.shape.nodes, 1);
  EXPECT_EQ(row.shape.nvlDomains, 1);
  EXPECT_EQ(row.shape.ranksPerDomain, 8);
  EXPECT_EQ(row.shape.source, ShapeSource::NcclLog);
  EXPECT_EQ(row.shape.fabric.transport, "nvlink");
  EXPECT_FALSE(said(notes, "no MNNVL information"));

  // The caller said one domain, NCCL counted two nodes (MNNVL off): NCCL's count is kept, and said.
  notes.clear();
  context.nvlDomains = 1;
  lines = info("gb300-t00", 0, usingNetwork("IB")) + info("gb300-t00", 0, ibDevices(" [0]mlx5_0:1/RoCE")) +
          info("gb300-t00", 0, commLine(0, 8, 2, 4, 0));
  row = rowsOf(twoTrays(lines), context, notes).at(0);
  EXPECT_EQ(row.shape.nodes, 2);
  EXPECT_EQ(row.shape.source, ShapeSource::NcclLog);
  EXPECT_TRUE(said(notes, "NCCL says nNodes 2 (MNNVL 0) where the option gives 1 nodes: NCCL's count is kept"));
  EXPECT_EQ(row.shape.fabric.transport, "IB");
  EXPECT_EQ(row.shape.fabric.linkLayer, "RoCE");
  EXPECT_EQ(row.shape.label(), "8 ranks, 2 nodes, 1 NVLink domain of 8; NVIDIA GB300, IB/RoCE");

  // When they agree the caller's source stays.
  notes.clear();
  lines = info("gb300-t00", 0, commLine(0, 8, 1, 8, 1));
  row = rowsOf(twoTrays(lines), context, notes).at(0);
  EXPECT_EQ(row.shape.source, ShapeSource::Option);
  EXPECT_TRUE(notes.empty()) << notes.front().message;
}

std::string readShared(const std::string& relative) {
  const std::filesystem::path path = std::filesystem::path(RAILTUNE_SHARED_DATA) / relative;
  if (!std::filesystem::exists(path)) return "";
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(SweepCluster, RealNcclLogsGiveTheirNetworkAndNodes) {
  const std::string roce = readShared("nccl-logs/08-slurmv4-roce-2.29.3.log");
  const std::string socket = readShared("nccl-logs/02-aws-hpc-tutorials-socket-2.11.4.log");
  const std::string efa = readShared("nccl-logs/01-aws-efa-eks-ofi-2.9.9.log");
  if (roce.empty() || socket.empty() || efa.empty()) GTEST_SKIP() << "the shared data folder is absent";
  // NCCL 2.29.3 (sglang, no nccl-tests table): its lines one by one.
  NcclFacts facts;
  std::istringstream lines(roce);
  for (std::string line; std::getline(lines, line);)
    if (const size_t at = line.find(" NCCL INFO "); at != std::string::npos) readNcclInfo(line.substr(at + 11), facts);
  EXPECT_EQ(facts.nRanks, 16);
  EXPECT_EQ(facts.nNodes, 2);
  EXPECT_EQ(facts.mnnvl, 0);
  EXPECT_FALSE(facts.disagree);
  EXPECT_EQ(facts.network, "IB");
  EXPECT_EQ(facts.linkLayer, "RoCE");
  EXPECT_EQ(facts.netDevices, 9);  // mlx5_0..7 and mlx5_10

  // nccl-tests runs with NCCL_DEBUG=INFO: the rows' fabric from NCCL's network (no comm line in 2.9 and 2.11).
  OutputContext context;
  context.source = "socket.log";
  context.collective = "allreduce";  // 2.11's nccl-tests does not name its program
  std::vector<DatasetDiagnostic> notes;
  const std::vector<DatasetRow> a10g = rowsOf(socket, context, notes);
  ASSERT_FALSE(a10g.empty());
  EXPECT_EQ(a10g[0].shape.fabric.transport, "Socket");
  EXPECT_EQ(a10g[0].shape.nodes, 2);
  EXPECT_EQ(a10g[0].shape.label(), "2 ranks, 2 nodes, 2 NVLink domains of 1; NVIDIA A10G, Socket");
  context.source = "efa.log";
  const std::vector<DatasetRow> a100 = rowsOf(efa, context, notes);
  ASSERT_FALSE(a100.empty());
  EXPECT_EQ(a100[0].shape.fabric.transport, "AWS Libfabric");
  EXPECT_EQ(a100[0].shape.ranks, 16);
}

TEST(SweepCluster, AnNvl72FragmentWithoutMnnvlInformationIsFlagged) {
  const std::string rack = readShared("nccl-tests/gb200-nvl72-1rack-72gpu-allreduce-coreweave.txt");
  if (rack.empty()) GTEST_SKIP() << "the shared data folder is absent";
  OutputContext context;
  context.source = "rack.txt";
  std::vector<DatasetDiagnostic> notes;
  const DatasetRow row = rowsOf(rack, context, notes).at(0);
  EXPECT_EQ(row.shape.nodes, 18);
  EXPECT_EQ(row.shape.source, ShapeSource::Assumed);
  EXPECT_TRUE(said(notes, "18 hosts of 4 NVIDIA Graphics Device GPUs counted as 18 nodes, 18 NVLink domains of 4"));
  // Told: one domain, MNNVL on by default for a domain of several hosts; nothing to flag.
  notes.clear();
  context.nvlDomains = 1;
  const DatasetRow told = rowsOf(rack, context, notes).at(0);
  EXPECT_EQ(told.shape.nodes, 1);
  EXPECT_EQ(told.shape.source, ShapeSource::Option);
  EXPECT_FALSE(said(notes, "no MNNVL information"));
}

// A row of "16 ranks, 2 nodes, 2 NVLink domains of 8" on one cluster.
DatasetRow sixteen(const std::string& gpu, const std::string& transport, double busbw, const char* algorithm = "") {
  DatasetRow row;
  row.source = gpu + ".txt";
  row.collective = "allreduce";
  row.size = 1 << 20;
  row.count = row.size / 4;
  row.type = "float";
  row.redop = "sum";
  row.choice.algorithm = algorithm;
  row.choice.protocol = *algorithm ? "simple" : "";
  row.shape = Shape{16, 2, 2, 2, 8, gpu, FabricId{transport, "", 0, 0, ""}, ShapeSource::NcclLog};
  row.gpu = gpu;
  row.outOfPlace.busbwGBps = busbw;
  row.inPlace.busbwGBps = busbw;
  return row;
}

TEST(SweepCluster, TwoClustersOfOneShapeAreTwoGroupsAndOneRulesFileRefusesThem) {
  Aggregate a;
  a.add(sixteen("NVIDIA H100 80GB HBM3", "TCPXO", 100));
  a.add(sixteen("NVIDIA H100 80GB HBM3", "TCPXO", 130, "ring"));
  a.add(sixteen("NVIDIA H200", "IB", 300));
  a.add(sixteen("NVIDIA H200", "IB", 280, "ring"));
  ASSERT_EQ(a.groups.size(), 2u);  // never pooled into one "16 ranks, 2 nodes" group
  const std::string clash = sharedTunerKey(a);
  EXPECT_NE(clash.find("rules for NVIDIA H100 80GB HBM3, TCPXO and NVIDIA H200, IB would share the tuner key "
                       "\"allreduce, 16 ranks, 2 nodes, 2 NVLink domains of 8\""),
            std::string::npos)
      << clash;
  EXPECT_NE(clash.find("pass --gpu NAME or --fabric TRANSPORT"), std::string::npos) << clash;

  // --gpu H200 or --fabric ib keeps one cluster: no clash.
  for (const ClusterPick& pick : {ClusterPick{"h200", ""}, ClusterPick{"", "ib"}}) {
    Aggregate one;
    for (const DatasetRow& row : {sixteen("NVIDIA H100 80GB HBM3", "TCPXO", 1), sixteen("NVIDIA H200", "IB", 1)})
      if (pick.keeps(row.shape)) one.add(row);
    EXPECT_EQ(one.groups.size(), 1u);
    EXPECT_EQ(one.groups.begin()->first.shape.gpu, "NVIDIA H200");
    EXPECT_EQ(sharedTunerKey(one), "");
  }
  EXPECT_TRUE((ClusterPick{"", "IB/RoCE"}).keeps(Shape{16, 2, 2, 2, 8, "g", FabricId{"IB", "RoCE", 0, 0, ""}, {}}));
  EXPECT_FALSE((ClusterPick{"", "IB/RoCE"}).keeps(Shape{16, 2, 2, 2, 8, "g", FabricId{"IB", "IB", 0, 0, ""}, {}}));

  // The cluster's name and where the shape came from do not split a group.
  Aggregate named;
  DatasetRow row = sixteen("NVIDIA H200", "IB", 1);
  named.add(row);
  row.shape.fabric.name = "lab";
  row.shape.source = ShapeSource::RailMap;
  named.add(row);
  EXPECT_EQ(named.groups.size(), 1u);
}

std::vector<DatasetRow> readBack(const std::string& text, std::vector<DatasetDiagnostic>& diagnostics) {
  std::vector<DatasetRow> rows;
  const std::string padded = text + std::string(64, '\0');  // simdjson's padding, after the text
  readDatasetText(
      std::string_view(padded.data(), text.size()), "d.jsonl", [&](const DatasetRow& r) { rows.push_back(r); },
      diagnostics);
  return rows;
}

TEST(SweepCluster, TheDatasetKeepsGpuFabricAndSourceAndOldRowsStillRead) {
  DatasetRow row = sixteen("NVIDIA H200", "IB", 300);
  row.shape.fabric = FabricId{"IB", "RoCE", 400, 1, "lab"};
  row.shape.source = ShapeSource::RailMap;
  std::string line;
  appendDatasetRow(row, line);
  EXPECT_NE(line.find("\"fabric\":{\"transport\":\"IB\",\"link_layer\":\"RoCE\",\"nic_gbps\":400,"
                      "\"nics_per_gpu\":1,\"name\":\"lab\"},\"source\":\"rail-map\""),
            std::string::npos)
      << line;
  std::vector<DatasetDiagnostic> diagnostics;
  std::vector<DatasetRow> rows = readBack(line, diagnostics);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].shape, row.shape);
  EXPECT_EQ(rows[0].shape.fabric.name, "lab");
  EXPECT_EQ(rows[0].shape.fabric.nicsPerGpu, 1);
  EXPECT_EQ(rows[0].shape.source, ShapeSource::RailMap);

  // A row written before the keys existed: GPU from the top-level key, fabric unknown, shape assumed.
  const std::string old =
      R"({"schema":"railtune.sweep-dataset/1","source":"a.txt","line":9,"run":0,"collective":"allreduce",)"
      R"("size":1024,"count":256,"type":"float","redop":"sum","root":-1,"choice":{},"forced_by":"none","env":{},)"
      R"("shape":{"ranks":8,"hosts":2,"nodes":2,"nvl_domains":2,"ranks_per_domain":4},)"
      R"("out_of_place":{"busbw":1.5},"valid":true,"repeat":0,"gpu":"NVIDIA GB300"})";
  rows = readBack(old, diagnostics);
  ASSERT_EQ(rows.size(), 1u) << (diagnostics.empty() ? "" : diagnostics.back().message);
  EXPECT_EQ(rows[0].shape.gpu, "NVIDIA GB300");
  EXPECT_FALSE(rows[0].shape.fabric.known());
  EXPECT_EQ(rows[0].shape.source, ShapeSource::Assumed);
  // An unknown source or fabric key is a bad line, said.
  std::string bad = line;
  bad.replace(bad.find("rail-map"), 8, "guessed");
  EXPECT_TRUE(readBack(bad, diagnostics).empty());
  EXPECT_NE(diagnostics.back().message.find("rail-map, fabric, option, manifest, nccl-log or assumed"),
            std::string::npos);
  bad = line;
  bad.replace(bad.find("nic_gbps"), 8, "nic_mbps");
  EXPECT_TRUE(readBack(bad, diagnostics).empty());
  EXPECT_NE(diagnostics.back().message.find("unknown key \"nic_mbps\" in \"fabric\""), std::string::npos);
}

TEST(SweepCluster, RulesAndCompareRepeatTheNvl72WarningOncePerGroup) {
  OutputContext context;
  context.source = "trays.txt";
  std::vector<DatasetDiagnostic> notes;
  std::vector<DatasetRow> rows = rowsOf(twoTrays(""), context, notes);
  std::string text;
  for (int i = 0; i < 3; ++i)
    for (const DatasetRow& row : rows) appendDatasetRow(row, text);
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "railtune-sweep-cluster-test.jsonl";
  std::ofstream(path) << text;
  std::vector<std::string> warnings;
  const Aggregate a = readDatasets({path.string()}, 20, [&](std::string_view w) { warnings.emplace_back(w); });
  std::filesystem::remove(path);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("allreduce, 8 ranks, 2 nodes, 2 NVLink domains of 4: 2 hosts of 4 NVIDIA GB300 GPUs"),
            std::string::npos)
      << warnings[0];
  EXPECT_EQ(a.unsureDomains.size(), 1u);
}

}  // namespace cluster_test
}  // namespace railtune::sweep
