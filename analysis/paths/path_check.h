// `railtune paths check`: what one job's joined path logs say about its use of the fabric, measured
// against the intended rail plan (the writers' expected rails, and the rail map when one is given).
// Severities (docs/paths.md): a connection on the wrong rail and a configuration digest mismatch are
// violations (the command exits non-zero); unused rails, asymmetric rail counts between two hosts,
// hosts referenced but not logged, connections never closed and QPs left idle on an ib connection that carried
// data are notes. ib connections' verbs facts (port, GID, link layer, MTU, QPNs, bytes per QP) are listed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/paths/path_model.h"
#include "formats/rail_map.h"

namespace railtune::analysis::paths {

enum class Severity { Violation, Note };

enum class FindingKind {
  CrossRail,        // a connection leaves on a NIC of another rail than its GPU's, or reaches another rail
  CrossPlane,       // both ends on one rail, but on different planes (separate networks of a multi-plane fabric)
  DigestMismatch,   // the two ends' configuration digests differ
  AsymmetricRails,  // host A uses rail R towards host B a different number of times than B towards A
  UnusedRail,       // a rail of the plan that carried no connection in this job
  MissingHost,      // a host peers name whose own path log is absent
  NeverClosed,      // a process's connections without a close record (killed, or still running)
  IdleQp,           // an ib connection carried data, but one of its QPs carried none
};

struct Finding {
  Severity severity = Severity::Note;
  FindingKind kind = FindingKind::CrossRail;
  std::string message;            // one line, naming hosts, ranks, NICs and rails
  std::vector<long> connections;  // indices into JobPaths::connections the finding is about
  std::string host, peerHost;     // where it applies ("" when not about a host)
  int rail = -1;                  // the rail it is about (-1: none)
};

// Traffic per (rail, plane), counted once per connection (the sender's record when both ends logged).
struct RailUse {
  int rail = -1;
  int plane = -1;
  int connections = 0;
  uint64_t bytes = 0;
};

// One NIC of one host: connections through it and bytes each way.
struct NicUse {
  std::string host;
  std::string hca;
  int rail = -1;
  int plane = -1;
  int connections = 0;
  uint64_t bytesSent = 0, bytesReceived = 0;
};

// A process with connections that have a connect record but no close record: NCCL closes every
// connection when a communicator is destroyed or aborted, so the process was killed, or was still
// running when the logs were collected. lastHeardUs: the time_us of its latest record of any kind.
struct UnclosedProcess {
  std::string host;
  int pid = 0;
  int open = 0, connections = 0;  // its connection ends (records) without a close record, of all it logged
  int64_t lastHeardUs = 0;
};

// One ib connection as one end logged it: the verbs facts of its connect record and the bytes per QP of its latest
// snapshot or close (empty when none said).
struct VerbsUse {
  long connection = -1;  // index into JobPaths::connections
  std::string host, hca;
  int pid = 0, rank = -1;
  bool send = true;
  int port = 0;
  std::string linkLayer, gid;  // "InfiniBand"/"RoCE"; the local GID as sysfs prints it
  int gidIndex = -1;           // -1: unknown
  int mtu = 0;
  bool adaptiveRouting = false;
  std::string peerHost, peerHca;
  int peerRank = -1;
  std::vector<uint32_t> qps, peerQps;  // QP numbers of both ends, peerQps[i] connected to qps[i]
  std::vector<uint64_t> bytesPerQp;
};

// Counts (docs/paths.md, "What is counted"): a connection is one logical network connection, one per (communicator,
// channel, connIndex, sender rank -> receiver rank), however many records of it were logged; its two ends' records
// (the sender's and the receiver's) are its connection ends. `paths import`, `check` and `render` print the same
// numbers under these names.
struct CheckReport {
  std::string job;
  int hosts = 0;           // hosts that wrote a path log (or an NCCL log) of the job
  int connections = 0;     // logical connections
  int connectionEnds = 0;  // records: each logged end of a connection (at most 2 per connection)
  // Connections whose rails nothing tells: no rail known at either end, or only at one end with no GPU's rail to hold
  // it to. Not checked, so neither clean nor violating; all of them unknown is its own exit status.
  int railsUnchecked = 0;
  bool railsUnknown() const { return connections > 0 && railsUnchecked == connections; }
  int fromNcclLog = 0;            // logical connections rebuilt from NCCL's logs (the rest: railtune's net plugin)
  std::vector<RailUse> rails;     // rail, then plane order
  std::vector<NicUse> nics;       // host, then HCA order
  std::vector<Finding> findings;  // violations first
  std::vector<UnclosedProcess> unclosed;  // host, then pid order
  std::vector<VerbsUse> verbs;            // every record with verbs facts (ib), in JobPaths::connections order
  int violations() const;
};

// railMap may be null: expected rails then come from the records alone, and unused rails are those
// below the highest rail seen.
CheckReport checkPaths(const JobPaths& job, const formats::RailMap* railMap);

}  // namespace railtune::analysis::paths
