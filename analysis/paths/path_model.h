// The joined view of one job's path logs (railtune.path_log.v1, docs/formats/path-log.schema.json)
// that `railtune paths check` and `railtune paths render` work on: every connection a process logged,
// with its final traffic, and the rail map placing hosts in racks. Readers (path_load.h) build it;
// the check (path_check.h) and the renderers only read it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "formats/path_log.h"
#include "formats/rail_map.h"

namespace railtune::analysis::paths {

// Something wrong with the input that did not stop the analysis: "FILE:LINE:COLUMN: reason", or
// "FILE: reason" for a whole file, or a job-level remark ("host X wrote no path log").
struct InputDiagnostic {
  std::string where;  // "dir/48213-host-1.jsonl:17:1"; empty for job-level remarks
  std::string message;
};

// One end of a connection as a process described it: the writer's own end is complete; the peer's end
// is what the peer said in the handshake (no netdev, no GPU).
struct ConnectionEnd {
  std::string host;
  int pid = 0;
  int rank = -1;  // -1: unknown
  int device = -1;
  std::string hca;
  std::string netdev;  // "" for the peer's end
  int rail = -1;       // -1: unknown
  int plane = -1;      // -1: single plane or unknown
  int gpu = -1;        // the CUDA device served; -1: unknown (always for the peer's end)
};

struct ConnectionTraffic {
  uint64_t bytesSent = 0, bytesReceived = 0, messagesSent = 0, messagesReceived = 0, busyUs = 0;
  std::vector<uint64_t> bytesPerQp;  // ib connections: bytes per QP (both directions); empty: not logged
};

// One connection as one process logged it (its connect record, then its latest snapshot or its close).
// Both ends of a TCP connection log it, the sender as "send" and the receiver as "recv"; `peerLogged`
// tells whether the other end's record was found (path_load.h pairs them).
struct Connection {
  std::optional<uint64_t> comm;  // NCCL's commId
  uint64_t id = 0;               // "conn": unique within the writing process
  bool send = true;              // direction as the writer saw it
  std::string transport;         // "socket", "ib"
  int streams = 0;
  ConnectionEnd local;    // the writer's end
  ConnectionEnd remote;   // the peer's end, from the handshake
  int expectedRail = -1;  // the rail the served GPU maps to (the writer's rail map); -1: unknown
  uint64_t localDigest = 0, remoteDigest = 0;
  formats::path_log::VerbsFacts verbs;  // ib connections: port, GID, link layer, MTU, QPNs of both ends
  ConnectionTraffic traffic;
  bool closed = false;        // a close record was read
  int64_t connectTimeUs = 0;  // the connect record's time_us
  int64_t lastTimeUs = 0;     // time_us of its latest record (connect, snapshot or close)
  std::string source;         // "FILE:LINE" of the connect record (of NCCL's Channel line when imported)
  bool fromNcclLog = false;   // rebuilt from NCCL's INFO log (`paths import`), not written by the net plugin
  std::string ncclNet;        // imported: NCCL's network name ("IB", "AWS Libfabric")
  int channel = -1;           // imported: NCCL's channel
  int proxyRank = -1;         // imported: the PXN proxy rank; -1: none
  long peerIndex = -1;        // index in JobPaths::connections of the other end's record; -1: not logged
};

// One job's connections, all hosts joined.
struct JobPaths {
  std::string job;
  std::vector<std::string> hosts;  // hosts that wrote at least one path log for this job, sorted
  std::vector<Connection> connections;
  std::vector<InputDiagnostic> diagnostics;  // what was skipped while reading this job's files
};

}  // namespace railtune::analysis::paths
