// Devices, contexts, async events, protection domains, memory regions and completion queues.
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
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

constexpr int kMaxCqe = 4194303;
constexpr int kCompVectors = 32;
constexpr unsigned kKnownMrAccess = 0x3ff ^ 0x20;  // the IBV_ACCESS_* bits below 1<<10, ZERO_BASED aside
constexpr unsigned kOptionalAccessRange = 0x3ff00000;

int fail(int error) {
  errno = error;
  return error;
}

template <typename T>
T* failNull(int error) {
  errno = error;
  return nullptr;
}

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

Sim& sim() {
  // Never destroyed (sim_state.h). fork(): the lock is taken around it, so the child never inherits it held
  // by the agent thread, and the child drops the agent it has no thread for (forgetAgentInChild).
  static Sim* instance = [] {
    auto* created = new Sim;
    pthread_atfork([] { sim().mu.lock(); }, [] { sim().mu.unlock(); },
                   [] {
                     Sim& s = sim();
                     forgetAgentInChild(s);
                     s.mu.unlock();
                   });
    return created;
  }();
  return *instance;
}

bool ensureInitialised(Sim& s) {
  if (s.initialised) return s.initError.empty();
  s.initialised = true;
  auto fabric = fabricFromEnvironment(&s.initError);
  if (!fabric) {
    std::fprintf(stderr, "railtune verbs sim: %s\n", s.initError.c_str());
    return false;
  }
  s.fabric = std::move(*fabric);
  s.host = selectHost(s.fabric);
  const SimHostDesc& host = s.fabric.hosts[static_cast<size_t>(s.host)];
  for (size_t i = 0; i < host.devices.size(); ++i) {
    auto device = std::make_unique<Device>();
    device->index = static_cast<int>(i);
    device->desc = &host.devices[i];
    device->abi.nodeType = ib::kIbvNodeCa;
    device->abi.transportType = 0;  // IBV_TRANSPORT_IB, RoCE included
    std::snprintf(device->abi.name, sizeof device->abi.name, "%s", device->desc->name.c_str());
    std::snprintf(device->abi.devName, sizeof device->abi.devName, "uverbs%zu", i);
    std::snprintf(device->abi.devPath, sizeof device->abi.devPath, "/sys/class/infiniband_verbs/uverbs%zu", i);
    std::snprintf(device->abi.ibdevPath, sizeof device->abi.ibdevPath, "/sys/class/infiniband/%s",
                  device->desc->name.c_str());
    s.devices.push_back(std::move(device));
  }
  if (const char* env = std::getenv("RAILTUNE_VERBS_SIM_TIME_SCALE"); env != nullptr && *env != '\0') {
    double scale = std::atof(env);
    if (scale > 0) s.timeScale = scale;
  }
  if (const char* env = std::getenv("RAILTUNE_VERBS_SIM_ADVERSARIAL"); env != nullptr) {
    s.adversarial = std::strcmp(env, "1") == 0;
  }
  if (const char* env = std::getenv("RAILTUNE_VERBS_SIM_DIR"); env != nullptr) s.dir = env;
  if (const char* env = std::getenv("RAILTUNE_VERBS_SIM_SEED"); env != nullptr)
    s.rng.seed(std::strtoull(env, nullptr, 0));
  // "port_down mlx5_0 1 @500ms; qp_fatal 0x123 @1s": applied by the agent after the delay.
  if (const char* env = std::getenv("RAILTUNE_VERBS_SIM_FAULTS"); env != nullptr) {
    std::string all = env;
    size_t pos = 0;
    while (pos <= all.size()) {
      size_t end = all.find(';', pos);
      if (end == std::string::npos) end = all.size();
      std::string item = all.substr(pos, end - pos);
      pos = end + 1;
      size_t at = item.find('@');
      if (item.find_first_not_of(" \t") == std::string::npos) continue;
      double delayMs = 0;
      if (at != std::string::npos) {
        std::string delay = item.substr(at + 1);
        delayMs = std::atof(delay.c_str());
        if (delay.find("ms") == std::string::npos && delay.find('s') != std::string::npos) delayMs *= 1000;
        item = item.substr(0, at);
      }
      s.faults.push_back({s.start + std::chrono::microseconds(static_cast<int64_t>(delayMs * 1000)), item});
    }
  }
  return true;
}

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

// --- protection domains and memory regions ---------------------------------------------------------------
ib::IbvPd* allocPd(ib::IbvContext* context) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  Context* ctx = live<Context>(s.contexts, context);
  if (ctx == nullptr) return failNull<ib::IbvPd>(EINVAL);
  auto* pd = new Pd;
  pd->context = ctx;
  pd->abi.context = &ctx->abi;
  pd->abi.handle = s.nextKey++;
  ++ctx->objects;
  s.pds.insert(pd);
  return &pd->abi;
}

int deallocPd(ib::IbvPd* pdAbi) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  Pd* pd = live<Pd>(s.pds, pdAbi);
  if (pd == nullptr) return fail(EINVAL);
  if (pd->mrs != 0 || pd->qps != 0) return fail(EBUSY);
  --pd->context->objects;
  s.pds.erase(pd);
  delete pd;
  return 0;
}

