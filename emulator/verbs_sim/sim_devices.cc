// Devices and their ports as the fabric describes them, contexts with their async events, and the query verbs.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "emulator/verbs_sim/sim_state.h"
#include "emulator/verbs_sim/sim_verbs.h"

namespace railtune::verbs_sim {
namespace {

void writeAll(int fd, const void* data, size_t length) {
  const char* p = static_cast<const char*>(data);
  while (length > 0) {
    ssize_t n = write(fd, p, length);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    length -= static_cast<size_t>(n);
  }
}

}  // namespace

const SimPortDesc* portOf(const Device& device, int port) {
  for (const SimPortDesc& p : device.desc->ports) {
    if (p.number == port) return &p;
  }
  return nullptr;
}

bool portIsUp(Sim& s, const Device& device, int port) {
  const SimPortDesc* p = portOf(device, port);
  if (p == nullptr) return false;
  auto it = s.portDown.find({device.desc->nodeGuid, port});
  return it != s.portDown.end() ? !it->second : p->up;
}

void queueEvent(Context* context, const ib::IbvAsyncEvent& event) {
  context->events.push_back(event);
  char byte = 1;
  writeAll(context->asyncPipe[1], &byte, 1);
}

// --- devices and contexts ------------------------------------------------------------------------------
ib::IbvDevice** getDeviceList(int* numDevices) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  if (!ensureInitialised(s)) return failNull<ib::IbvDevice*>(ENODEV);
  auto** list = static_cast<ib::IbvDevice**>(std::calloc(s.devices.size() + 1, sizeof(ib::IbvDevice*)));
  if (list == nullptr) return failNull<ib::IbvDevice*>(ENOMEM);
  for (size_t i = 0; i < s.devices.size(); ++i) list[i] = &s.devices[i]->abi;
  if (numDevices != nullptr) *numDevices = static_cast<int>(s.devices.size());
  return list;
}

void freeDeviceList(ib::IbvDevice** list) {
  std::free(list);
}

namespace {
Device* liveDevice(Sim& s, ib::IbvDevice* device) {
  for (auto& d : s.devices) {
    if (&d->abi == device) return d.get();
  }
  return nullptr;
}
}  // namespace

const char* getDeviceName(ib::IbvDevice* device) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  Device* d = liveDevice(s, device);
  if (d == nullptr) {
    errno = EINVAL;
    return nullptr;
  }
  return d->abi.name;
}

uint64_t getDeviceGuid(ib::IbvDevice* device) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  Device* d = liveDevice(s, device);
  if (d == nullptr) return 0;
  uint64_t guid = d->desc->nodeGuid;
  return __builtin_bswap64(guid);
}

ib::IbvContext* openDevice(ib::IbvDevice* device) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  Device* d = liveDevice(s, device);
  if (d == nullptr) return failNull<ib::IbvContext>(EINVAL);
  auto* ctx = new Context;
  if (pipe2(ctx->asyncPipe, O_CLOEXEC) != 0) {
    int error = errno;
    delete ctx;
    return failNull<ib::IbvContext>(error);
  }
  ctx->device = d;
  ctx->abi.device = &d->abi;
  ctx->abi.ops.pollCq = [](ib::IbvCq* cq, int n, ib::IbvWc* wc) { return pollCq(cq, n, wc); };
  ctx->abi.ops.reqNotifyCq = [](ib::IbvCq*, int) { return EOPNOTSUPP; };  // no completion channels
  ctx->abi.ops.postSend = [](ib::IbvQp* qp, ib::IbvSendWr* wr, ib::IbvSendWr** bad) { return postSend(qp, wr, bad); };
  ctx->abi.ops.postRecv = [](ib::IbvQp* qp, ib::IbvRecvWr* wr, ib::IbvRecvWr** bad) { return postRecv(qp, wr, bad); };
  ctx->abi.cmdFd = -1;
  ctx->abi.asyncFd = ctx->asyncPipe[0];
  ctx->abi.numCompVectors = kCompVectors;
  pthread_mutex_init(&ctx->abi.mutex, nullptr);
  ctx->abi.abiCompat = nullptr;  // no verbs_context: the header inlines fall back to exported calls
  s.contexts.insert(ctx);
  return &ctx->abi;
}

