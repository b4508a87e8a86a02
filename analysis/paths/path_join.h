// Joining the records read from many files into one view per job (path_model.h): a connection is its
// connect record plus its latest snapshot or its close, keyed by (host, pid, conn); the sender's and the
// receiver's records of one TCP connection are paired; peers that logged nothing are named.
// Internal to railtune_paths (path_load.cc reads the files, this joins them).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/paths/path_file.h"
#include "analysis/paths/path_model.h"

namespace railtune::analysis::paths::detail {

// `files` are path logs (their connections are moved out) (FileKind::PathLog) in the order messages should follow. Only
// `onlyJob`'s records are kept when it is set. Diagnostics of files whose job is unknown (no line parsed) go to
// `folderDiagnostics`; the others to their job's.
std::vector<JobPaths> joinFiles(std::vector<FileRecords>& files, const std::optional<std::string>& onlyJob,
                                std::vector<InputDiagnostic>* folderDiagnostics);

// Sets every Connection::peerIndex: a send record (host A, pid p, device d; remote B, q, e) pairs with a
// receive record on B, pid q, device e whose remote is (A, p, d), in the same communicator; several
// identical candidates pair in the order of their connection ids. Records left unpaired then pair by
// hosts, pids and communicator alone (a misbound NIC logs the device NCCL asked for but announces the
// one it used). Then fills ranks an end did not know from the other end's record and from the same
// process's other records.
void pairEnds(JobPaths& job);

}  // namespace railtune::analysis::paths::detail
