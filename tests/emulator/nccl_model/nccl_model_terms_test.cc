// ShapeModel against the emulator's own model: for every built-in profile and shape, both NCCL versions,
// every collective, cell and size from 8 B to 16 GiB, at NCCL's constants and at seeded random ones,
// ShapeModel::timeUs equals computeCostTable bitwise. It can: both evaluate the same cell formulas
// (terms.h CellForm) in the same float/double order, so any drift is a real divergence. The linear views
// (LatencyTerms, BandwidthTerms) reassociate sums and products, so they are held to a relative 1e-9
// (latency, double) and 1e-6 (bandwidth: NVLSTree's cap is a float min before the double steps).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "emulator/nccl_model/graph_data.h"
#include "emulator/nccl_model/terms.h"
#include "tests/emulator/nccl_model/nccl_model_test_support.h"

namespace railtune::ncclmodel {
namespace {

constexpr int kPerturbations = 20;

bool sameBits(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// NCCL's constants with every one scaled by a factor in [1/3, 3]; a few caps and latencies set to 0,
// which NCCL treats as "no bandwidth" (IGNORE) or "free".
CostModelConstants perturbed(NcclVersion v, unsigned seed) {
  CostModelConstants c = defaultCostModelConstants(v);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> logScale(-std::log(3.0), std::log(3.0));
  std::uniform_int_distribution<int> oneIn40(0, 39);
  for (int i = 0; i < kNumConstIds; i++) {
    double& x = constRef(c, static_cast<ConstId>(i));
    x *= std::exp(logScale(rng));
    if (oneIn40(rng) == 0) x = 0;
  }
  return c;
}

std::vector<CostModelConstants> constantSets(NcclVersion v) {
  std::vector<CostModelConstants> sets{defaultCostModelConstants(v)};
  for (int s = 0; s < kPerturbations; s++) sets.push_back(perturbed(v, 1000u * static_cast<unsigned>(v) + s));
  return sets;
}

std::vector<size_t> sizes() {
  std::vector<size_t> out;
  for (size_t n = 8; n <= (size_t{16} << 30); n *= 2) {
    out.push_back(n);
    out.push_back(n + n / 2 + 7);  // between the tree correction's steps and the plateau's threshold
  }
  return out;
}

// Every cell of the model and of the cost table, for one communicator and one set of constants.
// Pipelined calls (numPipeOps 13) change only latCount, which does not depend on the constants: checked at
// NCCL's constants only, which halves the time under TSan and qemu.
void expectSame(const ShapeModel& sm, const TunedModel& tuned, const CostModelConstants& c, bool pipelined,
                const std::string& what) {
  for (int ci = 0; ci < kNumCollectives; ci++) {
    const auto coll = static_cast<Collective>(ci);
    for (int a = 0; a < kNumAlgorithms; a++) {
      for (int p = 0; p < kNumProtocols; p++) {
        const auto algo = static_cast<Algorithm>(a);
        const auto proto = static_cast<Protocol>(p);
        ASSERT_TRUE(sameBits(sm.latencyUs(c, coll, algo, proto), tuned.latencies[ci][a][p]))
            << what << " lat " << ci << a << p;
        ASSERT_TRUE(sameBits(sm.bandwidthGBs(c, coll, algo, proto), tuned.bandwidths[ci][a][p]))
            << what << " bw " << ci << a << p;
      }
    }
    for (size_t n : sizes()) {
      for (int pipeOps : {1, 13}) {
        if (pipeOps != 1 && !pipelined) continue;
        const CostTable want = computeCostTable(tuned, CollRequest{coll, n, pipeOps});
        const CostTable got = sm.costTable(c, coll, n, pipeOps);
        for (int a = 0; a < kNumAlgorithms; a++)
          for (int p = 0; p < kNumProtocols; p++)
            ASSERT_TRUE(sameBits(got[a][p], want[a][p]))
                << what << " " << ncclCollectiveName(coll) << " " << ncclAlgorithmName(static_cast<Algorithm>(a)) << "/"
                << ncclProtocolName(static_cast<Protocol>(p)) << " " << n << " B: " << got[a][p] << " vs "
                << want[a][p];
      }
    }
  }
}

// The linear views agree with the exact value at the constants they were taken at.
void expectLinearViewsAgree(const ShapeModel& sm, const CostModelConstants& c, const std::string& what) {
  for (int ci = 0; ci < kNumCollectives; ci++) {
    for (int a = 0; a < kNumAlgorithms; a++) {
      for (int p = 0; p < kNumProtocols; p++) {
        const auto coll = static_cast<Collective>(ci);
        const auto algo = static_cast<Algorithm>(a);
        const auto proto = static_cast<Protocol>(p);
        if (!sm.offered(coll, algo, proto)) continue;
        const CellForm& f = sm.form(coll, algo, proto);
        const double lat = f.latency.value(c), linear = sm.latencyTerms(c, coll, algo, proto).value(c);
        ASSERT_LE(std::fabs(linear - lat), 1e-9 * std::max(1.0, std::fabs(lat))) << what << " " << ci << a << p;
        const BandwidthTerms bt = sm.bandwidthTerms(c, coll, algo, proto);
        ASSERT_EQ(bt.algBw, f.bandwidth.value(c)) << what;
        ASSERT_LE(std::fabs(bt.value(c) - bt.algBw), 1e-6 * bt.algBw) << what << " " << ci << a << p;
      }
    }
  }
}

void expectCommunicatorMatches(NcclVersion v, const CommShape& shape, const TopologyFacts& topo, const NcclKnobs& knobs,
                               const std::string& what) {
  const ShapeModel sm(v, shape, topo, knobs);
  const std::vector<CostModelConstants> sets = constantSets(v);
  for (const CostModelConstants& c : sets) {
    const TunedModel tuned = tuneModel(v, shape, topo, c, knobs);
    expectSame(sm, tuned, c, &c == &sets.front(), what);
    expectLinearViewsAgree(sm, c, what);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Node counts a shape covers: its smallest, the next, and 4 and 9 where allowed (the three tuning
// scales and a non-power-of-two log2).
std::vector<int> nodeCounts(const GraphShape& s) {
  std::vector<int> out;
  for (int n : {s.minNodes, s.minNodes + 1, 4, 9})
    if (n >= s.minNodes && (s.maxNodes == 0 || n <= s.maxNodes) && std::find(out.begin(), out.end(), n) == out.end())
      out.push_back(n);
  return out;
}

TEST(NcclModelTerms, EveryBuiltinShapeMatchesTheCostTableBitwise) {
  int communicators = 0;
  for (const std::string& profile : builtinGraphProfiles()) {
    for (const GraphShape& shape : builtinGraphData(profile).shapes) {
      for (int nodes : nodeCounts(shape)) {
        for (NcclVersion v : {NcclVersion::V2_28, NcclVersion::V2_30}) {
          const CommShape cs{shape.ranksPerNode * nodes, nodes};
          expectCommunicatorMatches(
              v, cs, shape.factsFor(v), NcclKnobs{},
              profile + " " + shape.name + " x" + std::to_string(nodes) + " " + emu::behaviourName(v));
          if (HasFatalFailure()) return;
          communicators++;
        }
      }
    }
  }
  EXPECT_GT(communicators, 100);  // 4 profiles, their listed and derived shapes, both versions
}

// Branches the built-in profiles do not reach: POWER and AMD CPUs, PCI inside the node, a tree of pattern
// TREE, a NIC latency, one rank per node (PAT, Tree's network latency), knobs, different channels.
TEST(NcclModelTerms, SyntheticTopologiesMatchTheCostTableBitwise) {
  TopologyFacts power = testing::dgxH100Hosts();
  power.cpuArch = CpuArch::Power;
  power.tree.typeIntra = power.ring.typeIntra = PathType::PXB;
  power.tree.pattern = TopoPattern::Tree;
  power.ring.latencyInter = power.tree.latencyInter = 1.7f;
  power.ring.sameChannels = false;
  TopologyFacts amd = testing::dgxH100Hosts();
  amd.cpuArch = CpuArch::X86;
  amd.cpuVendor = CpuVendor::Amd;
  amd.minCompCap = amd.maxCompCap = 100;  // 2.30's x86 Blackwell NVLSTree correction
  amd.nvls.latencyInter = 0.3f;
  NcclKnobs knobs;
  knobs.algo = "ring,tree,pat;allreduce:^ring";
  knobs.proto = "^LL128";
  knobs.netOverheadNs = 2500;
  for (NcclVersion v : {NcclVersion::V2_28, NcclVersion::V2_30}) {
    for (int nodes : {2, 3, 4}) {
      expectCommunicatorMatches(v, CommShape{8 * nodes, nodes}, power, {}, "power x" + std::to_string(nodes));
      expectCommunicatorMatches(v, CommShape{8 * nodes, nodes}, amd, {}, "amd x" + std::to_string(nodes));
      expectCommunicatorMatches(v, CommShape{nodes, nodes}, amd, {}, "one rank per node x" + std::to_string(nodes));
      expectCommunicatorMatches(v, CommShape{8 * nodes, nodes}, testing::dgxH100Hosts(), knobs, "knobs");
    }
    expectCommunicatorMatches(v, CommShape{1, 1}, testing::dgxH100OneHost(), {}, "one rank");
    expectCommunicatorMatches(v, CommShape{8, 1}, power, {}, "power, one node");
  }
}

TEST(NcclModelTerms, ShapeModelRefusesWhatTuneModelRefuses) {
  EXPECT_THROW(ShapeModel(NcclVersion::V2_30, CommShape{4, 8}, testing::dgxH100Hosts()), std::invalid_argument);
  TopologyFacts noChannels = testing::dgxH100OneHost();
  noChannels.nChannels = 0;
  EXPECT_THROW(ShapeModel(NcclVersion::V2_30, CommShape{8, 1}, noChannels), std::invalid_argument);
  NcclKnobs bad;
  bad.algo = "ring,bogus";
  EXPECT_THROW(ShapeModel(NcclVersion::V2_30, CommShape{8, 1}, testing::dgxH100OneHost(), bad), std::invalid_argument);
}

}  // namespace
}  // namespace railtune::ncclmodel