int closeDevice(ib::IbvContext* context) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  Context* ctx = live<Context>(s.contexts, context);
  if (ctx == nullptr) {
    errno = EINVAL;
    return -1;
  }
  if (ctx->objects != 0) {
    std::fprintf(stderr, "railtune verbs sim: ibv_close_device(%s) with %d PDs/CQs still open: EBUSY\n",
                 ctx->device->abi.name, ctx->objects);
    errno = EBUSY;
    return -1;
  }
  s.contexts.erase(ctx);
  // A thread blocked in ibv_get_async_event wakes, finds the context gone and returns -1.
  char byte = 0;
  writeAll(ctx->asyncPipe[1], &byte, 1);
  close(ctx->asyncPipe[0]);
  close(ctx->asyncPipe[1]);
  pthread_mutex_destroy(&ctx->abi.mutex);
  delete ctx;
  return 0;
}

int getAsyncEvent(ib::IbvContext* context, ib::IbvAsyncEvent* event) {
  Sim& s = sim();
  int fd = -1;
  {
    std::lock_guard lock(s.mu);
    Context* ctx = live<Context>(s.contexts, context);
    if (ctx == nullptr || event == nullptr) {
      errno = EINVAL;
      return -1;
    }
    fd = ctx->asyncPipe[0];
  }
  for (;;) {
    // Blocks like the real one (a read of the async fd); a caller that polls asyncFd first never blocks.
    char byte;
    ssize_t n = read(fd, &byte, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    std::lock_guard lock(s.mu);
    Context* ctx = live<Context>(s.contexts, context);
    if (ctx == nullptr) {
      errno = EINVAL;
      return -1;
    }
    if (ctx->events.empty()) continue;  // the event's object was destroyed meanwhile
    *event = ctx->events.front();
    ctx->events.pop_front();
    switch (event->eventType) {
      case ib::kIbvEventCqErr:
        if (Cq* cq = live<Cq>(s.cqs, event->element.cq)) ++cq->eventsReported;
        break;
      case ib::kIbvEventQpFatal:
      case ib::kIbvEventQpReqErr:
      case ib::kIbvEventQpAccessErr:
      case ib::kIbvEventCommEst:
        if (Qp* qp = live<Qp>(s.qps, event->element.qp)) ++qp->eventsReported;
        break;
      default:
        break;
    }
    return 0;
  }
}

void ackAsyncEvent(ib::IbvAsyncEvent* event) {
  if (event == nullptr) return;
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  switch (event->eventType) {
    case ib::kIbvEventCqErr:
      if (Cq* cq = live<Cq>(s.cqs, event->element.cq)) ++cq->abi.asyncEventsCompleted;
      break;
    case ib::kIbvEventQpFatal:
    case ib::kIbvEventQpReqErr:
    case ib::kIbvEventQpAccessErr:
    case ib::kIbvEventCommEst:
      if (Qp* qp = live<Qp>(s.qps, event->element.qp)) ++qp->abi.eventsCompleted;
      break;
    default:
      break;
  }
}

int queryDevice(ib::IbvContext* context, ib::IbvDeviceAttr* attr) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  Context* ctx = live<Context>(s.contexts, context);
  if (ctx == nullptr || attr == nullptr) return EINVAL;
  const SimDeviceDesc& d = *ctx->device->desc;
  std::memset(attr, 0, sizeof *attr);
  std::snprintf(attr->fwVer, sizeof attr->fwVer, "%s", d.vendorPartId == 4131 ? "40.45.1200" : "28.43.1014");
  attr->nodeGuid = __builtin_bswap64(d.nodeGuid);
  attr->sysImageGuid = __builtin_bswap64(d.sysImageGuid);
  attr->maxMrSize = ~0ULL;
  attr->pageSizeCap = 0xfffffffffffff000ULL;
  attr->vendorId = 0x02c9;
  attr->vendorPartId = d.vendorPartId;
  attr->hwVer = 0;
  attr->maxQp = 131072;
  attr->maxQpWr = 32768;
  attr->deviceCapFlags = 0xed721c36;
  attr->maxSge = 30;
  attr->maxSgeRd = 30;
  attr->maxCq = 16777216;
  attr->maxCqe = kMaxCqe;
  attr->maxMr = 16777216;
  attr->maxPd = 8388608;
  attr->maxQpRdAtom = 16;
  attr->maxResRdAtom = 2097152;
  attr->maxQpInitRdAtom = 16;
  attr->atomicCap = 0;  // no atomics in the simulator
  attr->maxPkeys = 128;
  attr->localCaAckDelay = 16;
  attr->physPortCnt = static_cast<uint8_t>(d.ports.size());
  return 0;
}

