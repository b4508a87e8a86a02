#include "cli/demo/tuner.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/tuner/compute.h"
#include "emulator/tuner_decisions/render.h"

namespace railtune::cli {
namespace {

namespace fs = std::filesystem;

struct DemoCommunicator {
  const char* file;  // under DIR/tuner/
  const char* what;
  int ranks;
  int nodes;
  const char* mnnvl;
};

// The default cluster's communicators: nNodes is NCCL's (a rack is one node with MNNVL, a tray without).
constexpr DemoCommunicator kCommunicators[] = {
    {"one-tray.txt", "one tray", 4, 1, "on"},
    {"one-rack-mnnvl.txt", "one rack, MNNVL", 72, 1, "on"},
    {"one-rack-no-mnnvl.txt", "one rack, no MNNVL", 72, 18, "off"},
    {"two-racks-mnnvl.txt", "two racks, MNNVL", 144, 2, "on"},
    {"two-racks-no-mnnvl.txt", "two racks, no MNNVL", 144, 36, "off"},
};

// Rows where the cost model would pick another cell than NCCL (channels aside: the model advises none).
size_t countAdvisedOtherwise(const DecisionsReport& report) {
  size_t n = 0;
  for (const DecisionRow& row : report.rows)
    n += row.model && row.nccl &&
                 (row.model->algorithm != row.nccl->algorithm || row.model->protocol != row.nccl->protocol)
             ? 1
             : 0;
  return n;
}

void writeFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace

int writeDemoTuner(const fs::path& dir, const fs::path& tunerPlugin) {
  const fs::path out = dir / "tuner";
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) throw std::runtime_error("cannot create output folder " + out.string() + ": " + ec.message());
  // The model sizes the network from the rail map the topology part of the demo just wrote (800G CX8).
  const fs::path railMap = dir / "topology" / "rail-map.json";
  if (std::getenv("RAILTUNE_RAIL_MAP") == nullptr && fs::exists(railMap))
    setenv("RAILTUNE_RAIL_MAP", railMap.c_str(), 1);
  std::printf("Tuner decisions (NCCL 2.30, gb300-nvl72, every collective from 8 B to 16 GiB):\n");
  int mismatches = 0;
  std::string rules;
  for (const DemoCommunicator& c : kCommunicators) {
    DecisionsRequest request;
    request.comm = CommunicatorRequest{"gb300-nvl72", c.nodes, c.ranks, c.mnnvl};
    request.pluginPath = tunerPlugin.string();
    const DecisionsReport report = computeDecisions(request);
    writeFile(out / c.file, emu::formatDecisions(report, emu::DecisionsFormat::Table));
    mismatches += static_cast<int>(report.mismatches());
    rules = report.rulesPath;
    std::printf(
        "  %-20s %3d ranks, %2d node(s): %zu decisions, railtune differs from NCCL in %zu, the model would in %zu, "
        "%zu mismatch(es)  tuner/%s\n",
        c.what, c.ranks, c.nodes, report.rows.size(), report.changed().rows, countAdvisedOtherwise(report),
        report.mismatches(), c.file);
  }
  std::printf("Rules: %s. Wrote %s\n\n",
              rules.empty() ? "none (set RAILTUNE_TUNER_CONFIG to see rules applied)" : rules.c_str(), out.c_str());
  return mismatches;
}

}  // namespace railtune::cli