namespace {
ib::IbvMr* registerRegion(Sim& s, Pd* pd, uint8_t* host, size_t length, uint64_t iova, unsigned access, void* mapped,
                          size_t mappedLength) {
  auto* mr = new Mr;
  mr->pd = pd;
  mr->host = host;
  mr->iova = iova;
  mr->length = length;
  mr->access = access;
  mr->mapped = mapped;
  mr->mappedLength = mappedLength;
  // Keys are never 0, unique in the process, and the same for local and remote use (as mlx5's are); the
  // low byte varies so that a key off by one is not another live key.
  uint32_t key = 0;
  do {
    key = (s.nextKey++ << 8) | static_cast<uint32_t>(s.rng() & 0xff);
  } while (key == 0 || s.mrByKey.count(key) != 0);
  mr->abi.context = &pd->context->abi;
  mr->abi.pd = &pd->abi;
  mr->abi.addr = host;
  mr->abi.length = length;
  mr->abi.handle = key;
  mr->abi.lkey = key;
  mr->abi.rkey = key;
  s.mrByKey[key] = mr;
  s.mrs.insert(mr);
  ++pd->mrs;
  return &mr->abi;
}

int checkAccess(unsigned access) {
  unsigned known = kKnownMrAccess | ib::kIbvAccessRelaxedOrdering | kOptionalAccessRange;
  if ((access & ~known) != 0) return EINVAL;
  if ((access & (ib::kIbvAccessRemoteWrite | ib::kIbvAccessRemoteAtomic)) != 0 &&
      (access & ib::kIbvAccessLocalWrite) == 0) {
    return EINVAL;  // ibv_reg_mr(3): remote write or atomic needs local write
  }
  return 0;
}
}  // namespace

ib::IbvMr* regMr(ib::IbvPd* pdAbi, void* addr, size_t length, uint64_t iova, unsigned access) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  Pd* pd = live<Pd>(s.pds, pdAbi);
  if (pd == nullptr || addr == nullptr || length == 0) return failNull<ib::IbvMr>(EINVAL);
  if (int error = checkAccess(access)) return failNull<ib::IbvMr>(error);
  return registerRegion(s, pd, static_cast<uint8_t*>(addr), length, iova, access, nullptr, 0);
}

ib::IbvMr* regDmabufMr(ib::IbvPd* pdAbi, uint64_t offset, size_t length, uint64_t iova, int fd, int access) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  Pd* pd = live<Pd>(s.pds, pdAbi);
  if (pd == nullptr || length == 0) return failNull<ib::IbvMr>(EINVAL);
  if (fd < 0) return failNull<ib::IbvMr>(EBADF);
  if (int error = checkAccess(static_cast<unsigned>(access))) return failNull<ib::IbvMr>(error);
  // A dma-buf the process can map (a memfd stands in for one in tests) is supported by mapping it; a GPU's,
  // which cannot be mapped, is "not supported", the answer NCCL expects from hardware without DMA-BUF.
  long page = sysconf(_SC_PAGESIZE);
  uint64_t aligned = offset & ~static_cast<uint64_t>(page - 1);
  size_t mapLength = length + (offset - aligned);
  void* base = mmap(nullptr, mapLength, PROT_READ | PROT_WRITE, MAP_SHARED, fd, static_cast<off_t>(aligned));
  if (base == MAP_FAILED) return failNull<ib::IbvMr>(EOPNOTSUPP);
  ib::IbvMr* mr = registerRegion(s, pd, static_cast<uint8_t*>(base) + (offset - aligned), length, iova,
                                 static_cast<unsigned>(access), base, mapLength);
  mr->addr = reinterpret_cast<void*>(offset);  // as rdma-core's wrapper sets it
  return mr;
}

int deregMr(ib::IbvMr* mrAbi) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  Mr* mr = live<Mr>(s.mrs, mrAbi);
  if (mr == nullptr) return fail(EINVAL);
  s.mrByKey.erase(mr->abi.lkey);
  s.mrs.erase(mr);
  --mr->pd->mrs;
  if (mr->mapped != nullptr) munmap(mr->mapped, mr->mappedLength);
  delete mr;
  return 0;
}

// --- completion queues ----------------------------------------------------------------------------------
ib::IbvCq* createCq(ib::IbvContext* context, int cqe, void* cqContext, ib::IbvCompChannel* channel, int vector) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  Context* ctx = live<Context>(s.contexts, context);
  if (ctx == nullptr || cqe < 1 || cqe > kMaxCqe || vector < 0 || vector >= kCompVectors) {
    return failNull<ib::IbvCq>(EINVAL);
  }
  if (channel != nullptr) return failNull<ib::IbvCq>(EOPNOTSUPP);  // no completion channels
  auto* cq = new Cq;
  cq->context = ctx;
  cq->ring.resize(static_cast<size_t>(cqe));
  cq->abi.context = &ctx->abi;
  cq->abi.cqContext = cqContext;
  cq->abi.handle = s.nextKey++;
  cq->abi.cqe = cqe;
  pthread_mutex_init(&cq->abi.mutex, nullptr);
  pthread_cond_init(&cq->abi.cond, nullptr);
  ++ctx->objects;
  s.cqs.insert(cq);
  cq->live.store(kLiveCq, std::memory_order_release);
  return &cq->abi;
}

