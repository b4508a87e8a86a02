// Diagnostics formatting (fabric/diagnostics.h): the compiler-style line editors and CI logs link to.
#include "fabric/diagnostics.h"

#include <algorithm>

namespace railtune::fabric {

std::string Diagnostic::str() const {
  return loc.str() + (severity == Severity::Error ? ": error: " : ": warning: ") + message;
}

size_t Diagnostics::errorCount() const {
  return static_cast<size_t>(
      std::count_if(items_.begin(), items_.end(), [](const Diagnostic& d) { return d.severity == Severity::Error; }));
}

}  // namespace railtune::fabric
