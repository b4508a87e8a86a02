// The simulator tests' second process: loads the simulated libibverbs (argv[1]) as the transport does and
// either lists the devices it sees (`devices`) or serves as a responder QP driven over stdin/stdout
// (`responder <device>`), so that the tests exercise the cross-process path and a peer that dies.
//   responder protocol, one line each way:
//     -> info <qpn> <lid> <buffer addr> <rkey>     <- peer <qpn> <lid>     -> ready
//     <- poll          -> wc <status> <opcode> <byte_len> <imm, host order>
//     <- sum <off> <len>  -> sum <FNV-1a of the buffer's bytes>
//     <- event         -> event <type of the next async event, acked; -1 after 10 s>
//     <- exit
#include <arpa/inet.h>
#include <dlfcn.h>
#include <poll.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "net_plugin/transports/ib/verbs_abi.h"
#include "net_plugin/transports/ib/verbs_table.h"

using namespace railtune::net::ib;

namespace {

int listDevices(const VerbsTable& v, void* handle) {
  auto gidType =
      reinterpret_cast<const char* (*)(IbvContext*, uint8_t, int)>(dlsym(handle, "railtune_verbs_sim_gid_type"));
  int n = 0;
  IbvDevice** list = v.getDeviceList(&n);
  if (list == nullptr) return 1;
  for (int i = 0; i < n; ++i) {
    IbvContext* ctx = v.openDevice(list[i]);
    IbvDeviceAttr dev{};
    v.queryDevice(ctx, &dev);
    std::printf("dev %s ports %d part %u\n", v.getDeviceName(list[i]), dev.physPortCnt, dev.vendorPartId);
    for (int p = 1; p <= dev.physPortCnt; ++p) {
      IbvPortAttr port{};
      v.queryPort(ctx, static_cast<uint8_t>(p), &port);
      uint64_t speed = 0;
      v.queryPortSpeed(ctx, static_cast<uint32_t>(p), &speed);
      std::printf("port %d state %d link %d lid %d width %d speed %d speed100 %" PRIu64 " gids %d\n", p, port.state,
                  port.linkLayer, port.lid, port.activeWidth, port.activeSpeed, speed, port.gidTblLen);
      for (int g = 0; g < port.gidTblLen; ++g) {
        IbvGid gid{};
        v.queryGid(ctx, static_cast<uint8_t>(p), g, &gid);
        std::printf("gid %d ", g);
        for (uint8_t byte : gid.raw) std::printf("%02x", byte);
        std::printf(" %s\n", gidType(ctx, static_cast<uint8_t>(p), g));
      }
    }
    v.closeDevice(ctx);
  }
  v.freeDeviceList(list);
  return 0;
}

uint64_t fnv(const uint8_t* p, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

IbvContext* openNamed(const VerbsTable& v, const char* device) {
  int n = 0;
  IbvDevice** list = v.getDeviceList(&n);
  IbvContext* ctx = nullptr;
  for (int i = 0; i < n; ++i) {
    if (std::strcmp(v.getDeviceName(list[i]), device) == 0) ctx = v.openDevice(list[i]);
  }
  v.freeDeviceList(list);
  return ctx;
}

// INIT, RTR towards the peer's QP and LID, RTS: false when a step is refused.
bool connectQp(const VerbsTable& v, IbvQp* qp, uint32_t peerQpn, uint32_t peerLid) {
  IbvQpAttr a{};
  a.qpState = kIbvQpsInit;
  a.portNum = 1;
  a.qpAccessFlags = kIbvAccessRemoteWrite | kIbvAccessRemoteRead;
  if (v.modifyQp(qp, &a, kIbvQpState | kIbvQpPkeyIndex | kIbvQpPort | kIbvQpAccessFlags) != 0) return false;
  a = {};
  a.qpState = kIbvQpsRtr;
  a.pathMtu = kIbvMtu4096;
  a.destQpNum = peerQpn;
  a.maxDestRdAtomic = 1;
  a.minRnrTimer = 12;
  a.ahAttr.dlid = static_cast<uint16_t>(peerLid);
  a.ahAttr.portNum = 1;
  if (v.modifyQp(qp, &a,
                 kIbvQpState | kIbvQpAv | kIbvQpPathMtu | kIbvQpDestQpn | kIbvQpRqPsn | kIbvQpMaxDestRdAtomic |
                     kIbvQpMinRnrTimer) != 0) {
    return false;
  }
  a = {};
  a.qpState = kIbvQpsRts;
  a.timeout = 14;
  a.retryCnt = 7;
  a.rnrRetry = 7;
  a.maxRdAtomic = 1;
  return v.modifyQp(
             qp, &a,
             kIbvQpState | kIbvQpTimeout | kIbvQpRetryCnt | kIbvQpRnrRetry | kIbvQpSqPsn | kIbvQpMaxQpRdAtomic) == 0;
}

// The commands of the protocol above until `exit` or the end of stdin.
void serve(const VerbsTable& v, IbvContext* ctx, IbvCq* cq, const std::vector<uint8_t>& buf) {
  std::string word;
  while (std::cin >> word) {
    if (word == "poll") {
      IbvWc wc{};
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      int got = 0;
      while (got == 0 && std::chrono::steady_clock::now() < deadline) {
        got = cq->context->ops.pollCq(cq, 1, &wc);
        if (got == 0) std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
      std::printf("wc %d %d %u %u\n", got == 1 ? wc.status : -1, wc.opcode, wc.byteLen, ntohl(wc.immData));
    } else if (word == "sum") {
      size_t off = 0, len = 0;
      std::cin >> off >> len;
      std::printf("sum %" PRIu64 "\n", fnv(buf.data() + off, len));
    } else if (word == "event") {
      pollfd pfd{ctx->asyncFd, POLLIN, 0};
      IbvAsyncEvent event{};
      if (poll(&pfd, 1, 10000) == 1 && v.getAsyncEvent(ctx, &event) == 0) {
        std::printf("event %d\n", static_cast<int>(event.eventType));
        v.ackAsyncEvent(&event);
      } else {
        std::printf("event -1\n");
      }
    } else if (word == "exit") {
      break;
    }
    std::fflush(stdout);
  }
}

int respond(const VerbsTable& v, const char* device) {
  IbvContext* ctx = openNamed(v, device);
  if (ctx == nullptr) return 1;
  std::vector<uint8_t> buf(1 << 20);
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<uint8_t>(i * 13 + 5);
  IbvPd* pd = v.allocPd(ctx);
  IbvMr* mr = v.regMr(pd, buf.data(), buf.size(), kIbvAccessLocalWrite | kIbvAccessRemoteWrite | kIbvAccessRemoteRead);
  IbvCq* cq = v.createCq(ctx, 64, nullptr, nullptr, 0);
  IbvQpInitAttr init{};
  init.sendCq = cq;
  init.recvCq = cq;
  init.cap = {16, 16, 1, 1, 0};
  init.qpType = kIbvQptRc;
  IbvQp* qp = v.createQp(pd, &init);
  if (qp == nullptr) return 1;
  IbvPortAttr port{};
  v.queryPort(ctx, 1, &port);
  std::printf("info %u %u %" PRIu64 " %u\n", qp->qpNum, port.lid,
              static_cast<uint64_t>(reinterpret_cast<uintptr_t>(buf.data())), mr->rkey);
  std::fflush(stdout);
  std::string word;
  uint32_t peerQpn = 0, peerLid = 0;
  std::cin >> word >> peerQpn >> peerLid;
  if (!connectQp(v, qp, peerQpn, peerLid)) return 1;
  for (int i = 0; i < 16; ++i) {
    IbvRecvWr r{};
    r.wrId = static_cast<uint64_t>(i);
    IbvRecvWr* bad = nullptr;
    qp->context->ops.postRecv(qp, &r, &bad);
  }
  std::printf("ready\n");
  std::fflush(stdout);
  serve(v, ctx, cq, buf);
  v.destroyQp(qp);
  v.destroyCq(cq);
  v.deregMr(mr);
  v.deallocPd(pd);
  v.closeDevice(ctx);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: verbs_sim_peer LIBRARY devices | LIBRARY responder DEVICE\n");
    return 2;
  }
  LoadedVerbs verbs = loadVerbs({argv[1]});
  if (!verbs.ok()) {
    std::fprintf(stderr, "verbs_sim_peer: %s\n", verbs.reason.c_str());
    return 1;
  }
  std::string mode = argv[2];
  if (mode == "devices") return listDevices(verbs.table, verbs.handle);
  if (mode == "responder" && argc > 3) return respond(verbs.table, argv[3]);
  return 2;
}