int destroyCq(ib::IbvCq* cqAbi) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  Cq* cq = live<Cq>(s.cqs, cqAbi);
  if (cq == nullptr) return fail(EINVAL);
  if (cq->users != 0) return fail(EBUSY);
  if (cq->eventsReported != cq->abi.asyncEventsCompleted) {
    // The real library waits forever for the missing ibv_ack_async_event; failing says which.
    std::fprintf(stderr, "railtune verbs sim: ibv_destroy_cq(handle %u): %u async event(s) not acked: EBUSY\n",
                 cq->abi.handle, cq->eventsReported - cq->abi.asyncEventsCompleted);
    return fail(EBUSY);
  }
  auto& events = cq->context->events;
  events.erase(std::remove_if(events.begin(), events.end(),
                              [&](const ib::IbvAsyncEvent& e) {
                                return e.eventType == ib::kIbvEventCqErr && e.element.cq == &cq->abi;
                              }),
               events.end());
  --cq->context->objects;
  s.cqs.erase(cq);
  pthread_mutex_destroy(&cq->abi.mutex);
  pthread_cond_destroy(&cq->abi.cond);
  cq->live.store(0, std::memory_order_release);
  std::vector<CqEntry>().swap(cq->ring);
  s.retiredCqs.emplace_back(cq);
  return 0;
}

void pushCompletion(Sim& s, Cq* cq, const CqEntry& entry) {
  if (cq->overrun) return;  // lost, as on hardware
  if (cq->count == cq->ring.size()) {
    cq->overrun = true;
    cq->available.store(~size_t{0}, std::memory_order_release);
    ib::IbvAsyncEvent event{};
    event.element.cq = &cq->abi;
    event.eventType = ib::kIbvEventCqErr;
    queueEvent(cq->context, event);
    for (Qp* qp : s.qpList) {
      if ((qp->sendCq == cq || qp->recvCq == cq) && qp->state != ib::kIbvQpsErr && qp->state != ib::kIbvQpsReset) {
        moveToError(s, qp, ib::kIbvWcWrFlushErr);
      }
    }
    return;
  }
  cq->ring[(cq->head + cq->count) % cq->ring.size()] = entry;
  ++cq->count;
  cq->available.store(cq->count, std::memory_order_release);
}

int pollCq(ib::IbvCq* cqAbi, int entries, ib::IbvWc* wc) {
  Sim& s = sim();
  if (cqAbi != nullptr && entries > 0 && wc != nullptr) {
    const Cq* quick = reinterpret_cast<const Cq*>(cqAbi);
    if (quick->live.load(std::memory_order_acquire) == kLiveCq &&
        quick->available.load(std::memory_order_acquire) == 0) {
      return 0;
    }
  }
  std::lock_guard lock(s.mu);
  Cq* cq = live<Cq>(s.cqs, cqAbi);
  if (cq == nullptr || entries < 0 || (entries > 0 && wc == nullptr)) {
    errno = EINVAL;
    return -1;
  }
  if (cq->overrun) {
    errno = EIO;  // ibv_poll_cq(3): after IBV_EVENT_CQ_ERR the CQ cannot be used
    return -1;
  }
  int n = 0;
  while (n < entries && cq->count > 0) {
    const CqEntry& e = cq->ring[cq->head];
    wc[n++] = e.wc;
    // Polling a completion retires its slot and, on the send queue, every earlier (unsignaled) one.
    if (e.recv) {
      ++e.qp->rqRetired;
    } else {
      e.qp->sqRetired = std::max(e.qp->sqRetired, e.wrIndex + 1);
    }
    cq->head = (cq->head + 1) % cq->ring.size();
    --cq->count;
  }
  cq->available.store(cq->count, std::memory_order_release);
  return n;
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

const char* wcStatusString(int status) {
  static const char* const names[] = {"success",
                                      "local length error",
                                      "local QP operation error",
                                      "local EE context operation error",
                                      "local protection error",
                                      "Work Request Flushed Error",
                                      "memory management operation error",
                                      "bad response error",
                                      "local access error",
                                      "remote invalid request error",
                                      "remote access error",
                                      "remote operation error",
                                      "transport retry counter exceeded",
                                      "RNR retry counter exceeded",
                                      "local RDD violation error",
                                      "remote invalid RD request",
                                      "aborted error",
                                      "invalid EE context number",
                                      "invalid EE context state",
                                      "fatal error",
                                      "response timeout error",
                                      "general error",
                                      "TM error",
                                      "TM rendezvous error"};
  if (status < 0 || status >= static_cast<int>(sizeof names / sizeof names[0])) return "unknown";
  return names[status];
}

}  // namespace railtune::verbs_sim
