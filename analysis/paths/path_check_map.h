// The rail map as the check asks it: which rail a host's HCA is on, which rails a host's GPU maps to.
// Indexed once, since a large job asks it for every connection. Internal to railtune_paths.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "formats/rail_map.h"

namespace railtune::analysis::paths::detail {

class RailMapIndex {
 public:
  explicit RailMapIndex(const formats::RailMap* map);

  bool present() const { return present_; }
  // The rail of `hca` on `host`; empty when the map does not list it.
  std::optional<int> nicRail(const std::string& host, const std::string& hca) const;
  // The rails of the NICs the map binds GPU `gpu` of `host` to; null when the map does not list it.
  const std::vector<int>* gpuRails(const std::string& host, int gpu) const;
  // Every rail of the plan, ascending.
  const std::vector<int>& rails() const { return rails_; }

 private:
  bool present_ = false;
  std::unordered_map<std::string, int> nics_;               // "host\nhca" → rail
  std::unordered_map<std::string, std::vector<int>> gpus_;  // "host\ngpu" → rails
  std::vector<int> rails_;
};

}  // namespace railtune::analysis::paths::detail
