// One rank's view of the tuner, for the consistency test (tuner_consistency.sh): loads the real
// libnccl-tuner-railtune.so through the emulator, runs a grid of communicator scales x collectives
// x sizes (8 B .. 16 GiB) with the cost tables emulated NCCL hands a GB300 NVL72 tuner, and prints
// NCCL's resulting pick and channels for each (costed at the constants the tuner left NCCL, as NCCL does), a
// fingerprint of those constants, then the configuration digest the plugin logged.
// Every rank of a job must print exactly the same, whatever its host, local rank or HCAs.
//   tuner_consistency_probe PLUGIN 2.28|2.30 VERSION
#include <cstdio>
#include <cstring>
#include <string>

#include "emulator/logger.h"
#include "emulator/nccl_model/emulated_nccl.h"
#include "emulator/tuner_driver.h"

namespace {

using railtune::emu::NcclBehaviour;
using railtune::ncclmodel::NcclVersion;

struct Scale {
  size_t nRanks, nNodes;
};
// One tray; one rack with MNNVL (one node) and without (18); two racks with MNNVL and without.
constexpr Scale kScales[] = {{4, 1}, {72, 1}, {72, 18}, {144, 2}, {144, 36}};

std::string digestFromLog() {
  for (const std::string& line : railtune::emu::takePluginLog())
    if (size_t at = line.find("config digest "); at != std::string::npos) return line.substr(at, 30);
  return "no digest logged";
}

// FNV-1a over the constants' bytes: every rank must leave NCCL the same constants.
std::string constantsHex(const ncclTunerConstants_v5_t& constants) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  const auto* bytes = reinterpret_cast<const unsigned char*>(&constants);
  for (size_t i = 0; i < sizeof(constants); ++i) hash = (hash ^ bytes[i]) * 0x100000001b3ULL;
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

int run(const char* plugin, bool v230, int version) {
  const railtune::emu::Binding binding =
      railtune::emu::Loader::bindVersion(railtune::emu::PluginKind::Tuner, plugin, version);
  if (!binding) return std::fprintf(stderr, "cannot bind ncclTunerPlugin_v%d in %s\n", version, plugin), 2;
  const NcclBehaviour behaviour = v230 ? NcclBehaviour::V2_30 : NcclBehaviour::V2_28;
  const NcclVersion model = v230 ? NcclVersion::V2_30 : NcclVersion::V2_28;
  std::string digest;
  for (const Scale& s : kScales) {
    railtune::emu::TunerDriver driver(binding);
    ncclTunerConstants_v5_t constants = railtune::emu::defaultTunerConstants(behaviour);
    const int perNode = static_cast<int>(s.nRanks / s.nNodes);
    if (driver.init(0xc0ffee, s.nRanks, s.nNodes, {static_cast<int>(s.nNodes), perNode, perNode}, &constants) != 0)
      return std::fprintf(stderr, "init failed\n"), 1;
    digest = digestFromLog();
    // NCCL reads the constants back after init (a fitted model writes them) and costs every call with them.
    railtune::formats::CostModelConstants tuned;
    std::memcpy(&tuned, &constants, sizeof(tuned));
    std::printf("%zu/%zu constants %s\n", s.nRanks, s.nNodes, constantsHex(constants).c_str());
    const railtune::ncclmodel::EmulatedNccl nccl(model, "gb300-nvl72",
                                                 {static_cast<int>(s.nRanks), static_cast<int>(s.nNodes)}, {}, tuned);
    for (int c = 0; c < 5; ++c)
      for (size_t bytes = 8; bytes <= (size_t{16} << 30); bytes *= 2) {
        railtune::emu::CostTable table;
        railtune::ncclmodel::copyTo(nccl.costTable(static_cast<railtune::formats::Collective>(c), bytes), table);
        int nChannels = 0, algorithm = -1, protocol = -1;
        driver.getCollInfo(static_cast<ncclFunc_t>(c), bytes, 1, table, 0, &nChannels);
        railtune::emu::pickFromCostTable(table, &algorithm, &protocol);
        std::printf("%zu/%zu coll %d bytes %zu: algo %d proto %d channels %d\n", s.nRanks, s.nNodes, c, bytes,
                    algorithm, protocol, nChannels);
      }
    driver.finalize();
  }
  std::printf("%s\n", digest.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) return std::fprintf(stderr, "usage: %s PLUGIN 2.28|2.30 VERSION\n", argv[0]), 2;
  return run(argv[1], std::strcmp(argv[2], "2.30") == 0, std::atoi(argv[3]));
}
