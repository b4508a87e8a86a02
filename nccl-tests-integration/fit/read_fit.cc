// `sweep fit` on dataset files: the rows read as `sweep rules` reads them, and each fit's record of the files it
// was fitted on (fit.h fitDatasets).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>

#include "nccl-tests-integration/fit/fit.h"
#include "nccl-tests-integration/rules/read_datasets.h"

namespace railtune::sweep {
namespace {

// 64-bit FNV-1a over the file's bytes, "fnv1a64:<16 hex digits>".
std::string fileDigest(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  uint64_t h = 0xcbf29ce484222325ull;
  char buffer[1 << 16];
  while (in) {
    in.read(buffer, sizeof buffer);
    for (std::streamsize i = 0; i < in.gcount(); ++i) {
      h ^= static_cast<unsigned char>(buffer[i]);
      h *= 0x100000001b3ull;
    }
  }
  char text[40];
  std::snprintf(text, sizeof text, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
  return text;
}

using RowsByFile = std::map<std::string, std::map<FitGroupKey, uint64_t>>;

// Each fit names the files whose rows it used; a file no fit used a row of is named by every fit with 0 rows, so
// that the file records every dataset it was given (the output's rows line says why they were left out).
void recordDatasets(const RowsByFile& rows, FitResult& result, const FitPoints& points) {
  for (const auto& [path, groups] : rows) {
    const std::string digest = fileDigest(path);
    std::vector<uint64_t> used(result.keys.size(), 0);
    for (size_t k = 0; k < result.keys.size(); ++k)
      for (const size_t g : result.keys[k].shapes->groups)
        if (const auto it = groups.find(points.groups[g].key); it != groups.end()) used[k] += it->second;
    const bool unused = std::all_of(used.begin(), used.end(), [](uint64_t n) { return n == 0; });
    for (size_t k = 0; k < result.keys.size(); ++k)
      if (used[k] > 0 || unused) result.model.fits[k].data.datasets.push_back({path, digest, used[k]});
  }
}

}  // namespace

FitResult fitDatasets(const std::vector<std::string>& paths, const FitOptions& options) {
  PointsBuilder builder(options.netEnv);
  RowsByFile rows;
  // One dataset at a time, so that each fit can name the files it used (a row's source is the nccl-tests output).
  for (const std::string& path : paths) {
    std::map<FitGroupKey, uint64_t>& used = rows[path];
    uint64_t* last = nullptr;
    FitGroupKey lastKey;
    readDatasetRows(
        {path}, options.maxWarnings, options.warn,
        [&](const DatasetRow& row) {
          const size_t before = builder.counts().rowsUsed;
          builder.add(row);
          if (builder.counts().rowsUsed == before) return;
          if (last == nullptr || !inFitGroup(row, lastKey)) {
            lastKey = fitGroupOf(row);
            last = &used[lastKey];
          }
          ++*last;
        },
        [&](const DatasetSource& source) { builder.addSource(source); });
  }
  const FitPoints points = builder.finish();
  FitResult result = fitPoints(points, options);
  recordDatasets(rows, result, points);
  return result;
}

}  // namespace railtune::sweep
