// Memory registrations of one HCA port, cached as NCCL's IB transport caches them (src/transport/net_ib/
// reg.cc@v2.30.7): a buffer is registered over its whole page range; a later buffer inside a registered
// range reuses it (reference-counted), and the last release deregisters. Registration happens at setup, not
// on the data path, so a mutex is fine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "net_plugin/transports/ib/verbs_table.h"

namespace railtune::net::ib {

inline constexpr int kRegistrationAccess =
    kIbvAccessLocalWrite | kIbvAccessRemoteWrite | kIbvAccessRemoteRead | kIbvAccessRemoteAtomic;

struct CachedMr {
  uintptr_t begin = 0;  // page-aligned
  uintptr_t end = 0;
  int refs = 0;
  IbvMr* mr = nullptr;
  int dmabufFd = -1;  // -1: host or peer memory registered by address
};

class MrCache {
 public:
  // relaxedOrdering: NCCL_IB_PCI_RELAXED_ORDERING allows it (ncclib::relaxedOrderingEnabled); it is used only where
  // the table has ibv_reg_mr_iova2.
  MrCache(const VerbsTable& verbs, IbvPd* pd, bool relaxedOrdering)
      : verbs_(verbs), pd_(pd), relaxed_(relaxedOrdering) {}
  // The MR covering [data, data+size). Throws std::runtime_error with the verbs errno text when
  // registration fails. dmabufFd >= 0 registers through ibv_reg_dmabuf_mr at `offset` (IBVERBS_1.12).
  IbvMr* acquire(void* data, size_t size, int dmabufFd = -1, uint64_t offset = 0);
  // Throws std::invalid_argument when mr is not one this cache handed out.
  // Drops one reference; the last deregisters. Returns ibv_dereg_mr's result (0, or an errno).
  int release(IbvMr* mr);
  size_t entries() const;
  std::string clear();  // deregisters everything (teardown); the calls that failed, "" when none

 private:
  const VerbsTable& verbs_;
  IbvPd* pd_;
  bool relaxed_;
  mutable std::mutex mutex_;
  std::vector<CachedMr> cached_;
};

}  // namespace railtune::net::ib
