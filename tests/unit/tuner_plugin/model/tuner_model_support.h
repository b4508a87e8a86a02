// Helpers for the tuner model's tests: communicators, cost tables, rail maps and nccl-tests rows.
#pragma once

#include <array>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/rail_map.h"
#include "tuner_plugin/model/model_inputs.h"

namespace railtune::tuner::model::testing {

// Every collective NCCL asks the tuner about, in NCCL's ncclFunc_t order.
inline constexpr Collective kAllCollectives[] = {Collective::Broadcast, Collective::Reduce, Collective::AllGather,
                                                 Collective::ReduceScatter, Collective::AllReduce};

inline CommInfo comm(size_t nRanks, size_t nNodes) {
  CommInfo c;
  c.nRanks = nRanks;
  c.nNodes = nNodes;
  return c;
}

inline ModelInputs inputs(size_t nRanks, size_t nNodes) {
  BuildMessages messages;
  return makeModelInputs(comm(nRanks, nNodes), nullptr, nullptr, FabricDefaults{}, messages);
}

// A cost table as NCCL hands it: every cell available (NCCL's time does not matter to the model).
struct Table {
  float cells[kNumAlgorithms][kNumProtocols];
  explicit Table(float value = 1.0f) {
    for (auto& row : cells)
      for (float& c : row) c = value;
  }
  CostTableView view() { return CostTableView(cells); }
};

// A rail map: `hosts` hosts of `gpus` GPUs, GPU g on rail g (one NIC each) while g < rails[host].
inline formats::RailMap railMap(const std::vector<int>& railsPerHost, int gpus) {
  nlohmann::json hosts = nlohmann::json::array();
  for (size_t h = 0; h < railsPerHost.size(); ++h) {
    nlohmann::json gpuList = nlohmann::json::array();
    for (int g = 0; g < gpus; ++g) {
      nlohmann::json nics = nlohmann::json::array();
      if (g < railsPerHost[h])
        nics.push_back({{"hca", "mlx5_" + std::to_string(g)},
                        {"netdev", ""},
                        {"bus_id", "0000:0" + std::to_string(g) + ":00.1"},
                        {"port", 1},
                        {"rail", g},
                        {"plane", -1}});
      gpuList.push_back({{"index", g}, {"bus_id", "0000:0" + std::to_string(g) + ":00.0"}, {"nics", nics}});
    }
    hosts.push_back({{"name", "tray-" + std::to_string(h)}, {"domain", "rack-0"}, {"gpus", gpuList}});
  }
  const nlohmann::json doc = {
      {"schema", formats::kRailMapSchema}, {"cluster", "test"}, {"rails", gpus}, {"planes", 1}, {"hosts", hosts}};
  return formats::parseRailMap(doc.dump(), "test-rail-map.json");
}

// One nccl-tests data row: size, out-of-place and in-place busbw.
struct BusBwRow {
  double size = 0, outOfPlace = 0, inPlace = 0;
};

// The data rows of a saved nccl-tests output, in file order ('#' lines are comments, the first is the source).
inline std::vector<BusBwRow> readNcclTestsRows(const std::string& path, std::string& sourceLine) {
  std::ifstream in(path);
  std::vector<BusBwRow> rows;
  std::string line;
  std::getline(in, sourceLine);
  while (std::getline(in, line)) {
    if (line.empty() || line.find_first_not_of(' ') == std::string::npos || line[line.find_first_not_of(' ')] == '#')
      continue;
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string t; fields >> t;) f.push_back(t);
    if (f.size() >= 12) rows.push_back({std::stod(f[0]), std::stod(f[7]), std::stod(f[11])});
  }
  return rows;
}

}  // namespace railtune::tuner::model::testing
