#include "emulator/net_job/connect.h"

#include <time.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>

#include "emulator/net_job/connect_internal.h"

namespace railtune::emu::netjob {
namespace {

namespace fs = std::filesystem;
using Handle = std::array<char, NCCL_NET_HANDLE_MAXSIZE>;

std::string handlePath(const ConnectSpec& spec, int sender, int receiver) {
  return spec.handleDir + "/" + std::to_string(sender) + "-to-" + std::to_string(receiver) + ".handle";
}

// Written under a temporary name and renamed, so a reader sees the whole handle or nothing.
void publishHandle(const ConnectSpec& spec, int sender, const Handle& handle) {
  const std::string path = handlePath(spec, sender, spec.rank);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(handle.data(), static_cast<std::streamsize>(handle.size()));
    if (!out) throw std::runtime_error("cannot write " + tmp);
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) throw std::runtime_error("cannot publish " + path + ": " + ec.message());
}

bool readHandle(const ConnectSpec& spec, int receiver, Handle& handle) {
  std::ifstream in(handlePath(spec, spec.rank, receiver), std::ios::binary);
  if (!in) return false;
  in.read(handle.data(), static_cast<std::streamsize>(handle.size()));
  if (in.gcount() != static_cast<std::streamsize>(handle.size()))
    throw std::runtime_error("truncated handle " + handlePath(spec, spec.rank, receiver));
  return true;
}

std::string callFailed(const char* call, int peer, ncclResult_t rc) {
  return std::string(call) + " for rank " + std::to_string(peer) + " failed (ncclResult " +
         std::to_string(static_cast<int>(rc)) + ")";
}

struct PendingSend {
  int peer;
  bool haveHandle = false;
  Handle handle{};
};
struct PendingRecv {
  int peer;
  void* listenComm = nullptr;
};

struct Setup {
  const ConnectSpec& spec;
  RankLinks links;
  std::vector<PendingSend> sends;
  std::vector<PendingRecv> recvs;
  std::set<int> nvlinkIncoming;

  explicit Setup(const ConnectSpec& s) : spec(s) {}
  ~Setup() {
    for (PendingRecv& r : recvs)
      if (r.listenComm != nullptr) spec.driver->closeListen(r.listenComm);
  }
  bool overPlugin(int a, int b) const {
    return !overNvlink((*spec.ranks)[static_cast<size_t>(a)], (*spec.ranks)[static_cast<size_t>(b)], spec.mnnvl);
  }

  void listenAll() {
    for (PendingRecv& r : recvs) {
      Handle handle{};
      const ncclResult_t rc = spec.driver->listen(spec.device, handle.data(), &r.listenComm);
      if (rc != ncclSuccess || r.listenComm == nullptr) throw std::runtime_error(callFailed("listen", r.peer, rc));
      publishHandle(spec, r.peer, handle);
    }
  }

  // One pass over everything still pending; true when something connected.
  bool pass() {
    bool any = false;
    for (auto it = sends.begin(); it != sends.end();) {
      void* comm = nullptr;
      ncclNetDeviceHandle_v12_t* devComm = nullptr;
      if (!it->haveHandle) it->haveHandle = readHandle(spec, it->peer, it->handle);
      if (it->haveHandle) {
        const ncclResult_t rc = spec.driver->connect(spec.device, it->handle.data(), &comm, &devComm);
        if (rc != ncclSuccess) throw std::runtime_error(callFailed("connect", it->peer, rc));
      }
      if (comm == nullptr) {
        ++it;
        continue;
      }
      links.sendTo[it->peer] = makePluginLink(*spec.driver, comm, spec.rank, it->peer, true);
      it = sends.erase(it);
      any = true;
    }
    for (auto it = recvs.begin(); it != recvs.end();) {
      void* comm = nullptr;
      ncclNetDeviceHandle_v12_t* devComm = nullptr;
      const ncclResult_t rc = spec.driver->accept(it->listenComm, &comm, &devComm);
      if (rc != ncclSuccess) throw std::runtime_error(callFailed("accept", it->peer, rc));
      if (comm == nullptr) {
        ++it;
        continue;
      }
      links.recvFrom[it->peer] = makePluginLink(*spec.driver, comm, spec.rank, it->peer, false);
      spec.driver->closeListen(it->listenComm);
      it = recvs.erase(it);
      any = true;
    }
    return acceptNvlinks() || any;
  }

  bool acceptNvlinks() {
    bool any = false;
    while (!nvlinkIncoming.empty()) {
      int peer = -1;
      std::unique_ptr<Link> link = acceptNvlink(spec, peer);
      if (!link) break;
      if (nvlinkIncoming.erase(peer) == 0)
        throw std::runtime_error("rank " + std::to_string(spec.rank) +
                                 ": unexpected NVLink stand-in greeting from rank " + std::to_string(peer));
      links.recvFrom[peer] = std::move(link);
      any = true;
    }
    return any;
  }

  std::string stillPending() const {
    std::string out;
    for (const PendingSend& s : sends)
      out += (out.empty() ? "" : ", ") + std::string(s.haveHandle ? "connect to rank " : "the handle of rank ") +
             std::to_string(s.peer);
    for (const PendingRecv& r : recvs)
      out += (out.empty() ? "" : ", ") + ("accept from rank " + std::to_string(r.peer));
    for (int peer : nvlinkIncoming) out += (out.empty() ? "" : ", ") + ("NVLink from rank " + std::to_string(peer));
    return out;
  }
};

void pauseBetweenSetupPasses() {
  const timespec pause{0, 200'000};
  nanosleep(&pause, nullptr);
}

}  // namespace

RankLinks connectRank(const ConnectSpec& spec) {
  Setup setup(spec);
  std::vector<int> nvlinkOutgoing;
  for (const auto& [from, to] : spec.edges) {
    if (from == spec.rank && setup.overPlugin(from, to))
      setup.sends.push_back({to});
    else if (from == spec.rank)
      nvlinkOutgoing.push_back(to);
    else if (to == spec.rank && setup.overPlugin(from, to))
      setup.recvs.push_back({from});
    else if (to == spec.rank)
      setup.nvlinkIncoming.insert(from);
  }
  if ((!setup.sends.empty() || !setup.recvs.empty()) && spec.driver == nullptr)
    throw std::logic_error("plugin edges without a net driver");
  setup.listenAll();
  for (int peer : nvlinkOutgoing) setup.links.sendTo[peer] = connectNvlink(spec, peer);
  while (!setup.sends.empty() || !setup.recvs.empty() || !setup.nvlinkIncoming.empty()) {
    if (Clock::now() > spec.deadline)
      throw std::runtime_error("rank " + std::to_string(spec.rank) + ": connection setup timed out waiting for " +
                               setup.stillPending());
    if (!setup.pass()) pauseBetweenSetupPasses();
  }
  return std::move(setup.links);
}

}  // namespace railtune::emu::netjob
