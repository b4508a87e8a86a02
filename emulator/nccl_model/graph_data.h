// The graph values NCCL's topology search produces for a hardware profile, per communicator shape, read
// from emulator/data/graphs/<profile>.json (compiled in; schema docs/formats/nccl-graph-data.schema.json).
// Every number in those files names its source; the reader keeps the values only.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "emulator/nccl_model/nccl_model.h"

namespace railtune::ncclmodel {

// A bad graph data file: the message names the file and the JSON path of the offending value.
class GraphDataError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One communicator shape of a profile: which (nRanks, nNodes) it covers and the facts per NCCL version.
struct GraphShape {
  std::string name;         // "one-tray", "two-racks-mnnvl", ...
  std::string description;  // what a user would call it
  int ranksPerNode = 0;     // nRanks / nNodes, exactly
  int minNodes = 1;
  int maxNodes = 0;        // 0: no upper bound
  TopologyFacts facts[2];  // [0] NCCL 2.28, [1] NCCL 2.30

  bool covers(const CommShape& s) const;
  const TopologyFacts& factsFor(NcclVersion v) const { return facts[v == NcclVersion::V2_28 ? 0 : 1]; }
};

struct GraphData {
  std::string profile;  // "gb300-nvl72"
  std::vector<GraphShape> shapes;

  // The shape covering a communicator; throws GraphDataError listing the shapes the profile has.
  const GraphShape& shapeFor(const CommShape& s) const;
};

// Parses one graph data file. `origin` names it in errors.
GraphData parseGraphData(const std::string& text, const std::string& origin);

// The compiled-in files: gb300-nvl72, gb200-nvl72, dgx-h100, dgx-b200.
std::vector<std::string> builtinGraphProfiles();
// Throws GraphDataError naming the known profiles when `profile` is not one of them.
const GraphData& builtinGraphData(const std::string& profile);

}  // namespace railtune::ncclmodel
