// What `railtune paths import` prints on stdout (import_folder.h): the counts of docs/paths.md, "What is counted".
#include <string>

#include "analysis/nccl_log/import_folder.h"

namespace railtune::analysis::nccl_log {
namespace {

std::string count(uint64_t n) {
  return std::to_string(n);
}

std::string partOf(uint64_t part, uint64_t whole) {
  return count(part) + " of " + count(whole);
}

std::string joined(const std::set<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

std::string readLine(const FolderImport& result) {
  const Import& import = result.import;
  // "from N files" counts the files read; those that could not be read are listed on stderr.
  const std::string unread =
      import.unreadable.empty() ? "" : " (" + count(import.unreadable.size()) + " could not be read)";
  const std::string version = joined(result.versions);
  return "read " + count(import.read.lines) + " lines (" + count(import.read.ncclLines) + " of NCCL) from " +
         count(import.read.files) + " files" + unread + ": " + count(result.processes) + " processes on " +
         count(result.hosts.size()) + " hosts, NCCL " + (version.empty() ? "version unknown" : version) + "\n";
}

// Counted as `paths check` and `paths render` count (import.h): connections, then their logged ends.
std::string connectionLines(const ImportCounts& c, bool railMap) {
  const uint64_t ends = c.connectionEnds;
  return "network connections: " + count(c.connections) + " (" + count(c.connectionEnds) +
         " connection ends: a connection's [send] and [receive] lines; " + count(c.localChannels) +
         " Channel lines inside the node: P2P, SHM, NVLS, CollNet)\n" +
         "  connection ends with: peer's own line found: " + partOf(c.peerKnown, ends) +
         "; HCA known: " + partOf(ends - c.hcaUnknown, ends) + "; GPU known: " + partOf(ends - c.gpuUnknown, ends) +
         "; communicator known: " + partOf(ends - c.commUnknown, ends) + "\n" +
         "  rail known: " + partOf(c.railKnown, ends) + " (" + (railMap ? "rail map" : "NCCL's device list") +
         "); expected rail known: " + partOf(c.expectedKnown, ends) + "; cross-rail: " + count(c.crossRail) + "\n";
}

std::string joinLine(const ProfileJoinCounts& join) {
  return "profile join: " + count(join.flows) + " flows from " + count(join.files) + " files, " +
         count(join.flowsJoined) + " joined to " + count(join.connectionsWithBytes) + " connections, " +
         count(join.flowsUnmatched) + " unmatched, " + count(join.flowsDropped) + " dropped by the profiler, " +
         count(join.badLines) + " bad lines\n";
}

}  // namespace

std::string importSummary(const FolderImport& result, const FolderImportRequest& request) {
  const Import& import = result.import;
  std::string text = readLine(result) + connectionLines(import.counts, request.options.railMap != nullptr);
  if (import.read.badLines > 0 || import.read.duplicateLines > 0)
    text += "  skipped: " + count(import.read.badLines) + " unreadable lines (on stderr), " +
            count(import.read.duplicateLines) + " Channel lines read twice (counted once)\n";
  if (result.join) text += joinLine(*result.join);
  return text;
}

std::string importOutcome(const FolderImport& result, const FolderImportRequest& request) {
  if (result.written == 0)
    return "no network connection in these logs (every rank's traffic stayed inside its node, or "
           "NCCL_DEBUG_SUBSYS left out INIT and NET): nothing written\n";
  return "wrote " + count(result.written) + " path logs (job " + request.options.job + ") to " + request.output +
         ": railtune paths check " + request.output + "\n";
}

}  // namespace railtune::analysis::nccl_log
