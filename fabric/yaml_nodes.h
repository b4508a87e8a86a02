// Typed, position-aware access to the maps of a cluster description (yaml-cpp). Every failure
// throws FabricError at the offending key or value's file:line:column; unknown and duplicated keys are
// errors so a misspelt or repeated key never silently falls back to a default or to one of two values.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "fabric/diagnostics.h"

namespace railtune::fabric::yaml {

SourceLoc locOf(const std::string& file, const YAML::Node& node);

// While one is alive on this thread, MapReader records unknown and duplicated keys in `out` and the
// reading goes on with the first of two duplicated keys, so that `railtune topo check` reports every
// such key in one run; without one, the first such key throws FabricError.
class CollectKeyProblems {
 public:
  explicit CollectKeyProblems(Diagnostics& out);
  ~CollectKeyProblems();
  CollectKeyProblems(const CollectKeyProblems&) = delete;
  CollectKeyProblems& operator=(const CollectKeyProblems&) = delete;

 private:
  Diagnostics* previous_;
};

class MapReader {
 public:
  // `what` names the map in messages ("host", "nic"); `allowed` are its keys.
  MapReader(const YAML::Node& node, std::string file, std::string what, std::initializer_list<const char*> allowed);

  bool has(const char* key) const { return static_cast<bool>(node_[key]); }
  SourceLoc loc() const { return yaml::locOf(file_, node_); }
  SourceLoc locOf(const char* key) const;
  const std::string& file() const { return file_; }

  void require(const char* key) const;
  int integer(const char* key, int fallback, int min, int max) const;
  std::string text(const char* key, const std::string& fallback) const;
  std::optional<bool> boolean(const char* key) const;  // true/false; nullopt when absent
  std::string busId(const char* key, const std::string& fallback) const;
  uint64_t guid(const char* key, uint64_t fallback) const;
  std::vector<std::string> texts(const char* key) const;
  YAML::Node sequence(const char* key) const;  // empty node when absent
  YAML::Node map(const char* key) const;       // empty node when absent
  [[noreturn]] void fail(const char* key, const std::string& message) const;

 private:
  YAML::Node node_;
  std::string file_;
  std::string what_;
};

}  // namespace railtune::fabric::yaml
