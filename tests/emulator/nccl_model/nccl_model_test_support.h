// Topologies written out by hand for the NCCL model tests, independent of the graph data files.
#pragma once

#include "emulator/nccl_model/nccl_model.h"

namespace railtune::ncclmodel::testing {

inline Graph graph(int nChannels, float bwIntra, float bwInter, PathType typeInter, TopoPattern pattern) {
  Graph g;
  g.nChannels = nChannels;
  g.bwIntra = bwIntra;
  g.bwInter = bwInter;
  g.typeIntra = PathType::NVL;
  g.typeInter = typeInter;
  g.pattern = pattern;
  g.sameChannels = pattern != TopoPattern::Nvls;
  return g;
}

// One DGX H100 (8 x sm90, NVSwitch, Intel x86): ring and tree 12 channels x 30 GB/s, NVLS 8 heads x 40/60.
inline TopologyFacts dgxH100OneHost() {
  TopologyFacts t;
  t.minCompCap = t.maxCompCap = 90;
  t.cpuArch = CpuArch::X86;
  t.cpuVendor = CpuVendor::Intel;
  t.nvlsSupport = true;
  t.nChannels = 24;
  t.nvlsChannels = 16;
  t.ring = graph(12, 30, 30, PathType::PIX, TopoPattern::Ring);
  t.tree = graph(12, 30, 30, PathType::PIX, TopoPattern::BalancedTree);
  t.nvls = graph(8, 40, 60, PathType::PIX, TopoPattern::Nvls);
  return t;
}

// Two or more DGX H100 hosts, 8 x 400G: ring and tree 8 channels x 48 GB/s over PXB, NVLS 8 heads x 40/48.
inline TopologyFacts dgxH100Hosts() {
  TopologyFacts t = dgxH100OneHost();
  t.nChannels = 16;
  t.ring = graph(8, 48, 48, PathType::PXB, TopoPattern::Ring);
  t.tree = graph(8, 48, 48, PathType::PXB, TopoPattern::BalancedTree);
  t.nvls = graph(8, 40, 48, PathType::PXB, TopoPattern::Nvls);
  return t;
}

inline float cell(const CostTable& t, Algorithm a, Protocol p) {
  return t[static_cast<int>(a)][static_cast<int>(p)];
}

}  // namespace railtune::ncclmodel::testing
