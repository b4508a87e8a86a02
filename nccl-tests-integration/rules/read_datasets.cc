// Reading datasets for the rules and the report (read_datasets.h).
#include "nccl-tests-integration/rules/read_datasets.h"

#include <stdexcept>

namespace railtune::sweep {
namespace {

// "DATASET: sweep parse dropped N bad rows of OUTPUT (line L: why); M rows skipped (collective unknown)", or ""
// when the output lost nothing.
std::string droppedRows(const std::string& path, const DatasetSource& source) {
  if (source.badRows == 0 && source.skippedRows == 0) return "";
  std::string line = path + ": sweep parse dropped " + std::to_string(source.badRows) + " bad rows of " + source.source;
  if (!source.bad.empty()) line += " (line " + std::to_string(source.bad[0].first) + ": " + source.bad[0].second + ")";
  if (source.skippedRows > 0) line += "; " + std::to_string(source.skippedRows) + " rows skipped (collective unknown)";
  return line;
}

}  // namespace

// Rows NCCL may have run without the tuner (call_mode.h), by why: never pooled with tuned rows.
struct Untuned {
  size_t symmetric = 0, deviceApi = 0, symVariables = 0;
  size_t total() const { return symmetric + deviceApi + symVariables; }
  bool take(const DatasetRow& row) {
    if (!mayBypassTuner(row.call, row.collective, row.shape.nodes, row.env)) return false;
    ++(row.call.deviceImpl > 0 ? deviceApi : row.call.registration == 2 ? symmetric : symVariables);
    return true;
  }
  std::string line() const {
    return std::to_string(total()) + " rows NCCL may have run without the tuner left out (" +
           std::to_string(symmetric) + " with symmetric windows, -R 2; " + std::to_string(deviceApi) +
           " nccl-tests device-API kernels, -D; " + std::to_string(symVariables) +
           " under NCCL_SYM_KERNEL or NCCL_SYM_NOWIN_ENABLE): tuned rows only";
  }
};

void readDatasetRows(const std::vector<std::string>& paths, size_t maxWarnings,
                     const std::function<void(std::string_view)>& warn, const DatasetSink& rows,
                     const DatasetSourceSink& sources) {
  size_t rowsRead = 0;
  Untuned untuned;
  std::vector<DatasetDiagnostic> diagnostics;
  std::vector<std::string> dropped;  // what sweep parse could not use, as the datasets record it
  for (const std::string& path : paths)
    readDatasetFile(
        path,
        [&](const DatasetRow& row) {
          if (untuned.take(row)) return;
          ++rowsRead;
          rows(row);
        },
        diagnostics,
        [&](const DatasetSource& source) {
          if (sources) sources(source);
          if (std::string line = droppedRows(path, source); !line.empty()) dropped.push_back(std::move(line));
        });
  for (size_t i = 0; i < dropped.size() && i < maxWarnings; ++i) warn(dropped[i]);
  if (dropped.size() > maxWarnings)
    warn("... and " + std::to_string(dropped.size() - maxWarnings) + " more outputs with rows dropped");
  size_t shown = 0;
  for (const DatasetDiagnostic& d : diagnostics) {
    if (shown++ == maxWarnings) {
      warn("... and " + std::to_string(diagnostics.size() - maxWarnings) + " more lines skipped");
      break;
    }
    warn(d.source + ":" + std::to_string(d.line) + ": " + d.message + "; line skipped");
  }
  if (untuned.total() > 0) warn(untuned.line());
  if (rowsRead == 0 && untuned.total() > 0)
    throw std::runtime_error("every row of " + std::string(paths.size() == 1 ? paths[0] : "the inputs") + ": " +
                             untuned.line() + "; sweep again without -R 2 and -D for the tuner's rules");
  if (rowsRead == 0)
    throw std::runtime_error("no sweep dataset rows in " + std::string(paths.size() == 1 ? paths[0] : "the inputs") +
                             " (railtune sweep parse writes them)");
}

Aggregate readDatasets(const std::vector<std::string>& paths, size_t maxWarnings,
                       const std::function<void(std::string_view)>& warn,
                       const std::function<bool(const DatasetRow&)>& keep, size_t* left) {
  Aggregate aggregate;
  readDatasetRows(
      paths, maxWarnings, warn,
      [&](const DatasetRow& row) {
        if (!keep || keep(row))
          aggregate.add(row);
        else if (left != nullptr)
          ++*left;
      },
      [&](const DatasetSource& source) { aggregate.addSource(source); });
  for (const auto& [key, warning] : aggregate.unsureDomains)
    warn(key.collective + ", " + key.shape.counts() + ": " + warning);
  return aggregate;
}

}  // namespace railtune::sweep
