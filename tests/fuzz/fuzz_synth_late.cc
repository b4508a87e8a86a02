// libFuzzer target for `railtune paths synth --late LEVEL:INDEX:DELAY_US[:SHARE]`
// (analysis/synth/offenders.h). Each input line is one --late value, named on a fixed job of 32 ranks
// on 8 trays in 2 racks. Besides crashes and sanitizer reports it checks the promises: a value is
// either parsed or refused with a SynthError naming it; named offenders either are refused with a
// SynthError or cover at least one rank each, never share a rank, and are late by exactly their delay
// or not at all.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/synth/offenders.h"
#include "analysis/synth/placement.h"
#include "formats/rail_map.h"

namespace {

using namespace railtune::analysis::synth;  // NOLINT(google-build-using-namespace): the code under test

void require(bool promise) {
  if (!promise) std::abort();
}

const JobPlacement& job() {
  static const railtune::formats::RailMap map = [] {
    std::string hosts;
    for (int tray = 0; tray < 8; ++tray) {
      std::string gpus;
      for (int g = 0; g < 4; ++g) {
        const std::string bus = "0000:1" + std::to_string(g) + ":00.0";
        gpus += std::string(g ? "," : "") + "{\"index\":" + std::to_string(g) + ",\"bus_id\":\"" + bus +
                "\",\"nics\":[{\"hca\":\"mlx5_" + std::to_string(g) + "\",\"netdev\":\"\",\"bus_id\":\"" + bus +
                "\",\"port\":1,\"rail\":" + std::to_string(g) + ",\"plane\":-1,\"speed_mbps\":400000}]}";
      }
      hosts += std::string(tray ? "," : "") + "{\"name\":\"r" + std::to_string(tray / 4) + "-t" +
               std::to_string(tray % 4) + "\",\"domain\":\"r" + std::to_string(tray / 4) + "\",\"gpus\":[" + gpus +
               "]}";
    }
    return railtune::formats::parseRailMap(
        "{\"schema\":\"railtune.rail_map.v1\",\"cluster\":\"fuzz\",\"rails\":4,\"planes\":1,\"hosts\":[" + hosts + "]}",
        "fuzz rail map");
  }();
  static const JobPlacement placed = placeJob(map, 32, true);
  return placed;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<NamedOffender> named;
  for (size_t start = 0; start <= input.size() && named.size() < 8;) {
    const size_t end = std::min(input.find('\n', start), input.size());
    // A command-line value cannot hold a NUL: the text is the line up to its first.
    const std::string_view line = input.substr(start, end - start);
    const std::string text(line.substr(0, line.find('\0')));
    start = end + 1;
    try {
      named.push_back(parseNamedOffender(text));
    } catch (const SynthError& e) {
      require(std::string(e.what()).starts_with("--late " + text + ": "));
    }
  }
  try {
    const Offenders o = nameOffenders(job(), named);
    require(o.list.size() == named.size() && o.named.size() == named.size());
    std::vector<int> owners(job().ranks.size(), -1);
    for (size_t i = 0; i < o.list.size(); ++i) {
      require(!o.list[i].ranks.empty());
      for (int r : o.list[i].ranks) {
        require(owners[static_cast<size_t>(r)] == -1);  // no rank shared
        owners[static_cast<size_t>(r)] = static_cast<int>(i);
        require(o.ofRank[static_cast<size_t>(r)] == static_cast<int>(i));
      }
      for (uint64_t seq = 0; seq < 16; ++seq) {
        const int64_t delay = o.delayNs(1, static_cast<int>(i), seq);
        require(delay == 0 || delay == named[i].delayNs);
      }
      require(o.delayNs(1, static_cast<int>(i), 0) == named[i].delayNs);  // late from the first collective
    }
  } catch (const SynthError&) {
  }
  return 0;
}
