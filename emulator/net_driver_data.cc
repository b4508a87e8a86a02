// NetDriver: data-path calls (registration, send/receive, flush, test) and setNetAttr, converting sizes
// the way NCCL's adapters do: int sizes before v8 (regMr) / v9 (isend, irecv), with their range checks.
#include <array>
#include <cstring>
#include <type_traits>

#include "emulator/net_driver.h"
#include "emulator/net_tables.h"

namespace railtune::emu {
namespace {

constexpr size_t kMaxNetSizeV8 = static_cast<size_t>(NCCL_MAX_NET_SIZE_V8);  // NCCL's MAX_NET_SIZE (1 GiB)
constexpr int kMaxSubs = 8;                                                  // NCCL_PROXY_MAX_SUBS
void* const kOptionalRecvCompletion = reinterpret_cast<void*>(NCCL_NET_OPTIONAL_RECV_COMPLETION);

}  // namespace

ncclResult_t NetDriver::regMr(void* comm, void* data, size_t size, int type, void** mhandle) {
  return withNetTable(version_, binding_.table, [&](const auto* t) -> ncclResult_t {
    if constexpr (kNetVersion<decltype(t)> <= 7) {
      if (size >= (1ULL << 31)) return ncclInternalError;
      return t->regMr(comm, data, static_cast<int>(size), type, mhandle);
    } else {
      return t->regMr(comm, data, size, type, mhandle);
    }
  });
}

ncclResult_t NetDriver::deregMr(void* comm, void* mhandle) {
  return withNetTable(version_, binding_.table, [&](const auto* t) { return t->deregMr(comm, mhandle); });
}

ncclResult_t NetDriver::isend(void* sendComm, void* data, size_t size, int tag, void* mhandle, void* phandle,
                              void** request) {
  return withNetTable(version_, binding_.table, [&](const auto* t) -> ncclResult_t {
    constexpr int v = kNetVersion<decltype(t)>;
    if constexpr (v <= 8) {
      if (size > kMaxNetSizeV8) return ncclInternalError;
      return t->isend(sendComm, data, static_cast<int>(size), tag, mhandle, request);
    } else if constexpr (v == 9) {
      return t->isend(sendComm, data, size, tag, mhandle, request);
    } else {
      return t->isend(sendComm, data, size, tag, mhandle, phandle, request);
    }
  });
}

ncclResult_t NetDriver::irecv(void* recvComm, int n, void** data, size_t* sizes, int* tags, void** mhandles,
                              void** phandles, void** request) {
  return withNetTable(version_, binding_.table, [&](const auto* t) -> ncclResult_t {
    constexpr int v = kNetVersion<decltype(t)>;
    if constexpr (v <= 8) {
      // The old adapters cannot complete early: they clear NCCL's "optional completion" marker.
      if (*request == kOptionalRecvCompletion) *request = nullptr;
      if (n < 0 || n > kMaxSubs) return ncclInternalError;
      std::array<int, kMaxSubs> sizesInt{};
      for (int i = 0; i < n; i++) {
        if (sizes[i] > kMaxNetSizeV8) return ncclInternalError;
        sizesInt[static_cast<size_t>(i)] = static_cast<int>(sizes[i]);
      }
      return t->irecv(recvComm, n, data, sizesInt.data(), tags, mhandles, request);
    } else if constexpr (v == 9) {
      return t->irecv(recvComm, n, data, sizes, tags, mhandles, request);
    } else {
      return t->irecv(recvComm, n, data, sizes, tags, mhandles, phandles, request);
    }
  });
}

ncclResult_t NetDriver::iflush(void* recvComm, int n, void** data, int* sizes, void** mhandles, void** request) {
  return withNetTable(version_, binding_.table,
                      [&](const auto* t) { return t->iflush(recvComm, n, data, sizes, mhandles, request); });
}

ncclResult_t NetDriver::test(void* request, int* done, int* sizes) {
  return withNetTable(version_, binding_.table, [&](const auto* t) { return t->test(request, done, sizes); });
}

bool NetDriver::hasSetNetAttr() const {
  if (version_ == 11) return static_cast<const ncclNet_v11_t*>(binding_.table)->setNetAttr != nullptr;
  if (version_ == 12) return static_cast<const ncclNet_v12_t*>(binding_.table)->setNetAttr != nullptr;
  return false;  // the adapters of older versions set it to NULL
}

ncclResult_t NetDriver::setNetAttr(ncclNetAttr_v12_t* attr) {
  if (!hasSetNetAttr()) return ncclInternalError;
  if (version_ == 11) {
    Poisoned<ncclNetAttr_v11_t> own;
    static_assert(sizeof(ncclNetAttr_v11_t) == sizeof(ncclNetAttr_v12_t), "v11 and v12 attributes share a layout");
    std::memcpy(own.get(), attr, sizeof(ncclNetAttr_v11_t));
    ncclResult_t r = static_cast<const ncclNet_v11_t*>(binding_.table)->setNetAttr(context_, own.get());
    if (!own.intact()) return violation("net.setNetAttr", "ncclNetAttr_v11_t");
    return r;
  }
  Poisoned<ncclNetAttr_v12_t> own;
  *own = *attr;
  ncclResult_t r = static_cast<const ncclNet_v12_t*>(binding_.table)->setNetAttr(context_, own.get());
  if (!own.intact()) return violation("net.setNetAttr", "ncclNetAttr_v12_t");
  return r;
}

}  // namespace railtune::emu
