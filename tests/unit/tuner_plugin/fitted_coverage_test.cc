// Which fit covers a communicator (tuner_plugin/fitted/fitted_model.h): GPU names compared as NCCL's device
// names, the fabric the rail map states, the release the tuner ABI says, the scale's verdict; and the per-cell
// maps a plan applies (never to IGNORE cells).
#include <gtest/gtest.h>

#include "formats/rail_map.h"
#include "tuner_plugin/fitted/fitted_model.h"

namespace railtune::tuner::fitted {
namespace {

namespace tm = formats::tuner_model;

const std::string kExample = std::string(RAILTUNE_SOURCE_DIR) + "/docs/formats/tuner-model.example.json";

formats::RailMap railMap(const std::string& gpu, int speedMbps, std::optional<qp::LinkLayer> linkLayer = {}) {
  formats::RailMap map;
  map.gpu = gpu;
  map.network.linkLayer = linkLayer;
  formats::RailMapHost host;
  formats::RailMapGpu g;
  g.nics.push_back(formats::RailMapNic{"mlx5_0", "ib0", "0000:03:00.0", 1, 0, -1, speedMbps});
  host.gpus.push_back(g);
  map.hosts.push_back(host);
  return map;
}

CommInfo comm(size_t nNodes, int abi) {
  CommInfo c;
  c.nRanks = 4 * nNodes;
  c.nNodes = nNodes;
  c.abiVersion = abi;
  return c;
}

class TunerFitCoverage : public ::testing::Test {
 protected:
  Coverage cover(const formats::RailMap* map, const CommInfo& c) {
    return coverage({model, "model.json", map, "rail-map.json"}, c);
  }
  std::shared_ptr<const tm::TunerModel> model =
      std::make_shared<const tm::TunerModel>(tm::readTunerModelFile(kExample));
};

TEST_F(TunerFitCoverage, GpuNamesCompareAsNcclsDeviceNames) {
  for (const char* gpu : {"NVIDIA GB300", "GB300", "nvidia gb300"}) {
    const formats::RailMap map = railMap(gpu, 800000);
    EXPECT_TRUE(cover(&map, comm(1, 6)).plan) << gpu;
  }
  for (const char* gpu : {"NVIDIA GB200", "NVIDIA GB300X", ""}) {
    const formats::RailMap map = railMap(gpu, 800000);
    const Coverage c = cover(&map, comm(1, 6));
    EXPECT_FALSE(c.plan) << gpu;
    EXPECT_NE(c.reason.find("fits NVIDIA GB300/IB InfiniBand 800G"), std::string::npos) << c.reason;
  }
}

TEST_F(TunerFitCoverage, TheFabricIsTheRailMaps) {
  const formats::RailMap roce = railMap("NVIDIA GB300", 800000, qp::LinkLayer::Ethernet);
  EXPECT_NE(cover(&roce, comm(1, 6)).reason.find("NVIDIA GB300/IB Ethernet 800G (rail map rail-map.json)"),
            std::string::npos);
  const formats::RailMap slower = railMap("NVIDIA GB300", 400000);
  EXPECT_FALSE(cover(&slower, comm(1, 6)).plan);
  const formats::RailMap unstated = railMap("NVIDIA GB300", 0);
  EXPECT_NE(cover(&unstated, comm(1, 6)).reason.find("NIC speed not stated"), std::string::npos);
  const formats::RailMap ib = railMap("NVIDIA GB300", 800000, qp::LinkLayer::InfiniBand);
  EXPECT_TRUE(cover(&ib, comm(1, 6)).plan);
  EXPECT_NE(cover(nullptr, comm(1, 6)).reason.find("no usable rail map"), std::string::npos);
}

TEST_F(TunerFitCoverage, ReleaseFromTheAbiAndVerdictFromTheScale) {
  const formats::RailMap map = railMap("NVIDIA GB300", 800000);
  tm::TunerModel only230 = *model;
  only230.fits[0].appliesTo.nccl = {"2.30"};
  const auto copy = std::make_shared<const tm::TunerModel>(only230);
  EXPECT_TRUE(coverage({copy, "m", &map, "r"}, comm(1, 6)).plan);
  EXPECT_NE(coverage({copy, "m", &map, "r"}, comm(1, 5)).reason.find("NCCL 2.28/2.29 (tuner v5)"), std::string::npos);
  EXPECT_TRUE(coverage({copy, "m", &map, "r"}, comm(1, 4)).plan) << "v3/v4: the approximate table transform";
  // v7 is bound from 2.32.6 on (2.31 still binds v6): a 2.30 fit does not apply, one listing 2.32 does.
  EXPECT_NE(coverage({copy, "m", &map, "r"}, comm(1, 7)).reason.find("NCCL 2.32 (tuner v7)"), std::string::npos);
  tm::TunerModel with232 = only230;
  with232.fits[0].appliesTo.nccl = {"2.30", "2.32"};
  const auto copy232 = std::make_shared<const tm::TunerModel>(with232);
  const Coverage v7 = coverage({copy232, "m", &map, "r"}, comm(1, 7));
  ASSERT_TRUE(v7.plan) << v7.reason;
  EXPECT_TRUE(v7.plan->writeConstants);
  EXPECT_NE(cover(&map, comm(1, 2)).reason.find("tuner v2 gets no cost table"), std::string::npos);
  EXPECT_NE(cover(&map, comm(2, 6)).reason.find("not usable at 2nodes"), std::string::npos);
  EXPECT_NE(cover(&map, comm(5, 6)).reason.find("not usable at 4nodes"), std::string::npos);
}

TEST_F(TunerFitCoverage, ThePlanCorrectsAvailableCellsOnly) {
  const formats::RailMap map = railMap("NVIDIA GB300", 800000);
  Coverage c = cover(&map, comm(1, 6));
  ASSERT_TRUE(c.plan);
  EXPECT_TRUE(c.plan->writeConstants);
  EXPECT_EQ(c.plan->cells.count(), 6) << "Ring/Simple for 5 collectives, NVLS/Simple for AllReduce";
  EXPECT_NE(c.plan->summary.find("8 constants written, 6 cost-table cells corrected"), std::string::npos)
      << c.plan->summary;
  float t[kNumAlgorithms][kNumProtocols];
  for (auto& row : t)
    for (float& v : row) v = 10.0f;
  t[static_cast<int>(Algorithm::Nvls)][static_cast<int>(Protocol::Simple)] = -1.0f;
  c.plan->cells.apply(Collective::AllReduce, CostTableView(t));
  EXPECT_FLOAT_EQ(t[static_cast<int>(Algorithm::Ring)][static_cast<int>(Protocol::Simple)], 9.3f);
  EXPECT_EQ(t[static_cast<int>(Algorithm::Nvls)][static_cast<int>(Protocol::Simple)], -1.0f);
  EXPECT_EQ(t[static_cast<int>(Algorithm::Tree)][static_cast<int>(Protocol::Simple)], 10.0f);
  t[static_cast<int>(Algorithm::Ring)][static_cast<int>(Protocol::Simple)] = 0.0f;  // a cost never falls to 0
  c.plan->cells.apply(Collective::AllGather, CostTableView(t));
  EXPECT_EQ(t[static_cast<int>(Algorithm::Ring)][static_cast<int>(Protocol::Simple)], kMinCostUs);
}

}  // namespace
}  // namespace railtune::tuner::fitted
