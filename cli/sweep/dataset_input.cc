// Reading datasets for the rules and the report (dataset_input.h).
#include "cli/sweep/dataset_input.h"

#include <iostream>
#include <stdexcept>

namespace railtune::cli {

sweep::Aggregate readDatasets(const std::vector<std::string>& paths, size_t maxWarnings) {
  sweep::Aggregate aggregate;
  std::vector<sweep::DatasetDiagnostic> diagnostics;
  for (const std::string& path : paths)
    sweep::readDatasetFile(
        path, [&](const sweep::DatasetRow& row) { aggregate.add(row); }, diagnostics);
  size_t shown = 0;
  for (const sweep::DatasetDiagnostic& d : diagnostics) {
    if (shown++ == maxWarnings) {
      std::cerr << "railtune: warning: ... and " << diagnostics.size() - maxWarnings << " more lines skipped\n";
      break;
    }
    std::cerr << "railtune: warning: " << d.source << ":" << d.line << ": " << d.message << "; line skipped\n";
  }
  if (aggregate.rowsRead == 0)
    throw std::runtime_error("no sweep dataset rows in " + std::string(paths.size() == 1 ? paths[0] : "the inputs") +
                             " (railtune sweep parse writes them)");
  return aggregate;
}

}  // namespace railtune::cli
