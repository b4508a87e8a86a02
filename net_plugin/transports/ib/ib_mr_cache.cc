// The per-port registration cache. See ib_mr_cache.h.
#include "net_plugin/transports/ib/ib_mr_cache.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace railtune::net::ib {
namespace {

uintptr_t pageSize() {
  static const uintptr_t size = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096);
  return size;
}

}  // namespace

IbvMr* MrCache::acquire(void* data, size_t size, int dmabufFd, uint64_t offset) {
  const uintptr_t page = pageSize();
  const uintptr_t address = reinterpret_cast<uintptr_t>(data);
  const uintptr_t begin = address & ~(page - 1);
  const uintptr_t end = (address + (size == 0 ? 1 : size) + page - 1) & ~(page - 1);
  std::lock_guard lock(mutex_);
  if (dmabufFd < 0) {
    for (CachedMr& cached : cached_) {
      if (cached.dmabufFd < 0 && cached.begin <= begin && end <= cached.end) {
        ++cached.refs;
        return cached.mr;
      }
    }
  }
  // NCCL asks for relaxed ordering on host, peer and DMA-BUF registrations alike (reg.cc:28-31); a provider that
  // cannot do it ignores the flag (IBV_ACCESS_RELAXED_ORDERING is one of rdma-core's optional access flags).
  const bool relaxed = relaxed_ && verbs_.regMrIova2 != nullptr;
  const int access = kRegistrationAccess | (relaxed ? kIbvAccessRelaxedOrdering : 0);
  IbvMr* mr = nullptr;
  errno = 0;
  if (dmabufFd >= 0) {
    if (verbs_.regDmabufMr == nullptr) {
      throw std::runtime_error("ibv_reg_dmabuf_mr is not in this libibverbs (IBVERBS_1.12): DMA-BUF unsupported");
    }
    mr = verbs_.regDmabufMr(pd_, offset, end - begin, begin, dmabufFd, access);
  } else if (relaxed) {
    mr = verbs_.regMrIova2(pd_, reinterpret_cast<void*>(begin), end - begin, begin, static_cast<unsigned>(access));
  } else {
    mr = verbs_.regMr(pd_, reinterpret_cast<void*>(begin), end - begin, access);
  }
  if (mr == nullptr) {
    const int error = errno;
    throw std::runtime_error("ibv_reg_mr of " + std::to_string(end - begin) +
                             " bytes failed: " + (error != 0 ? std::strerror(error) : "no reason given"));
  }
  cached_.push_back(CachedMr{begin, end, 1, mr, dmabufFd});
  return mr;
}

int MrCache::release(IbvMr* mr) {
  std::lock_guard lock(mutex_);
  for (auto it = cached_.begin(); it != cached_.end(); ++it) {
    if (it->mr != mr) continue;
    int rc = 0;
    if (--it->refs == 0) {
      rc = verbs_.deregMr(it->mr);
      cached_.erase(it);  // a registration the library would not release is not handed out again
    }
    return rc;
  }
  throw std::invalid_argument("not a memory registration of this port");
}

size_t MrCache::entries() const {
  std::lock_guard lock(mutex_);
  return cached_.size();
}

std::string MrCache::clear() {
  std::lock_guard lock(mutex_);
  std::string failures;
  for (CachedMr& cached : cached_) {
    if (const int rc = verbs_.deregMr(cached.mr); rc != 0)
      failures += "ibv_dereg_mr(" + std::to_string(cached.end - cached.begin) + " bytes): " + std::strerror(rc) + "; ";
  }
  cached_.clear();
  return failures;
}

}  // namespace railtune::net::ib
