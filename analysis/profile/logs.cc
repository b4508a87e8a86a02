// readProfileLogs (logs.h): files on hardware_concurrency() threads, each into its own tables, then
// one merge that gives jobs, hosts, operations and streams their shared indices.
#include "analysis/profile/logs.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "analysis/ingest/folder_walk.h"
#include "analysis/profile/file_reader.h"
#include "common/work_pool.h"

namespace railtune::analysis::profile {
namespace {

class Interner {
 public:
  explicit Interner(std::vector<std::string>* names) : names_(names) {}
  uint32_t operator()(const std::string& name) {
    const auto [it, added] = index_.try_emplace(name, static_cast<uint32_t>(names_->size()));
    if (added) names_->push_back(name);
    return it->second;
  }

 private:
  std::vector<std::string>* names_;
  std::unordered_map<std::string, uint32_t> index_;
};

class Merger {
 public:
  explicit Merger(ProfileLogs* logs)
      : logs_(logs), jobs_(&logs->jobs), hosts_(&logs->hosts), ops_(&logs->ops), bootIds_(&logs->bootIds) {}

  void add(FileResult&& file, size_t maxProblems) {
    if (!file.unreadable.empty()) {
      ++logs_->unreadableFiles;
      logs_->inputNotes.push_back(std::move(file.unreadable));
    } else {
      countFile(file.kind);
    }
    std::vector<uint32_t> streamIds, opIds;
    for (const FileStream& s : file.streams) streamIds.push_back(streamOf(s));
    for (const std::string& op : file.ops) opIds.push_back(ops_(op));
    for (UnusualClose close : file.unusualCloses) {
      close.sample += static_cast<uint32_t>(logs_->samples.size());
      logs_->unusualCloses.push_back(close);
    }
    for (uint32_t sample : file.enqueueTimed)
      logs_->enqueueTimed.push_back(sample + static_cast<uint32_t>(logs_->samples.size()));
    for (SampleTraits traits : file.traits) {
      traits.sample += static_cast<uint32_t>(logs_->samples.size());
      logs_->traits.push_back(traits);
    }
    logs_->samples.reserve(logs_->samples.size() + file.samples.size());
    for (Sample sample : file.samples) {
      sample.stream = streamIds[sample.stream];
      sample.op = opIds[sample.op];
      logs_->samples.push_back(sample);
    }
    for (P2pSample p2p : file.p2p) {
      p2p.stream = streamIds[p2p.stream];
      logs_->p2p.push_back(p2p);
    }
    for (const FileLoss& loss : file.losses) addLoss(loss);
    // The first a process named (a pid reused after a reboot: rare); by name, so that a header alone
    // (a process that completed nothing) adds no job or host.
    for (const FileBoot& boot : file.boots)
      boots_.try_emplace(std::make_tuple(boot.job, boot.host, boot.pid), boot.bootId);
    for (HangRecord& hang : file.hangs) {
      jobs_(hang.parsed.identity.job);  // a job may have hung before it completed anything
      logs_->hangs.push_back(std::move(hang));
    }
    for (PathEnd& end : file.pathEnds) logs_->pathEnds.push_back(std::move(end));
    writers_.insert(file.writers.begin(), file.writers.end());
    for (std::string& problem : file.problems)
      if (logs_->problems.first.size() < maxProblems) logs_->problems.first.push_back(std::move(problem));
    logs_->problems.count += file.problemCount;
    logs_->p2pRecords += file.p2pRecords;
    logs_->droppedNotices += file.droppedNotices;
    logs_->recordsDropped += file.recordsDropped;
    logs_->strictLines += file.strictLines;
  }

  // Once every file is in: the losses, by job, host, pid, comm and rank.
  void finish() {
    for (const auto& [key, loss] : losses_) logs_->losses.push_back(loss);
    logs_->writers.assign(writers_.begin(), writers_.end());
    for (Stream& s : logs_->streams) {
      const auto it = boots_.find(std::make_tuple(logs_->jobs[s.job], logs_->hosts[s.host], s.pid));
      if (it != boots_.end()) s.boot = static_cast<int>(bootIds_(it->second));
    }
  }

 private:
  // One entry per process and rank however many files (a process that loaded the plugin twice) said so.
  void addLoss(const FileLoss& file) {
    Loss loss = file.loss;
    loss.job = jobs_(file.job), loss.host = hosts_(file.host);
    const auto key = std::make_tuple(loss.job, loss.host, loss.pid, loss.hasComm, loss.comm, loss.rank);
    const auto [it, added] = losses_.try_emplace(key, loss);
    if (added) return;
    Loss& known = it->second;
    known.recordsDropped += loss.recordsDropped, known.operationsDropped += loss.operationsDropped;
    known.eventsDropped += loss.eventsDropped;
    known.firstNs = std::min(known.firstNs, loss.firstNs), known.lastNs = std::max(known.lastNs, loss.lastNs);
  }

  void countFile(LogKind kind) {
    switch (kind) {
      case LogKind::Collectives:
        ++logs_->collectiveFiles;
        break;
      case LogKind::Net:
        ++logs_->netFiles;
        break;
      case LogKind::PathLog:
        ++logs_->pathLogFiles;
        break;
      case LogKind::Unknown:
        ++logs_->skippedFiles;
        break;
    }
  }

  uint32_t streamOf(const FileStream& s) {
    Stream stream{jobs_(s.job), hosts_(s.host), s.pid, s.hasComm, s.comm, s.rank, s.nRanks, -1};
    const auto key = std::make_tuple(stream.job, stream.host, stream.pid, stream.hasComm, stream.comm, stream.rank);
    const auto [it, added] = streams_.try_emplace(key, static_cast<uint32_t>(logs_->streams.size()));
    if (added) logs_->streams.push_back(stream);
    Stream& known = logs_->streams[it->second];
    if (known.nRanks == 0) known.nRanks = s.nRanks;
    return it->second;
  }

  ProfileLogs* logs_;
  Interner jobs_, hosts_, ops_, bootIds_;
  std::map<std::tuple<std::string, std::string, int>, std::string> boots_;  // (job, host, pid) -> boot id
  std::map<std::tuple<uint32_t, uint32_t, int, bool, uint64_t, int>, uint32_t> streams_;
  std::map<std::tuple<uint32_t, uint32_t, int, bool, uint64_t, int>, Loss> losses_;
  std::set<WriterProcess> writers_;
};

}  // namespace

ProfileLogs readProfileLogs(const ReadOptions& options) {
  ingest::JsonlFiles listed = ingest::listJsonlFiles(options.folders);
  const std::vector<std::string>& files = listed.files;
  std::vector<FileResult> results(files.size());
  parallelFor(
      files.size(), [&](size_t i) { results[i] = readLogFile(files[i], options.pathLogs, options.maxProblems); },
      options.threads);

  ProfileLogs logs;
  logs.inputNotes = std::move(listed.notes);
  size_t total = 0;
  for (const FileResult& r : results) total += r.samples.size();
  logs.samples.reserve(total);
  Merger merger(&logs);
  for (FileResult& result : results) {
    merger.add(std::move(result), options.maxProblems);
    result = FileResult{};  // release this file's samples before the next is copied
  }
  merger.finish();
  return logs;
}

}  // namespace railtune::analysis::profile
