// The jobs of `railtune sweep parse` (parse_jobs.h).
#include "nccl-tests-integration/dataset/parse_jobs.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "analysis/ingest/folder_walk.h"
#include "common/regular_file.h"
#include "nccl-tests-integration/run/manifest.h"

namespace railtune::sweep {
namespace {

namespace fs = std::filesystem;

// The nccl-tests binary and its arguments in a manifest's command: the launcher's words (srun's own -D is
// --chdir) are left out, up to the word that names the test.
std::vector<std::string> binaryArgs(const ManifestEntry& e) {
  for (size_t i = 0; i < e.command.size(); ++i)
    if (!e.test.empty() && e.command[i].find(e.test) != std::string::npos)
      return {e.command.begin() + static_cast<std::ptrdiff_t>(i), e.command.end()};
  return e.command;
}

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
  job.context.call = e.call ? *e.call : callModeFromArgs(binaryArgs(e));
  return job;
}

// What `sweep run` was told of the hosts, where the command line told nothing: --nvl-domains and --mnnvl, and the
// rail map or fabric (each host's domain read again from the file; its network summary when the file is gone).
void manifestDomains(const ManifestEntry& e, const ClusterReader& readCluster, OutputContext& context,
                     std::vector<DatasetDiagnostic>& notes, const std::string& manifest) {
  if (!context.domainOfHost.empty() || context.nvlDomains > 0) return;
  if (e.fabric) {
    context.fabric = e.fabric->fabric;
    try {
      if (readCluster) {
        const DomainFacts facts = readCluster(e.fabric->file, e.fabric->from == ShapeSource::Fabric);
        context.domainOfHost = facts.domainOfHost;
        context.fabric = facts.fabric;
        context.from = e.fabric->from;
      }
    } catch (const std::exception& error) {
      notes.push_back({manifest, 0,
                       std::string("the ") + shapeSourceName(e.fabric->from) + " the sweep recorded cannot be read (" +
                           error.what() + "): its NVLink domains are not used"});
    }
  }
  if (context.domainOfHost.empty() && e.nvlDomains > 0) context.nvlDomains = e.nvlDomains;
  if (context.mnnvl.empty()) context.mnnvl = e.mnnvl;
  if (context.from == ShapeSource::Assumed && (context.nvlDomains > 0 || !context.mnnvl.empty()))
    context.from = ShapeSource::Manifest;
}

// NCCL's own lines in the probe run's text output (NCCL_DEBUG=INFO), for every run of the sweep.
NcclFacts probeFacts(const std::string& dir, const Manifest& manifest) {
  NcclFacts facts;
  for (const ManifestEntry& e : manifest.entries) {
    const auto debug = e.env.find("NCCL_DEBUG");
    if (e.status != RunStatus::Ok || debug == e.env.end() || debug->second != "INFO" || e.output.empty()) continue;
    const RegularFile file = readRegularFile((fs::path(dir) / e.output).string(), kMaxInputFileBytes);
    if (!file.ok()) continue;
    const std::string_view text(file.bytes);
    for (size_t at = text.find(" NCCL INFO "); at != std::string_view::npos; at = text.find(" NCCL INFO ", at + 1)) {
      const size_t end = std::min(text.find('\n', at), text.size());
      readNcclInfo(text.substr(at + 11, end - at - 11), facts);
    }
    if (facts.any()) break;
  }
  return facts;
}

// The jobs of a sweep folder: one per run its manifest says completed; the others are listed.
void manifestJobs(const std::string& dir, const ParseJob& base, const ClusterReader& readCluster, ParsePlan& plan) {
  const std::string path = (fs::path(dir) / kManifestFileName).string();
  const RegularFile file = readRegularFile(path, kMaxInputFileBytes);
  if (!file.ok()) throw std::runtime_error(file.describe());
  const Manifest manifest = readManifestText(file.bytes);
  for (const ManifestDiagnostic& d : manifest.diagnostics) plan.notes.push_back({path, d.line, d.message});
  ParseJob folder = base;
  folder.context.probe = probeFacts(dir, manifest);
  if (!manifest.entries.empty())
    manifestDomains(manifest.entries.front(), readCluster, folder.context, plan.notes, path);
  for (const ManifestEntry& e : manifest.entries) {
    if (e.status != RunStatus::Ok) {
      ++(e.status == RunStatus::Rejected ? plan.rejected : plan.failed);
      plan.notes.push_back({path, 0, runWithoutRows(e)});
      continue;
    }
    plan.jobs.push_back(manifestJob(dir, folder, e));
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

ParsePlan planParseJobs(const std::vector<ParseInput>& inputs, const OutputContext& base,
                        const ClusterReader& readCluster) {
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
        manifestJobs(input.path, job, readCluster, plan);
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
