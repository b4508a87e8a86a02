// `sweep fit`: every fit key's fit, validation and file record (fit.h).
#include "nccl-tests-integration/fit/fit.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <limits>

namespace railtune::sweep {
namespace tm = formats::tuner_model;
namespace {

std::string utcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// Why the options leave a key out, or "".
std::string filteredOut(const FitKey& key, const FitOptions& options) {
  if (!options.gpu.empty() && key.gpu != options.gpu) return "not GPU " + options.gpu + " (--gpu)";
  const std::string transport = key.fabric.transport.empty() ? "nvlink" : key.fabric.transport;
  if (!options.fabric.empty() && transport != options.fabric) return "not fabric " + options.fabric + " (--fabric)";
  return "";
}

// A key whose outputs name no GPU, fitted with --profile: the file names the profile's GPU, and a note says so.
FitKey namedKey(FitKey key, const KeyShapes& shapes, std::vector<std::string>& notes) {
  if (!key.gpu.empty()) return key;
  key.gpu = ncclmodel::gpuForProfile(shapes.profile).value_or(shapes.profile);
  notes.push_back("the outputs name no GPU: fitted as " + key.gpu + ", the GPU of --profile " + shapes.profile);
  return key;
}

// NCCL's constants are the communicator's: a fit made on some collectives moves the others too (plan risk 1).
std::string sharedConstantsNote(const FitKey& key, const tm::Fit& fit) {
  std::string others;
  for (int c = 0; c < formats::kNumCollectives; ++c) {
    const auto coll = static_cast<formats::Collective>(c);
    if (std::find(fit.data.collectives.begin(), fit.data.collectives.end(), coll) != fit.data.collectives.end())
      continue;
    others += std::string(others.empty() ? "" : ", ") + formats::collectiveName(coll);
  }
  if (others.empty()) return "";
  return key.label() + ": the fitted constants are shared by every collective of a communicator: " + others +
         " had no data and move with them, unvalidated";
}

KeyFitReport fitOneKey(const FitPoints& points, const FitKey& key, std::shared_ptr<const KeyShapes> shapes,
                       const FitOptions& options, std::chrono::steady_clock::time_point deadline) {
  KeyFitReport report{key, shapes, {}, {}, {}};
  const formats::CostModelConstants defaults = formats::ncclDefaultConstants(releaseOf(options.nccl));
  KeyFitOptions full = options.fit;
  full.refineOptions.deadline = deadline;
  report.fit = fitKey(points, shapes, nullptr, defaults, full);
  ValidateOptions validate{options.validate, options.sizeTarget, options.shapeTarget, options.threads, deadline, full};
  validate.refit.refineOptions.maxSweeps = std::min(validate.refit.refineOptions.maxSweeps, 5);
  report.validation = validateKey(points, shapes, report.fit, defaults, validate);
  report.verdicts = verdicts(points, report.validation, validate);
  return report;
}

}  // namespace

FitResult fitPoints(const FitPoints& points, const FitOptions& options) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<int64_t>(std::max(options.maxSeconds, 0.0) * 1000));
  FitResult result;
  result.counts = points.counts;
  result.model.generatedBy = options.generatedBy;
  result.model.created = utcNow();
  for (const auto& [key, groups] : points.groupsByFitKey()) {
    if (const std::string why = filteredOut(key, options); !why.empty()) {
      result.skipped.push_back(key.label() + ": " + why);
      continue;
    }
    auto shapes = std::make_shared<const KeyShapes>(buildKeyShapes(points, groups, options.nccl, options.profile));
    result.skipped.insert(result.skipped.end(), shapes->skipped.begin(), shapes->skipped.end());
    if (shapes->groups.empty()) continue;
    KeyFitReport report = fitOneKey(points, namedKey(key, *shapes, result.notes), shapes, options, deadline);
    KeyFitRecord record{report.key,      shapes.get(),       &report.fit,        &report.validation,
                        report.verdicts, options.sizeTarget, options.shapeTarget};
    result.model.fits.push_back(toFileFit(points, record));
    if (std::string note = sharedConstantsNote(report.key, result.model.fits.back()); !note.empty())
      result.notes.push_back(std::move(note));
    result.keys.push_back(std::move(report));
  }
  result.model.notes = result.skipped;
  result.model.notes.insert(result.model.notes.end(), result.notes.begin(), result.notes.end());
  return result;
}

std::optional<Cell> predictPick(const tm::Fit& fit, const ncclmodel::ShapeModel& model, formats::Collective coll,
                                uint64_t bytes, const std::set<Cell>& measured) {
  formats::CostModelConstants c = formats::ncclDefaultConstants(fit.basis.nccl);
  tm::applyFittedConstants(fit, &c);
  const tm::Scale scale = tm::scaleOfNodes(model.shape().nNodes);
  const tm::CommShape shape{model.shape().nRanks, model.shape().nNodes};
  std::optional<Cell> best;
  double bestTime = std::numeric_limits<double>::infinity();
  for (const Cell cell : measured) {
    if (!model.offered(coll, cell.algorithm, cell.protocol)) continue;
    double t = static_cast<double>(model.timeUs(c, coll, cell.algorithm, cell.protocol, static_cast<size_t>(bytes)));
    if (!(t > 0)) continue;
    if (const tm::Correction* k = tm::cellEntry(fit.corrections, coll, cell.algorithm, cell.protocol, scale, &shape))
      t = std::max(k->timeScale * t + k->timeAddUs, 1e-3);
    if (t < bestTime) bestTime = t, best = cell;
  }
  return best;
}

}  // namespace railtune::sweep
