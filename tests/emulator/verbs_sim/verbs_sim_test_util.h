// What the simulator's tests share: the shared library loaded once per test process through the transport's
// own loader (verbs_table.h), on host0 of the gb300 preset with a fresh rendezvous directory, and small
// helpers to build and connect RC QPs the way NCCL does (connect.cc's masks and values).
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "net_plugin/transports/ib/verbs_abi.h"
#include "net_plugin/transports/ib/verbs_table.h"

namespace railtune::verbs_sim::test {

using namespace railtune::net::ib;

struct SimLib {
  LoadedVerbs verbs;
  int (*control)(const char*) = nullptr;
  size_t (*stats)(char*, size_t) = nullptr;
  const char* (*gidType)(IbvContext*, uint8_t, int) = nullptr;
  std::string dir;

  const VerbsTable& t() const { return verbs.table; }

  static SimLib& get() {
    static SimLib* lib = [] {
      auto* l = new SimLib;
      char pattern[] = "/tmp/vsim-XXXXXX";
      l->dir = mkdtemp(pattern);
      setenv("RAILTUNE_VERBS_SIM_DIR", l->dir.c_str(), 1);
      setenv("RAILTUNE_VERBS_SIM_HOST", "host0", 1);
      setenv("RAILTUNE_VERBS_SIM_FABRIC", "gb300", 1);
      unsetenv("RAILTUNE_VERBS_SIM_ADVERSARIAL");
      unsetenv("RAILTUNE_VERBS_SIM_FAULTS");
      l->verbs = loadVerbs({VERBS_SIM_LIBRARY});
      if (l->verbs.ok()) {
        l->control = reinterpret_cast<int (*)(const char*)>(dlsym(l->verbs.handle, "railtune_verbs_sim_control"));
        l->stats = reinterpret_cast<size_t (*)(char*, size_t)>(dlsym(l->verbs.handle, "railtune_verbs_sim_stats"));
        l->gidType = reinterpret_cast<const char* (*)(IbvContext*, uint8_t, int)>(
            dlsym(l->verbs.handle, "railtune_verbs_sim_gid_type"));
      }
      std::atexit([] {
        std::error_code ec;
        std::filesystem::remove_all(SimLib::get().dir, ec);
      });
      return l;
    }();
    return *lib;
  }
};

inline const VerbsTable& V() {
  return SimLib::get().t();
}
inline int simControl(const char* command) {
  return SimLib::get().control(command);
}

struct QpCaps {
  uint32_t sendWr = 64, recvWr = 64, sendSge = 2, recvSge = 2, inlineData = 64;
  int cqe = 1024;
  bool sigAll = false;
};

struct Endpoint {
  IbvContext* ctx = nullptr;
  IbvPd* pd = nullptr;
  IbvCq* cq = nullptr;
  IbvQp* qp = nullptr;
  uint16_t lid = 0;
  IbvGid gid{};
};

inline IbvContext* openByName(const char* name) {
  int n = 0;
  IbvDevice** list = V().getDeviceList(&n);
  IbvContext* ctx = nullptr;
  for (int i = 0; i < n; ++i) {
    if (std::strcmp(V().getDeviceName(list[i]), name) == 0) ctx = V().openDevice(list[i]);
  }
  V().freeDeviceList(list);
  return ctx;
}

inline Endpoint makeEndpoint(const char* device, const QpCaps& caps = {}) {
  Endpoint e;
  e.ctx = openByName(device);
  EXPECT_NE(e.ctx, nullptr) << device;
  if (e.ctx == nullptr) return e;
  e.pd = V().allocPd(e.ctx);
  e.cq = V().createCq(e.ctx, caps.cqe, nullptr, nullptr, 0);
  IbvQpInitAttr init{};
  init.sendCq = e.cq;
  init.recvCq = e.cq;
  init.cap = {caps.sendWr, caps.recvWr, caps.sendSge, caps.recvSge, caps.inlineData};
  init.qpType = kIbvQptRc;
  init.sqSigAll = caps.sigAll ? 1 : 0;
  e.qp = V().createQp(e.pd, &init);
  EXPECT_NE(e.qp, nullptr) << "errno " << errno;
  IbvPortAttr port{};
  V().queryPort(e.ctx, 1, &port);
  e.lid = port.lid;
  V().queryGid(e.ctx, 1, 0, &e.gid);
  return e;
}

inline int toInit(IbvQp* qp, unsigned access = kIbvAccessRemoteWrite | kIbvAccessRemoteRead) {
  IbvQpAttr a{};
  a.qpState = kIbvQpsInit;
  a.pkeyIndex = 0;
  a.portNum = 1;
  a.qpAccessFlags = access;
  return V().modifyQp(qp, &a, kIbvQpState | kIbvQpPkeyIndex | kIbvQpPort | kIbvQpAccessFlags);
}

inline int toRtr(IbvQp* qp, uint32_t destQpn, uint16_t dlid, uint8_t minRnrTimer = 12) {
  IbvQpAttr a{};
  a.qpState = kIbvQpsRtr;
  a.pathMtu = kIbvMtu4096;
  a.destQpNum = destQpn;
  a.rqPsn = 0;
  a.maxDestRdAtomic = 1;
  a.minRnrTimer = minRnrTimer;
  a.ahAttr.isGlobal = 0;
  a.ahAttr.dlid = dlid;
  a.ahAttr.portNum = 1;
  return V().modifyQp(
      qp, &a,
      kIbvQpState | kIbvQpAv | kIbvQpPathMtu | kIbvQpDestQpn | kIbvQpRqPsn | kIbvQpMaxDestRdAtomic | kIbvQpMinRnrTimer);
}

inline int toRts(IbvQp* qp, uint8_t timeout = 14, uint8_t retry = 7, uint8_t rnrRetry = 7) {
  IbvQpAttr a{};
  a.qpState = kIbvQpsRts;
  a.timeout = timeout;
  a.retryCnt = retry;
  a.rnrRetry = rnrRetry;
  a.sqPsn = 0;
  a.maxRdAtomic = 1;
  return V().modifyQp(
      qp, &a, kIbvQpState | kIbvQpTimeout | kIbvQpRetryCnt | kIbvQpRnrRetry | kIbvQpSqPsn | kIbvQpMaxQpRdAtomic);
}

struct RtsParams {
  uint8_t timeout = 14, retry = 7, rnrRetry = 7, minRnrTimer = 12;
};

inline void connectPair(Endpoint& a, Endpoint& b, const RtsParams& p = {}) {
  ASSERT_EQ(toInit(a.qp), 0);
  ASSERT_EQ(toInit(b.qp), 0);
  ASSERT_EQ(toRtr(a.qp, b.qp->qpNum, b.lid, p.minRnrTimer), 0);
  ASSERT_EQ(toRtr(b.qp, a.qp->qpNum, a.lid, p.minRnrTimer), 0);
  ASSERT_EQ(toRts(a.qp, p.timeout, p.retry, p.rnrRetry), 0);
  ASSERT_EQ(toRts(b.qp, p.timeout, p.retry, p.rnrRetry), 0);
}

// A QP connected to itself (NCCL's flush QP).
inline void connectSelf(Endpoint& e, const RtsParams& p = {}) {
  ASSERT_EQ(toInit(e.qp), 0);
  ASSERT_EQ(toRtr(e.qp, e.qp->qpNum, e.lid, p.minRnrTimer), 0);
  ASSERT_EQ(toRts(e.qp, p.timeout, p.retry, p.rnrRetry), 0);
}

inline void closeEndpoint(Endpoint& e) {
  if (e.qp != nullptr) {
    EXPECT_EQ(V().destroyQp(e.qp), 0);
  }
  if (e.cq != nullptr) {
    EXPECT_EQ(V().destroyCq(e.cq), 0);
  }
  if (e.pd != nullptr) {
    EXPECT_EQ(V().deallocPd(e.pd), 0);
  }
  if (e.ctx != nullptr) {
    EXPECT_EQ(V().closeDevice(e.ctx), 0);
  }
  e = Endpoint{};
}

inline int pollCq(IbvCq* cq, int n, IbvWc* wc) {
  return cq->context->ops.pollCq(cq, n, wc);
}
inline int postSend(IbvQp* qp, IbvSendWr* wr, IbvSendWr** bad) {
  return qp->context->ops.postSend(qp, wr, bad);
}
inline int postRecv(IbvQp* qp, IbvRecvWr* wr, IbvRecvWr** bad) {
  return qp->context->ops.postRecv(qp, wr, bad);
}

// Polls until `n` completions arrived or `seconds` passed; returns them.
inline std::vector<IbvWc> pollFor(IbvCq* cq, size_t n, double seconds = 10) {
  std::vector<IbvWc> out;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (out.size() < n && std::chrono::steady_clock::now() < deadline) {
    IbvWc wc[16];
    int got = pollCq(cq, 16, wc);
    if (got < 0) break;
    out.insert(out.end(), wc, wc + got);
    if (got == 0) std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  return out;
}

// One QP's counters from railtune_verbs_sim_stats. Which of them a test may assert exactly: wrs_posted,
// wrs_completed and bytes_received (a duplicate is ACKed, never applied twice) always; packets_sent,
// bytes_sent, retries and rnr_naks only with the protocol clock stopped (`clock stop`), since a timer that
// fires on a slow machine resends.
struct QpCounters {
  bool found = false;
  int state = -1;
  uint64_t bytesSent = 0, bytesReceived = 0, wrsPosted = 0, wrsCompleted = 0, packetsSent = 0, packetsReceived = 0,
           retries = 0, rnrNaks = 0;
};

inline QpCounters countersOf(const Endpoint& e) {
  std::string text(1 << 16, '\0');
  text.resize(std::min(SimLib::get().stats(text.data(), text.size()), text.size()));
  const std::string device = V().getDeviceName(e.ctx->device);
  QpCounters c;
  const nlohmann::json all = nlohmann::json::parse(text);
  for (const nlohmann::json& qp : all.at("qps")) {
    if (qp.at("device") != device || qp.at("qpn") != e.qp->qpNum) continue;
    c.found = true;
    c.state = qp.at("state");
    c.bytesSent = qp.at("bytes_sent");
    c.bytesReceived = qp.at("bytes_received");
    c.wrsPosted = qp.at("wrs_posted");
    c.wrsCompleted = qp.at("wrs_completed");
    c.packetsSent = qp.at("packets_sent");
    c.packetsReceived = qp.at("packets_received");
    c.retries = qp.at("retries");
    c.rnrNaks = qp.at("rnr_naks");
  }
  return c;
}

// Polls the counters until `done` holds (something the simulator will do, such as a NAK arriving through its
// sockets) or 10 s passed; returns the last reading.
inline QpCounters awaitCounters(const Endpoint& e, const std::function<bool(const QpCounters&)>& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  QpCounters c = countersOf(e);
  while (!done(c) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    c = countersOf(e);
  }
  return c;
}

// Stops the protocol clock for one test and lets it run again at the end, whatever the test's outcome.
struct StoppedClock {
  StoppedClock() { EXPECT_EQ(SimLib::get().control("clock stop"), 0); }
  ~StoppedClock() { EXPECT_EQ(SimLib::get().control("clock run"), 0); }
  StoppedClock(const StoppedClock&) = delete;
  StoppedClock& operator=(const StoppedClock&) = delete;
  static void step(double millis) {
    const std::string command = "clock step " + std::to_string(millis);
    ASSERT_EQ(SimLib::get().control(command.c_str()), 0);
  }
};

inline IbvSendWr writeWr(uint64_t id, IbvSge* sge, int numSge, uint64_t remote, uint32_t rkey,
                         int opcode = kIbvWrRdmaWrite, unsigned flags = kIbvSendSignaled) {
  IbvSendWr wr{};
  wr.wrId = id;
  wr.sgList = sge;
  wr.numSge = numSge;
  wr.opcode = opcode;
  wr.sendFlags = flags;
  wr.wr.rdma.remoteAddr = remote;
  wr.wr.rdma.rkey = rkey;
  return wr;
}

inline int postEmptyRecv(IbvQp* qp, uint64_t id) {
  IbvRecvWr wr{};
  wr.wrId = id;
  IbvRecvWr* bad = nullptr;
  return postRecv(qp, &wr, &bad);
}

inline uint64_t addrOf(const void* p) {
  return reinterpret_cast<uintptr_t>(p);
}

constexpr unsigned kAllAccess = kIbvAccessLocalWrite | kIbvAccessRemoteWrite | kIbvAccessRemoteRead;

// Two endpoints (mlx5_0 and mlx5_1 of this process's host) with a registered source buffer on `a`, filled with a
// position-dependent pattern (a byte landing at the wrong offset shows), and a zeroed destination on `b`; the
// data and clock tests' common set-up. `bytes` is each buffer's size.
class TwoEndpoints : public ::testing::Test {
 protected:
  explicit TwoEndpoints(size_t bytes) : bytes_(bytes) {}
  void SetUp() override {
    a = makeEndpoint("mlx5_0");
    b = makeEndpoint("mlx5_1");
    src.resize(bytes_);
    dst.assign(bytes_, 0);
    for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 7 + 3);
    srcMr = V().regMr(a.pd, src.data(), src.size(), kAllAccess);
    dstMr = V().regMr(b.pd, dst.data(), dst.size(), kAllAccess);
    ASSERT_NE(srcMr, nullptr);
    ASSERT_NE(dstMr, nullptr);
  }
  void TearDown() override {
    EXPECT_EQ(V().deregMr(srcMr), 0);
    EXPECT_EQ(V().deregMr(dstMr), 0);
    closeEndpoint(a);
    closeEndpoint(b);
  }
  int post(IbvSendWr wr) {
    IbvSendWr* bad = nullptr;
    return postSend(a.qp, &wr, &bad);
  }
  Endpoint a, b;
  std::vector<uint8_t> src, dst;
  IbvMr* srcMr = nullptr;
  IbvMr* dstMr = nullptr;

 private:
  size_t bytes_;
};

}  // namespace railtune::verbs_sim::test
