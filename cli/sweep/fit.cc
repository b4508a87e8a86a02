// `railtune sweep fit DATASET... -o MODEL.json`: NCCL's own cost model fitted to sweeps, one fit per GPU model and
// fabric, with its validation (docs/sweep.md "Fitting NCCL's model"). Exit 0 when the file is written (even when
// no scale is usable: the file says so), 1 when nothing could be fitted, 2 for usage and bad input.
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/sweep/sweep.h"
#include "common/atomic_file.h"
#include "nccl-tests-integration/fit/report.h"
#include "nccl-tests-integration/rules/net_env_rows.h"

namespace railtune::cli {
namespace {

struct FitCliOptions {
  std::vector<std::string> datasets;
  std::string output;
  std::string nccl = "2.30";
  std::string profile, gpu, fabric;
  std::string netEnvRows;  // --net-env-rows NAME=V,...: "" = the rows measured under no --env setting
  double sizeTarget = 5, shapeTarget = 10, maxSeconds = 25;
  bool noValidate = false;
  unsigned threads = 0;
  size_t maxWarnings = 20;
};

int runFit(const FitCliOptions& opts) {
  sweep::FitOptions options;
  if (opts.nccl != "2.28" && opts.nccl != "2.30")
    throw std::invalid_argument("--nccl must be 2.28 or 2.30, not '" + opts.nccl + "'");
  options.nccl = opts.nccl == "2.28" ? ncclmodel::NcclVersion::V2_28 : ncclmodel::NcclVersion::V2_30;
  if (!opts.profile.empty()) options.profile = opts.profile;
  options.gpu = opts.gpu;
  options.fabric = opts.fabric;
  options.netEnv = sweep::parseNetEnvRows(opts.netEnvRows);
  options.sizeTarget = opts.sizeTarget / 100;
  options.shapeTarget = opts.shapeTarget / 100;
  options.maxSeconds = opts.maxSeconds;
  options.validate = !opts.noValidate;
  options.threads = opts.threads;
  options.maxWarnings = opts.maxWarnings;
  options.warn = printWarning;
  options.generatedBy = std::string("railtune sweep fit ") + RAILTUNE_VERSION;
  const sweep::FitResult result = sweep::fitDatasets(opts.datasets, options);
  std::cout << sweep::renderFitReport(result);
  if (result.model.fits.empty()) {
    std::cerr << "railtune sweep fit: nothing could be fitted (" << result.counts.rowsUsed
              << " rows used; see 'skipped' above): no file written\n";
    return 1;
  }
  writeFileAtomically(opts.output, formats::tuner_model::writeTunerModel(result.model));
  size_t usable = 0;
  for (const auto& fit : result.model.fits)
    for (const auto& verdict : fit.usable) usable += verdict.usable ? 1 : 0;
  std::cout << "wrote " << opts.output << ": " << result.model.fits.size()
            << (result.model.fits.size() == 1 ? " fit" : " fits") << " from " << result.counts.rowsUsed << " rows, "
            << usable << (usable == 1 ? " scale" : " scales") << " usable\n";
  return 0;
}

}  // namespace

Command addSweepFitCommand(CLI::App& sweepGroup) {
  auto opts = std::make_shared<FitCliOptions>();
  CLI::App* sub = sweepGroup.add_subcommand(
      "fit",
      "fit NCCL's cost-model constants (and corrections where they cannot express it) to sweeps, per GPU and "
      "fabric, validated by leaving sizes and shapes out (RAILTUNE_TUNER_MODEL_FILE)");
  sub->add_option("DATASET", opts->datasets, "sweep datasets (railtune sweep parse)")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("-o,--output", opts->output, "the model file to write (railtune.tuner-model/1)")->required();
  sub->add_option("--nccl", opts->nccl, "the NCCL release whose model is fitted: 2.28 or 2.30")->capture_default_str();
  sub->add_option("--profile", opts->profile, "the emulator's hardware profile (default: the GPU's own)");
  sub->add_option("--gpu", opts->gpu, "only this GPU's groups (the device lines' name, \"NVIDIA GB300\")");
  sub->add_option("--fabric", opts->fabric, "only this fabric's fit: NCCL's transport (IB, Socket, ...) or nvlink");
  sub->add_option("--net-env-rows", opts->netEnvRows,
                  "fit the rows of this network setting (NAME=V,...; default: the rows of no --env setting)");
  sub->add_option("--size-target", opts->sizeTarget, "worst regret (%) allowed at held-out sizes")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1000.0));
  sub->add_option("--shape-target", opts->shapeTarget, "worst regret (%) allowed at a held-out shape")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1000.0));
  sub->add_flag("--no-validate", opts->noValidate, "skip the refits (the file then says: not usable)");
  sub->add_option("--max-seconds", opts->maxSeconds, "time budget; validation cut short is not usable")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 86400.0));
  sub->add_option("--threads", opts->threads, "validation refits in parallel (0: one per core)")->capture_default_str();
  sub->add_option("--max-warnings", opts->maxWarnings, "warnings printed before the rest are counted")
      ->capture_default_str();
  return Command{sub, [opts] { return runFit(*opts); }};
}

}  // namespace railtune::cli
