// Gathering a dataset's samples (aggregate.h).
#include "nccl-tests-integration/rules/aggregate.h"

#include <algorithm>
#include <functional>
#include <string>
#include <utility>

#include "nccl-tests-integration/dataset/shape_of.h"
#include "nccl-tests-integration/parse/row_bounds.h"

namespace railtune::sweep {

RowUse rowUse(const DatasetRow& row) {
  if (!rowProblem(row.size, row.count, row.outOfPlace, row.inPlace, false).empty()) return RowUse::Impossible;
  if (!row.valid) return RowUse::Wrong;
  if (!row.choice.unusable.empty()) return RowUse::Unusable;
  if (row.shape.ranks <= 0) return RowUse::NoShape;
  const bool out = row.outOfPlace.busbwGBps.has_value(), in = row.inPlace.busbwGBps.has_value();
  if (row.size == 0 || (!out && !in)) return RowUse::NoMeasurement;
  return RowUse::Usable;
}

void Aggregate::add(const DatasetRow& row) {
  ++rowsRead;
  switch (rowUse(row)) {
    case RowUse::Impossible:
      ++rowsImpossible;
      return;
    case RowUse::Wrong:
      ++rowsWrong;
      return;
    case RowUse::Unusable:
      ++rowsUnusable;
      return;
    case RowUse::NoShape:
      ++rowsNoShape;
      return;
    case RowUse::NoMeasurement:
      ++rowsNoMeasurement;
      return;
    case RowUse::Usable:
      break;
  }
  const bool out = row.outOfPlace.busbwGBps.has_value(), in = row.inPlace.busbwGBps.has_value();
  ++rowsUsed;
  ++rowsOfNetEnv[row.netEnv];
  const auto group = groups.try_emplace(GroupKey{row.collective, row.shape, row.netEnv}).first;
  if (row.shape.source == ShapeSource::Assumed && !unsureDomains.contains(group->first))
    if (std::string warning = unsureDomainsWarning(row.shape); !warning.empty())
      unsureDomains.emplace(group->first, std::move(warning));
  Samples& samples = group->second[row.size][row.choice];
  if (out) samples.busbw.push_back(*row.outOfPlace.busbwGBps);
  if (in) samples.busbw.push_back(*row.inPlace.busbwGBps);
  samples.addRun(runOf(row));
}

uint64_t runOf(const DatasetRow& row) {
  // Two 64-bit mixes (splitmix64's finalizer) over the file's hash, the run and the repeat: a collision would
  // only count two runs as one, which raises the bar (never lowers it).
  const auto mix = [](uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
    return h ^ (h >> 31);
  };
  const uint64_t file = std::hash<std::string>{}(row.source);
  return mix(mix(file, static_cast<uint32_t>(row.run)), static_cast<uint32_t>(row.repeat));
}

void Samples::addRun(uint64_t run) {
  const auto at = std::lower_bound(runs.begin(), runs.end(), run);
  if (at == runs.end() || *at != run) runs.insert(at, run);
}

void Samples::addRuns(const Samples& other) {
  for (uint64_t run : other.runs) addRun(run);
}

ChoiceStats statsOf(const Samples& samples) {
  ChoiceStats stats;
  stats.samples = static_cast<int>(samples.busbw.size());
  stats.runs = static_cast<int>(samples.runs.size());
  if (samples.busbw.empty()) return stats;
  std::vector<double> sorted = samples.busbw;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  stats.median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  stats.spread = stats.median > 0 ? (sorted.back() - sorted.front()) / stats.median : 0;
  return stats;
}

}  // namespace railtune::sweep
