// What `railtune topo check` reports: a list of findings, each with a severity, the place that
// declared the offending value and a message. Every check (the fabric's own in validate.h, the NCCL
// XML limits and topology-file-vs-rail-map checks in topo_gen/) appends to the same list.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "fabric/model.h"

namespace railtune::fabric {

enum class Severity { Error, Warning };

struct Diagnostic {
  Severity severity = Severity::Error;
  SourceLoc loc;
  std::string message;
  std::string str() const;  // "file:line:column: error: message"
};

class Diagnostics {
 public:
  void add(Diagnostic diagnostic) { items_.push_back(std::move(diagnostic)); }
  void error(const SourceLoc& loc, std::string message) { add({Severity::Error, loc, std::move(message)}); }
  void warning(const SourceLoc& loc, std::string message) { add({Severity::Warning, loc, std::move(message)}); }

  const std::vector<Diagnostic>& all() const { return items_; }
  size_t errorCount() const;
  bool hasErrors() const { return errorCount() > 0; }

 private:
  std::vector<Diagnostic> items_;
};

// A cluster description that cannot be read: thrown by the YAML reader and the profile loader.
// what() is diagnostic.str(), so a caller that only prints it still names file:line:column.
class FabricError : public std::runtime_error {
 public:
  explicit FabricError(Diagnostic d) : std::runtime_error(d.str()), diagnostic_(std::move(d)) {}
  FabricError(const SourceLoc& loc, const std::string& message)
      : FabricError(Diagnostic{Severity::Error, loc, message}) {}
  const Diagnostic& diagnostic() const { return diagnostic_; }

 private:
  Diagnostic diagnostic_;
};

}  // namespace railtune::fabric
