// libFuzzer target for the served GPU's parsers (net_plugin/served_gpu.h): the PCI bus id as CUDA or
// the rail map spells it, and LOCAL_RANK. The input is "<bus id a>\n<bus id b>\n<LOCAL_RANK>". Besides
// crashes and sanitizer reports it checks that the comparison is symmetric and reflexive on what it
// accepts, and that a GPU is found only where the map lists it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "formats/rail_map.h"
#include "net_plugin/served_gpu.h"

namespace {

void require(bool promise) {
  if (!promise) std::abort();
}

std::string takeLine(std::string_view* rest) {
  const size_t newline = rest->find('\n');
  const std::string line(rest->substr(0, newline));
  *rest = newline == std::string_view::npos ? std::string_view{} : rest->substr(newline + 1);
  return line;
}

std::string gLocalRank;
std::optional<std::string> fuzzEnv(const char* name) {
  if (std::string_view(name) == "LOCAL_RANK") return gLocalRank;
  return std::nullopt;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  const std::string a = takeLine(&rest), b = takeLine(&rest);
  gLocalRank = takeLine(&rest);
  require(railtune::net::sameBusId(a, b) == railtune::net::sameBusId(b, a));
  if (railtune::net::sameBusId(a, b)) require(railtune::net::sameBusId(a, a));

  railtune::formats::RailMapHost host;
  railtune::formats::RailMapGpu gpu;
  gpu.index = 5;
  gpu.busId = b;
  railtune::formats::RailMapNic nic;
  nic.rail = 2;
  gpu.nics.push_back(nic);
  host.gpus.push_back(gpu);
  const railtune::net::ServedGpu byCuda = railtune::net::resolveServedGpu(a, &host, fuzzEnv);
  require(byCuda.index == (railtune::net::sameBusId(a, b) ? 5 : -1));
  const railtune::net::ServedGpu byRank = railtune::net::resolveServedGpu(std::nullopt, &host, fuzzEnv);
  require(byRank.index >= -1 && byRank.index <= 4096 && !byRank.source.empty());
  const int rail = railtune::net::expectedRail(&host, byRank.index);
  require(rail == (byRank.index == 5 ? 2 : -1));
  return 0;
}
