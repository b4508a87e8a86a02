// Datasets into fit points (points.h).
#include "nccl-tests-integration/fit/points.h"

#include <algorithm>
#include <set>

#include "formats/tuner_rules/rule.h"
#include "nccl-tests-integration/rules/read_datasets.h"

namespace railtune::sweep {
namespace {

namespace rules = formats::tuner_rules;

// The median as statsOf (rules/aggregate.h) takes it (the mean of the two middle values of an even count),
// reordering the samples in place instead of copying them.
double medianInPlace(std::vector<double>& values) {
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  if (values.size() % 2 == 1) return *mid;
  return (*std::max_element(values.begin(), mid) + *mid) / 2;
}

}  // namespace

std::string cellLabel(Cell cell) {
  return std::string(rules::algorithmRuleName(cell.algorithm)) + "/" + rules::protocolRuleName(cell.protocol);
}

std::optional<Cell> cellOf(const Choice& choice) {
  if (!choice.unusable.empty() || choice.channels != 0 || choice.chunkSize != 0) return std::nullopt;
  Cell cell;
  if (!rules::algorithmFromRuleName(choice.algorithm, &cell.algorithm)) return std::nullopt;
  if (!rules::protocolFromRuleName(choice.protocol, &cell.protocol)) return std::nullopt;
  return cell;
}

bool modelledCell(Cell cell) {
  return cell.algorithm != formats::Algorithm::CollNetDirect && cell.algorithm != formats::Algorithm::CollNetChain;
}

const CellPoint* SizePoint::find(Cell cell) const {
  const auto it =
      std::lower_bound(cells.begin(), cells.end(), cell, [](const CellPoint& p, const Cell& c) { return p.cell < c; });
  return it != cells.end() && it->cell == cell ? &*it : nullptr;
}

std::map<FitKey, std::vector<size_t>> FitPoints::groupsByFitKey() const {
  // One-node groups join their GPU's multi-node fabric when the data has exactly one, so that 1, 2 and 4 NVLink
  // domains of one cluster make one fit; with none or several, they make a fit of their own.
  std::map<std::string, std::set<FabricId>> fabricsOfGpu;
  for (const GroupPoints& group : groups)
    if (group.key.group.shape.nodes > 1) fabricsOfGpu[group.key.gpu()].insert(group.key.group.shape.fabric);
  std::map<FitKey, std::vector<size_t>> out;
  for (size_t g = 0; g < groups.size(); ++g) {
    FitKey key = fitKeyOf(groups[g].key);
    const auto fabrics = fabricsOfGpu.find(key.gpu);
    if (groups[g].key.group.shape.nodes <= 1 && fabrics != fabricsOfGpu.end() && fabrics->second.size() == 1)
      key.fabric = *fabrics->second.begin();
    out[key].push_back(g);
  }
  return out;
}

PointMask PointMask::all(const FitPoints& points) {
  PointMask mask;
  for (const GroupPoints& group : points.groups) mask.keep.emplace_back(group.sizes.size(), 1);
  return mask;
}

PointMask PointMask::none(const FitPoints& points) {
  PointMask mask;
  for (const GroupPoints& group : points.groups) mask.keep.emplace_back(group.sizes.size(), 0);
  return mask;
}

void PointsBuilder::addSamples(const DatasetRow& row, TimedSamples& timed) {
  for (const Measurement* half : {&row.outOfPlace, &row.inPlace}) {
    if (half->busbwGBps) timed.samples.busbw.push_back(*half->busbwGBps);
    if (half->timeUs) timed.timeUs.push_back(*half->timeUs);
  }
  timed.samples.addRun(runOf(row));
}

void PointsBuilder::add(const DatasetRow& row) {
  ++counts_.rowsRead;
  switch (rowUse(row)) {
    case RowUse::Impossible:
      ++counts_.rowsImpossible;
      return;
    case RowUse::Wrong:
      ++counts_.rowsWrong;
      return;
    case RowUse::Unusable:
      ++counts_.rowsUnusable;
      return;
    case RowUse::NoShape:
      ++counts_.rowsNoShape;
      return;
    case RowUse::NoMeasurement:
      ++counts_.rowsNoMeasurement;
      return;
    case RowUse::Usable:
      break;
  }
  if (row.netEnv != setting_) {
    ++counts_.rowsOtherNetEnv;
    return;
  }
  if (row.choice.channels != 0 || row.choice.chunkSize != 0) {
    ++counts_.rowsForcedChannelsOrChunk;
    return;
  }
  std::optional<Cell> cell;
  if (!row.choice.isDefault()) {
    cell = cellOf(row.choice);
    if (!cell) {
      ++counts_.rowsPartialChoice;
      return;
    }
    if (!modelledCell(*cell)) {
      ++counts_.rowsNotModelled;
      return;
    }
  }
  if (cell && !row.outOfPlace.timeUs && !row.inPlace.timeUs) {  // a cell is fitted on its time
    ++counts_.rowsNoTime;
    return;
  }
  ++counts_.rowsUsed;
  if (last_ == nullptr || !inFitGroup(row, last_->first)) last_ = &*groups_.try_emplace(fitGroupOf(row)).first;
  SizeSamples& size = last_->second[row.size];
  addSamples(row, cell ? size.cells[*cell] : size.ncclDefault);
}

void PointsBuilder::addSource(const DatasetSource& source) {
  counts_.rowsBadInOutputs += source.badRows;
  counts_.rowsSkippedInOutputs += source.skippedRows;
}

FitPoints PointsBuilder::finish() {
  FitPoints points;
  last_ = nullptr;
  for (auto it = groups_.begin(); it != groups_.end(); it = groups_.erase(it)) {
    GroupPoints& group = points.groups.emplace_back();
    group.key = it->first;
    formats::Collective collective;
    if (rules::collectiveFromRuleName(group.key.group.collective, &collective)) group.collective = collective;
    for (auto& [bytes, samples] : it->second) {
      SizePoint& size = group.sizes.emplace_back();
      size.bytes = bytes;
      Samples& def = samples.ncclDefault.samples;
      if (!def.busbw.empty()) size.defaultBusbw = medianInPlace(def.busbw);
      size.defaultRuns = static_cast<uint32_t>(def.runs.size());
      for (auto& [cell, timed] : samples.cells) {
        Samples& s = timed.samples;
        size.cells.push_back({cell, medianInPlace(timed.timeUs), medianInPlace(s.busbw),
                              static_cast<uint32_t>(s.busbw.size()), static_cast<uint32_t>(s.runs.size())});
      }
    }
  }
  points.counts = counts_;
  counts_ = {};
  return points;
}

std::string pointCountsText(const PointCounts& c) {
  const std::pair<size_t, const char*> reasons[] = {
      {c.rowsOtherNetEnv, "of another network setting (--net-env-rows)"},
      {c.rowsForcedChannelsOrChunk, "forced channels or chunk size (NCCL's model has no term for them)"},
      {c.rowsPartialChoice, "the algorithm or the protocol forced alone"},
      {c.rowsNotModelled, "CollNet (not emulated)"},
      {c.rowsNoTime, "no time in either half"},
      {c.rowsImpossible, "impossible values"},
      {c.rowsWrong, "wrong results (#wrong > 0)"},
      {c.rowsUnusable, "marked unusable"},
      {c.rowsNoShape, "no communicator shape"},
      {c.rowsNoMeasurement, "no measurement"},
      {c.rowsBadInOutputs, "bad in their nccl-tests outputs (sweep parse)"},
      {c.rowsSkippedInOutputs, "skipped in their nccl-tests outputs (sweep parse)"},
  };
  std::string out = std::to_string(c.rowsUsed) + " of " + std::to_string(c.rowsRead) + " rows used";
  std::string left;
  for (const auto& [n, why] : reasons)
    if (n > 0) left += (left.empty() ? "" : ", ") + std::to_string(n) + " " + why;
  return out + (left.empty() ? "" : "; left out: " + left);
}

FitPoints readFitPoints(const std::vector<std::string>& paths, size_t maxWarnings,
                        const std::function<void(std::string_view)>& warn, const NetEnv& setting) {
  PointsBuilder builder(setting);
  readDatasetRows(
      paths, maxWarnings, warn, [&](const DatasetRow& row) { builder.add(row); },
      [&](const DatasetSource& source) { builder.addSource(source); });
  return builder.finish();
}

}  // namespace railtune::sweep
