// libFuzzer target for the measured network settings reader (formats/net_env.h), which `railtune topo env
// --measured` and `topo rail-map --measured` run on a user's file. Besides crashes and sanitizer reports it checks
// the reader's promises: every rejection names the source; an accepted file's entries have two nodes or more,
// variables that pass the value checks, ordered gains and ascending sizes; it writes back to a file that reads
// equal; and choosing an entry for a cluster keeps to what the file holds.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "formats/net_env.h"
#include "formats/net_env_pick.h"

namespace {

using namespace railtune::formats;

void require(bool promise) {
  if (!promise) std::abort();
}

void checkAccepted(const NetEnvFile& file) {
  for (const NetEnvEntry& e : file.entries) {
    require(e.shape.nodes >= 2 && !e.env.empty());
    for (const auto& [name, value] : e.env)
      require(measuredNameProblem(name).empty() && measuredValueProblem(name, value).empty());
    const NetEnvEvidence& ev = e.evidence;
    require(ev.minGain <= ev.medianGain && ev.medianGain <= ev.maxGain && ev.runs >= 1 && !ev.sizes.empty());
    for (size_t i = 1; i < ev.sizes.size(); ++i) require(ev.sizes[i - 1] < ev.sizes[i]);
  }
  require(parseNetEnv(writeNetEnv(file), "again.json") == file);
  const NetEnvChoice choice = chooseNetEnv(file, {"B300", true, "RoCE", 800}, "fuzz.json");
  if (choice.entry) require(choice.measured.source.rfind("measured: fuzz.json, ", 0) == 0);
  if (!choice.entry) require(!choice.measured.any() && choice.notes.size() == 1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    checkAccepted(parseNetEnv(text, "fuzz.json"));
  } catch (const NetEnvError& e) {
    require(std::string(e.what()).rfind("fuzz.json", 0) == 0);
  }
  return 0;
}
