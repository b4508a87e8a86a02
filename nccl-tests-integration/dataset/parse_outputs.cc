// `railtune sweep parse`'s work (parse_outputs.h).
#include "nccl-tests-integration/dataset/parse_outputs.h"

#include <optional>
#include <stdexcept>
#include <utility>

#include "common/atomic_file.h"
#include "common/work_pool.h"
#include "nccl-tests-integration/dataset/ordered_output.h"
#include "nccl-tests-integration/dataset/read_output.h"

namespace railtune::sweep {

ParseSummary parseOutputs(const ParseRequest& request) {
  ParsePlan plan = planParseJobs(request.inputs, request.base, request.readCluster);
  const std::vector<ParseJob>& jobs = plan.jobs;

  // Rows streamed to the dataset in input order; nothing is left behind when no row was read.
  std::vector<ParseJobResult> results(jobs.size());
  std::optional<AtomicFile> file;
  if (!jobs.empty()) file.emplace(request.output);
  OrderedOutput output(jobs.size(), kParseMaxBufferedBytes, [&](std::string_view bytes) { file->write(bytes); });
  parallelFor(jobs.size(), [&](size_t i) { readParseJob(jobs[i], i, request.keepDiagnostics, output, results[i]); });
  if (!output.error().empty()) throw std::runtime_error(output.error());

  ParseSummary summary;
  summary.jobs = jobs.size();
  summary.rejected = plan.rejected;
  summary.failed = plan.failed;
  summary.diagnostics = std::move(plan.notes);
  for (ParseJobResult& r : results) {
    summary.rows += r.rows;
    summary.runs += r.runs;
    summary.filesWithRows += r.rows > 0 ? 1 : 0;
    summary.flagged += r.flagged;
    summary.badRows += r.badRows;
    summary.moreDiagnostics += r.moreDiagnostics;
    for (DatasetDiagnostic& d : r.diagnostics) summary.diagnostics.push_back(std::move(d));
  }
  if (summary.rows > 0) file->commit();
  return summary;
}

}  // namespace railtune::sweep
