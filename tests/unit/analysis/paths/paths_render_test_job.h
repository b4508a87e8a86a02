// A small job built by hand for the renderer's tests (the loader and the check have their own tests):
// two racks of a rail map (rack-a: a1, a2; rack-b: b1) with 2 GPUs and 2 single-plane rails per tray, and
// a host x9 that the map does not know and that wrote no log. Records:
//   0/1  a1 GPU 0 mlx5_0 (rail 0) sends 1 MiB to b1 GPU 0 mlx5_0; both ends logged (pair)
//   2/3  a2 GPU 0 misbound to mlx5_1 (rail 1) sends 64 MiB to b1 mlx5_0 (rail 0): cross-rail, both ends
//   4    b1 GPU 1 mlx5_1 sends 3 GiB to a1 mlx5_1, only b1 logged it: digest mismatch
//   5    a1 GPU 1 mlx5_1 sends 512 B to x9 mlx5_1 (x9 wrote no log)
// A receive record knows the sender's rank only (docs/net.md), so its local rank is -1.
// Findings: CrossRail {2, 3}, DigestMismatch {4} (violations), MissingHost x9 {5} (a note).
#pragma once

#include <string>

#include "analysis/paths/path_check.h"
#include "analysis/paths/path_model.h"
#include "formats/rail_map.h"

namespace railtune::analysis::paths::testjob {

inline formats::RailMap railMap() {
  formats::RailMap map;
  map.cluster = "fixture";
  map.rails = 2;
  for (const auto& [host, domain] : {std::pair{"a1", "rack-a"}, {"a2", "rack-a"}, {"b1", "rack-b"}}) {
    formats::RailMapHost h{host, domain, {}};
    for (int g = 0; g < 2; ++g) {
      const std::string hca = "mlx5_" + std::to_string(g);
      h.gpus.push_back(
          formats::RailMapGpu{g, "", {formats::RailMapNic{hca, "ib" + std::to_string(g), "", 1, g, -1, 400000}}});
    }
    map.hosts.push_back(h);
  }
  return map;
}

inline ConnectionEnd end(const std::string& host, int pid, int rank, const std::string& hca, int rail, int gpu) {
  ConnectionEnd e;
  e.host = host;
  e.pid = pid;
  e.rank = rank;
  e.device = rail;
  e.hca = hca;
  e.rail = rail;
  e.gpu = gpu;
  return e;
}

inline Connection connection(bool send, ConnectionEnd local, ConnectionEnd remote, uint64_t bytes, long peer) {
  Connection c;
  c.comm = 0x5d3c0f1e2a4b6c7dULL;
  c.send = send;
  c.transport = "socket";
  c.streams = 2;
  c.local = std::move(local);
  c.remote = std::move(remote);
  c.remote.gpu = -1;
  c.expectedRail = c.local.gpu;
  (send ? c.traffic.bytesSent : c.traffic.bytesReceived) = bytes;
  (send ? c.traffic.messagesSent : c.traffic.messagesReceived) = bytes / 65536 + 1;
  c.peerIndex = peer;
  return c;
}

inline JobPaths job() {
  JobPaths j;
  j.job = "fixture";
  j.hosts = {"a1", "a2", "b1"};
  const uint64_t MiB = 1 << 20;
  j.connections = {
      connection(true, end("a1", 11, 0, "mlx5_0", 0, 0), end("b1", 31, 4, "mlx5_0", 0, -1), MiB, 1),
      connection(false, end("b1", 31, -1, "mlx5_0", 0, 0), end("a1", 11, 0, "mlx5_0", 0, -1), MiB, 0),
      connection(true, end("a2", 21, 2, "mlx5_1", 1, 0), end("b1", 31, 4, "mlx5_0", 0, -1), 64 * MiB, 3),
      connection(false, end("b1", 31, -1, "mlx5_0", 0, 0), end("a2", 21, 2, "mlx5_1", 1, -1), 64 * MiB, 2),
      connection(true, end("b1", 31, 5, "mlx5_1", 1, 1), end("a1", 11, 1, "mlx5_1", 1, -1), 3072 * MiB, -1),
      connection(true, end("a1", 11, 1, "mlx5_1", 1, 1), end("x9", 91, 7, "mlx5_1", 1, -1), 512, -1),
  };
  j.connections[4].localDigest = 0x1111;
  j.connections[4].remoteDigest = 0x2222;
  return j;
}

inline CheckReport report() {
  CheckReport r;
  r.job = "fixture";
  r.hosts = 3;
  r.connections = 4;
  r.connectionEnds = static_cast<int>(job().connections.size());
  r.findings = {
      Finding{Severity::Violation,
              FindingKind::CrossRail,
              "a2 rank 2 GPU 0 sends on mlx5_1 (rail 1), its rail is 0; b1 receives on rail 0",
              {2, 3},
              "a2",
              "b1",
              1},
      Finding{Severity::Violation,
              FindingKind::DigestMismatch,
              "b1 rank 5 and a1 <peer> differ in configuration digest",
              {4},
              "b1",
              "a1",
              -1},
      Finding{Severity::Note, FindingKind::MissingHost, "x9 is named by a1 but wrote no path log", {5}, "x9", "", -1},
  };
  return r;
}

}  // namespace railtune::analysis::paths::testjob