int queryPort(ib::IbvContext* context, uint8_t port, ib::IbvPortAttr* attr, size_t length) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  Context* ctx = live<Context>(s.contexts, context);
  if (ctx == nullptr || attr == nullptr) return EINVAL;
  const SimPortDesc* p = portOf(*ctx->device, port);
  if (p == nullptr) return EINVAL;
  bool up = portIsUp(s, *ctx->device, port);
  ib::IbvPortAttr full{};
  full.state = up ? ib::kIbvPortActive : ib::kIbvPortDown;
  full.maxMtu = ib::kIbvMtu4096;
  full.activeMtu = p->activeMtu;
  full.gidTblLen = static_cast<int>(p->gids.size());
  full.portCapFlags = p->ethernet ? 0x04010000 : 0x2659e848;
  full.maxMsgSz = 0x40000000;
  full.pkeyTblLen = p->ethernet ? 1 : 128;
  full.lid = p->lid;
  full.smLid = p->ethernet ? 0 : 1;
  full.maxVlNum = 4;
  full.subnetTimeout = 18;
  full.activeWidth = p->activeWidth;
  full.activeSpeed = p->activeSpeed;
  full.physState = up ? 5 : 3;  // LinkUp / Disabled
  full.linkLayer = p->ethernet ? ib::kIbvLinkLayerEthernet : ib::kIbvLinkLayerInfiniband;
  full.flags = 0;
  full.portCapFlags2 = 0;
  full.activeSpeedEx = p->activeSpeedEx;
  std::memcpy(attr, &full, std::min(length, sizeof full));
  return 0;
}

int queryGid(ib::IbvContext* context, uint8_t port, int index, ib::IbvGid* gid) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  Context* ctx = live<Context>(s.contexts, context);
  if (ctx == nullptr || gid == nullptr) return EINVAL;
  const SimPortDesc* p = portOf(*ctx->device, port);
  if (p == nullptr || index < 0 || index >= static_cast<int>(p->gids.size())) return EINVAL;
  std::memcpy(gid->raw, p->gids[static_cast<size_t>(index)].raw, 16);
  return 0;
}

const char* gidType(ib::IbvContext* context, uint8_t port, int index) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  Context* ctx = live<Context>(s.contexts, context);
  if (ctx == nullptr) return nullptr;
  const SimPortDesc* p = portOf(*ctx->device, port);
  if (p == nullptr || index < 0 || index >= static_cast<int>(p->gids.size())) return nullptr;
  return p->gids[static_cast<size_t>(index)].roceV2 ? "RoCE v2" : "IB/RoCE v1";
}

int queryPkey(ib::IbvContext* context, uint8_t port, int index, uint16_t* pkey) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  Context* ctx = live<Context>(s.contexts, context);
  if (ctx == nullptr || pkey == nullptr) return EINVAL;
  const SimPortDesc* p = portOf(*ctx->device, port);
  if (p == nullptr || index < 0 || index >= (p->ethernet ? 1 : 128)) return EINVAL;
  *pkey = index == 0 ? 0xffff : 0;  // big-endian 0xffff reads the same
  return 0;
}

int queryPortSpeed(ib::IbvContext* context, uint32_t port, uint64_t* speed) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  Context* ctx = live<Context>(s.contexts, context);
  if (ctx == nullptr || speed == nullptr) return EINVAL;
  // Callers that declare the port as uint8_t leave the upper bits of the register undefined.
  const SimPortDesc* p = portOf(*ctx->device, static_cast<int>(port & 0xff));
  if (p == nullptr) return EINVAL;
  *speed = portIsUp(s, *ctx->device, static_cast<int>(port & 0xff)) ? p->speed100Mbps : 0;
  return 0;
}

const char* eventTypeString(int event) {
  static const char* const names[] = {"CQ error",
                                      "local work queue catastrophic error",
                                      "invalid request local work queue error",
                                      "local access violation work queue error",
                                      "communication established",
                                      "send queue drained",
                                      "path migrated",
                                      "path migration request error",
                                      "local catastrophic error",
                                      "port active",
                                      "port error",
                                      "LID change",
                                      "P_Key change",
                                      "SM change",
                                      "SRQ catastrophic error",
                                      "SRQ limit reached",
                                      "last WQE reached",
                                      "client reregistration",
                                      "GID table change",
                                      "WQ fatal",
                                      "device speed change"};
  if (event < 0 || event >= static_cast<int>(sizeof names / sizeof names[0])) return "unknown";
  return names[event];
}

}  // namespace railtune::verbs_sim
