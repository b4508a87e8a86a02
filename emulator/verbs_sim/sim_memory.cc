// Protection domains and memory regions (ibv_reg_mr(3), ibv_reg_dmabuf_mr(3)): access checks, and keys that
// are never 0, unique in the process and the same for local and remote use.
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

#include "emulator/verbs_sim/sim_state.h"
#include "emulator/verbs_sim/sim_verbs.h"

namespace railtune::verbs_sim {
namespace {

constexpr unsigned kKnownMrAccess = 0x3ff ^ 0x20;  // the IBV_ACCESS_* bits below 1<<10, ZERO_BASED aside
constexpr unsigned kOptionalAccessRange = 0x3ff00000;

}  // namespace

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

}  // namespace railtune::verbs_sim
