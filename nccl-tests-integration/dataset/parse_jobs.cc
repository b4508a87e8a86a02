// The jobs of `railtune sweep parse` (parse_jobs.h).
#include "nccl-tests-integration/dataset/parse_jobs.h"

#include <filesystem>
#include <stdexcept>

#include "analysis/ingest/folder_walk.h"
#include "common/regular_file.h"
#include "nccl-tests-integration/run/manifest.h"

namespace railtune::sweep {
namespace {

namespace fs = std::filesystem;

// The job of a run its manifest says completed: its -J file when it wrote one, else its text output.
ParseJob manifestJob(const std::string& dir, const ParseJob& base, const ManifestEntry& e) {
  ParseJob job = base;
  const std::string json = e.json.empty() ? "" : (fs::path(dir) / e.json).string();
  job.path = !json.empty() && fs::is_regular_file(json) && fs::file_size(json) > 0
                 ? json
                 : (fs::path(dir) / e.output).string();
  job.context.source = job.path;
  if (job.path == (fs::path(dir) / e.output).string()) job.byteLimit = e.outputBytes;
  job.context.env = e.env;
  job.context.envFrom = ForcedBy::Manifest;
  job.context.netEnv = e.netEnv;
  job.context.repeat = e.repeat;
  job.context.test = e.test;
  if (job.context.nvlDomains == 0 && job.context.domainOfHost.empty()) job.context.nvlDomains = e.nvlDomains;
  if (job.context.mnnvl.empty()) job.context.mnnvl = e.mnnvl;
  return job;
}

// The jobs of a sweep folder: one per run its manifest says completed; the others are listed.
void manifestJobs(const std::string& dir, const ParseJob& base, ParsePlan& plan) {
  const std::string path = (fs::path(dir) / kManifestFileName).string();
  const RegularFile file = readRegularFile(path, kMaxInputFileBytes);
  if (!file.ok()) throw std::runtime_error(file.describe());
  const Manifest manifest = readManifestText(file.bytes);
  for (const ManifestDiagnostic& d : manifest.diagnostics) plan.notes.push_back({path, d.line, d.message});
  for (const ManifestEntry& e : manifest.entries) {
    if (e.status != RunStatus::Ok) {
      ++(e.status == RunStatus::Rejected ? plan.rejected : plan.failed);
      plan.notes.push_back({path, 0, runWithoutRows(e)});
      continue;
    }
    plan.jobs.push_back(manifestJob(dir, base, e));
  }
}

// The jobs of a folder that is not a sweep's: every file below it but hidden ones and datasets.
void folderJobs(const std::string& dir, const ParseJob& base, ParsePlan& plan) {
  const analysis::ingest::FolderWalk walk = analysis::ingest::walkLogFolders(
      {dir}, [](std::string_view name) { return !name.starts_with('.') && !name.ends_with(".jsonl"); });
  for (const analysis::ingest::WalkNote& n : walk.notes) plan.notes.push_back({n.path, 0, n.message});
  for (const analysis::ingest::WalkedFile& f : walk.files) {
    ParseJob job = base;
    job.path = f.path;
    job.context.source = f.path;
    plan.jobs.push_back(std::move(job));
  }
}

}  // namespace

std::string runWithoutRows(const ManifestEntry& e) {
  std::string out =
      e.id + " (" + e.choice.label() + "): " +
      (e.status == RunStatus::Rejected ? std::string("rejected by NCCL") : std::string(runStatusName(e.status))) +
      ", exit " + std::to_string(e.exitCode);
  if (!e.reason.empty()) out += ": " + e.reason;
  return out + "; no rows (" + (e.output.empty() ? std::string("no output file") : e.output) + ")";
}

ParsePlan planParseJobs(const std::vector<ParseInput>& inputs, const OutputContext& base) {
  ParsePlan plan;
  for (const ParseInput& input : inputs) {
    ParseJob job;
    job.context = base;
    job.context.env = input.env;
    job.context.envFrom = input.env.empty() ? ForcedBy::None : ForcedBy::Option;
    std::error_code ec;
    if (fs::is_directory(input.path, ec)) {
      if (fs::is_regular_file(fs::path(input.path) / kManifestFileName, ec)) {
        if (!input.env.empty())
          plan.notes.push_back({input.path, 0, "--env ignored: the manifest says what forced each run"});
        manifestJobs(input.path, job, plan);
      } else {
        folderJobs(input.path, job, plan);
      }
      continue;
    }
    job.path = input.path;
    job.context.source = input.path;
    plan.jobs.push_back(std::move(job));
  }
  if (plan.jobs.empty() && plan.runsWithoutRows() == 0)
    throw std::runtime_error("no nccl-tests output files among the inputs");
  return plan;
}

}  // namespace railtune::sweep
