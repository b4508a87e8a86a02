// NetDriver: the optional members NCCL calls only when a plugin provides them (regMrDmaBuf,
// getDeviceMr, irecvConsumed, makeVDevice). The adapters of versions that lack one report it absent.
#include <algorithm>
#include <type_traits>

#include "emulator/net_driver.h"
#include "emulator/net_tables.h"

namespace railtune::emu {
namespace {

// True when the bound version has the member and the plugin filled it in.
template <typename Check>
bool hasMember(int version, const void* table, Check&& check) {
  return withNetTable(version, table, [&](const auto* t) -> ncclResult_t {
           return check(t) ? ncclSuccess : ncclInternalError;
         }) == ncclSuccess;
}

}  // namespace

bool NetDriver::hasRegMrDmaBuf() const {
  return hasMember(version_, binding_.table, [](const auto* t) { return t->regMrDmaBuf != nullptr; });
}

ncclResult_t NetDriver::regMrDmaBuf(void* comm, void* data, size_t size, int type, uint64_t offset, int fd,
                                    void** mhandle) {
  if (!hasRegMrDmaBuf()) return ncclInternalError;
  return withNetTable(version_, binding_.table,
                      [&](const auto* t) { return t->regMrDmaBuf(comm, data, size, type, offset, fd, mhandle); });
}

bool NetDriver::hasGetDeviceMr() const {
  return hasMember(version_, binding_.table, [](const auto* t) {
    if constexpr (kNetVersion<decltype(t)> >= 7)
      return t->getDeviceMr != nullptr;
    else
      return false;
  });
}

ncclResult_t NetDriver::getDeviceMr(void* comm, void* mhandle, void** dptrMhandle) {
  if (!hasGetDeviceMr()) return ncclInternalError;
  return withNetTable(version_, binding_.table, [&](const auto* t) -> ncclResult_t {
    if constexpr (kNetVersion<decltype(t)> >= 7)
      return t->getDeviceMr(comm, mhandle, dptrMhandle);
    else
      return ncclInternalError;
  });
}

bool NetDriver::hasIrecvConsumed() const {
  return hasMember(version_, binding_.table, [](const auto* t) {
    if constexpr (kNetVersion<decltype(t)> >= 7)
      return t->irecvConsumed != nullptr;
    else
      return false;
  });
}

ncclResult_t NetDriver::irecvConsumed(void* recvComm, int n, void* request) {
  if (!hasIrecvConsumed()) return ncclInternalError;
  return withNetTable(version_, binding_.table, [&](const auto* t) -> ncclResult_t {
    if constexpr (kNetVersion<decltype(t)> >= 7)
      return t->irecvConsumed(recvComm, n, request);
    else
      return ncclInternalError;
  });
}

bool NetDriver::hasMakeVDevice() const {
  return hasMember(version_, binding_.table, [](const auto* t) {
    if constexpr (kNetVersion<decltype(t)> >= 9)
      return t->makeVDevice != nullptr;
    else
      return false;
  });
}

// NCCL hands the newest struct cast to the old one (it limits ndevs for old plugins); the emulator
// copies into the plugin's own version so that the poison guard sits right behind it.
ncclResult_t NetDriver::makeVDevice(int* d, ncclNetVDeviceProps_v12_t* props) {
  if (!hasMakeVDevice()) return ncclInternalError;
  return withNetTable(version_, binding_.table, [&](const auto* t) -> ncclResult_t {
    if constexpr (kNetVersion<decltype(t)> >= 9) {
      using VProps = std::remove_pointer_t<std::tuple_element_t<
          1, typename FunctionArgs<decltype(std::remove_pointer_t<decltype(t)>::makeVDevice)>::type>>;
      Poisoned<VProps> own;
      constexpr int capacity = static_cast<int>(sizeof(own->devs) / sizeof(own->devs[0]));
      if (props->ndevs < 0 || props->ndevs > capacity) return ncclInvalidArgument;
      own->ndevs = props->ndevs;
      std::copy_n(props->devs, props->ndevs, own->devs);
      ncclResult_t r = t->makeVDevice(d, own.get());
      if (!own.intact()) return violation("net.makeVDevice", "ncclNetVDeviceProps_t");
      return r;
    } else {
      return ncclInternalError;
    }
  });
}

}  // namespace railtune::emu
