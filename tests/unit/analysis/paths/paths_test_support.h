// Test helpers for railtune_paths: path log folders written with the net plugin's own renderer.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "formats/path_log.h"

namespace railtune::analysis::paths::testing {

namespace pl = formats::path_log;

// A fresh folder under the system's temporary folder, removed at destruction.
class TempFolder {
 public:
  explicit TempFolder(const std::string& name)
      : path_(std::filesystem::temp_directory_path() / ("railtune-paths-" + name + "-" + std::to_string(getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempFolder() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }

  void write(const std::string& relative, const std::string& text) const {
    const std::filesystem::path file = path_ / relative;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
  }

 private:
  std::filesystem::path path_;
};

// One end of a connection in a test job: host, pid, rank, GPU and the NIC (device = rail = GPU unless
// told otherwise).
struct TestEnd {
  std::string host;
  int pid = 0;
  int rank = -1;
  int gpu = 0;
  int device = 0;
  int rail = 0;
};

// Two ends the tests pair: a GPU of tray 1 in rack 1 and one of tray 1 in rack 2, on rail 0.
inline const TestEnd kRack1Tray1{"gb300-r01-t01", 100, 0, 0, 0, 0};
inline const TestEnd kRack2Tray1{"gb300-r02-t01", 200, 4, 0, 0, 0};

inline pl::PathRecord connectOf(const TestEnd& self, const TestEnd& peer, bool send, uint64_t conn, int expectedRail) {
  pl::PathRecord r;
  r.kind = pl::RecordKind::Connect;
  r.timeUs = 1764480000000000 + static_cast<int64_t>(conn);
  r.connection = conn;
  r.comm = 0x5d3c0f1e2a4b6c7dULL;
  r.rank = send ? self.rank : -1;
  r.direction = send ? pl::Direction::Send : pl::Direction::Recv;
  r.transport.assign("socket");
  r.streams = 2;
  r.local.device = self.device;
  r.local.hca.assign("mlx5_" + std::to_string(self.device));
  r.local.netdev.assign("ibp" + std::to_string(self.device) + "s0");
  r.local.rail = self.rail;
  r.local.gpu = self.gpu;
  r.remote.host.assign(peer.host);
  r.remote.pid = peer.pid;
  r.remote.device = peer.device;
  r.remote.hca.assign("mlx5_" + std::to_string(peer.device));
  r.remote.rail = peer.rail;
  r.remote.rank = send ? -1 : peer.rank;
  r.expectedRail = expectedRail;
  r.localDigest = r.remoteDigest = 0x9f2c4e1a7b3d5c60ULL;
  return r;
}

inline pl::PathRecord trafficOf(uint64_t conn, bool close, int64_t timeUs, uint64_t sent, uint64_t received) {
  pl::PathRecord r;
  r.kind = close ? pl::RecordKind::Close : pl::RecordKind::Snapshot;
  r.timeUs = timeUs;
  r.connection = conn;
  r.comm = 0x5d3c0f1e2a4b6c7dULL;
  r.traffic = pl::Traffic{sent, received, sent / 1024, received / 1024, 1000};
  return r;
}

inline std::string line(const std::string& job, const TestEnd& self, const pl::PathRecord& r) {
  return pl::renderRecord(Identity{self.host, job, self.pid}, r) + "\n";
}

// `<job>-<host>-<pid>.jsonl`, as the net plugin names its files.
inline std::string fileName(const std::string& job, const TestEnd& self) {
  return job + "-" + self.host + "-" + std::to_string(self.pid) + ".jsonl";
}

}  // namespace railtune::analysis::paths::testing
