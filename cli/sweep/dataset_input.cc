// Reading datasets for the rules and the report (dataset_input.h).
#include "cli/sweep/dataset_input.h"

#include <iostream>
#include <stdexcept>

namespace railtune::cli {

sweep::Aggregate readDatasets(const std::vector<std::string>& paths, size_t maxWarnings) {
  sweep::Aggregate aggregate;
  std::vector<sweep::DatasetDiagnostic> diagnostics;
  std::vector<std::string> dropped;  // what sweep parse could not use, as the datasets record it
  for (const std::string& path : paths)
    sweep::readDatasetFile(
        path, [&](const sweep::DatasetRow& row) { aggregate.add(row); }, diagnostics,
        [&](const sweep::DatasetSource& source) {
          aggregate.addSource(source);
          if (source.badRows == 0 && source.skippedRows == 0) return;
          std::string line =
              path + ": sweep parse dropped " + std::to_string(source.badRows) + " bad rows of " + source.source;
          if (!source.bad.empty())
            line += " (line " + std::to_string(source.bad[0].first) + ": " + source.bad[0].second + ")";
          if (source.skippedRows > 0)
            line += "; " + std::to_string(source.skippedRows) + " rows skipped (collective unknown)";
          dropped.push_back(std::move(line));
        });
  for (size_t i = 0; i < dropped.size() && i < maxWarnings; ++i)
    std::cerr << "railtune: warning: " << dropped[i] << "\n";
  if (dropped.size() > maxWarnings)
    std::cerr << "railtune: warning: ... and " << dropped.size() - maxWarnings << " more outputs with rows dropped\n";
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
