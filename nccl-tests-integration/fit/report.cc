// `sweep fit`'s printed report (report.h).
#include "nccl-tests-integration/fit/report.h"

#include "common/printed.h"

namespace railtune::sweep {
namespace {

std::string constantsText(const KeyFitReport& key) {
  std::string out = "  constants moved (NCCL's, fitted):\n";
  const formats::CostModelConstants defaults = formats::ncclDefaultConstants(releaseOf(key.shapes->version));
  size_t kept = 0, moved = 0;
  for (const ConstantEntry& e : key.fit.stageB.entries) {
    if (!e.identified) {
      ++kept;
      continue;
    }
    ++moved;
    out += printed("    %-44s %10.3f %10.3f\n", ncclmodel::constName(e.id), ncclmodel::constValue(defaults, e.id),
                   ncclmodel::constValue(key.fit.model->constants, e.id));
  }
  if (moved == 0) out += "    none\n";
  if (key.fit.stageB.entries.empty())  // no usable line: stage B saw no constant to keep or move
    out +=
        printed("  constants kept at NCCL's: every one (%zu of %zu measured lines poor: none identifies a constant)\n",
                key.fit.poorLines, key.fit.lines);
  else
    out += printed("  constants kept at NCCL's (the data does not identify them): %zu\n", kept);
  return out;
}

std::string correctionsText(const KeyFitReport& key) {
  if (key.fit.corrections.empty()) return "  corrections: none\n";
  std::string out = "  corrections (t' = k*t + c on NCCL's cost, where no constant can express it):\n";
  for (const Correction& c : key.fit.corrections) {
    const std::string at = c.key.shape ? formats::tuner_model::commShapeLabel(*c.key.shape) + " only"
                                       : std::string(scaleBucketLabel(c.key.scale));
    out += printed("    %-12s %-16s k %.3f c %+.2f us: ", cellLabel(c.key.cell).c_str(), at.c_str(), c.timeScale,
                   c.timeAddUs) +
           (c.key.shape ? shapeCorrectionWhy(c) : correctionWhy(c.key.cell)) + "\n";
  }
  return out;
}

std::string scoreLine(const char* name, const RegretScore& s, const std::string& note) {
  // The note goes after the formatted part: a list of held-out shapes is longer than format's buffer.
  if (s.model.points == 0) return printed("    %-22s %7s  ", name, "-") + note + "\n";
  if (s.ncclDefault.points == 0)  // not scored there (between measured sizes)
    return printed("    %-22s %7zu %8.1f %% %8.1f %%  %10s %10s  ", name, s.model.points, s.model.worst * 100,
                   s.model.mean * 100, "-", "-") +
           note + "\n";
  return printed("    %-22s %7zu %8.1f %% %8.1f %%  %8.1f %% %8.1f %%  ", name, s.model.points, s.model.worst * 100,
                 s.model.mean * 100, s.ncclDefault.worst * 100, s.ncclDefault.mean * 100) +
         note + "\n";
}

std::string validationText(const KeyFitReport& key) {
  const KeyValidation& v = key.validation;
  std::string out = "  validation (regret = best measured busbw / busbw of the pick - 1):\n";
  out += printed("    %-22s %7s %10s %10s  %10s %10s\n", "", "points", "worst", "mean", "default worst", "mean");
  out += scoreLine("in-sample", v.inSample, "");
  const std::string notRun = v.ran ? "" : "not run (--no-validate)";
  out +=
      scoreLine("leave one size out", v.sizeOut.merged, v.ran ? printed("%zu sizes held out", v.sizeSplits) : notRun);
  out += scoreLine("between measured sizes", v.betweenSizes.merged, "the final fit at the midpoints, interpolated");
  std::string shapes;
  for (const std::string& s : v.heldOutShapes) shapes += (shapes.empty() ? "" : "; ") + s;
  out += scoreLine("leave one shape out", v.shapeOut.merged,
                   !v.ran           ? notRun
                   : shapes.empty() ? "no shape to hold out"
                                    : "held out: " + shapes);
  for (const std::string& m : v.sizeMisses) out += "    held-out size above target: " + m + "\n";
  for (const std::string& m : v.shapeMisses) out += "    held-out shape above target: " + m + "\n";
  if (v.truncated) out += "    validation truncated by --max-seconds: not usable\n";
  out += "  verdict:\n";
  for (int b = 0; b < kScaleBuckets; ++b) {
    const BucketVerdict& verdict = key.verdicts[b];
    // A measured-shapes verdict's why starts "usable only at the measured shapes (...)": it says it all.
    const char* label = verdict.usable ? "usable: " : verdict.measuredShapesUsable ? "" : "not usable: ";
    out += printed("    %-16s %s", scaleBucketLabel(b), label) + verdict.why + "\n";
  }
  return out;
}

}  // namespace

std::string renderFitReport(const FitResult& result) {
  std::string out;
  for (const KeyFitReport& key : result.keys) {
    out += printed("%s: hardware profile %s, emulated NCCL %s graphs, %zu groups, %zu measured lines (%zu poor)\n",
                   key.key.label().c_str(), key.shapes->profile.c_str(),
                   key.shapes->version == ncclmodel::NcclVersion::V2_28 ? "2.28" : "2.30", key.shapes->groups.size(),
                   key.fit.lines, key.fit.poorLines);
    out += constantsText(key) + correctionsText(key);
    if (key.fit.refined.moved)
      out += printed("  refinement: in-sample mean regret %.2f %% -> %.2f %% (%d sweeps)\n",
                     key.fit.refined.before.model.mean * 100, key.fit.refined.after.model.mean * 100,
                     key.fit.refined.sweeps);
    out += validationText(key);
  }
  out += "rows: " + pointCountsText(result.counts) + "\n";
  for (const std::string& s : result.skipped) out += "skipped: " + s + "\n";
  for (const std::string& s : result.notes) out += "note: " + s + "\n";
  return out;
}

}  // namespace railtune::sweep
