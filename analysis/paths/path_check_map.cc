// The rail map indexed for the check (path_check_map.h).
#include "analysis/paths/path_check_map.h"

#include <algorithm>
#include <set>

namespace railtune::analysis::paths::detail {
namespace {

std::string key(const std::string& host, const std::string& item) {
  return host + '\n' + item;
}

}  // namespace

RailMapIndex::RailMapIndex(const formats::RailMap* map) {
  if (map == nullptr) return;
  present_ = true;
  std::set<int> rails;
  for (int r = 0; r < map->rails; ++r) rails.insert(r);
  for (const formats::RailMapHost& host : map->hosts) {
    for (const formats::RailMapGpu& gpu : host.gpus) {
      std::vector<int>& gpuRails = gpus_[key(host.name, std::to_string(gpu.index))];
      for (const formats::RailMapNic& nic : gpu.nics) {
        nics_.emplace(key(host.name, nic.hca), nic.rail);
        if (nic.rail >= 0) rails.insert(nic.rail);
        if (std::find(gpuRails.begin(), gpuRails.end(), nic.rail) == gpuRails.end()) gpuRails.push_back(nic.rail);
      }
    }
  }
  rails_.assign(rails.begin(), rails.end());
}

std::optional<int> RailMapIndex::nicRail(const std::string& host, const std::string& hca) const {
  const auto it = nics_.find(key(host, hca));
  if (it == nics_.end() || it->second < 0) return std::nullopt;
  return it->second;
}

const std::vector<int>* RailMapIndex::gpuRails(const std::string& host, int gpu) const {
  if (gpu < 0) return nullptr;
  const auto it = gpus_.find(key(host, std::to_string(gpu)));
  return it == gpus_.end() || it->second.empty() ? nullptr : &it->second;
}

}  // namespace railtune::analysis::paths::detail
