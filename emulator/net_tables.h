// Internal to the net driver: calls a generic lambda with the plugin's table as its own version's type,
// so each call site is written once and specialised per version with `if constexpr`.
#pragma once

#include <tuple>
#include <type_traits>

#include "nccl/net_v10.h"
#include "nccl/net_v11.h"
#include "nccl/net_v12.h"
#include "nccl/net_v6.h"
#include "nccl/net_v7.h"
#include "nccl/net_v8.h"
#include "nccl/net_v9.h"

namespace railtune::emu {

template <typename T>
struct NetVersion;
template <>
struct NetVersion<ncclNet_v6_t> : std::integral_constant<int, 6> {};
template <>
struct NetVersion<ncclNet_v7_t> : std::integral_constant<int, 7> {};
template <>
struct NetVersion<ncclNet_v8_t> : std::integral_constant<int, 8> {};
template <>
struct NetVersion<ncclNet_v9_t> : std::integral_constant<int, 9> {};
template <>
struct NetVersion<ncclNet_v10_t> : std::integral_constant<int, 10> {};
template <>
struct NetVersion<ncclNet_v11_t> : std::integral_constant<int, 11> {};
template <>
struct NetVersion<ncclNet_v12_t> : std::integral_constant<int, 12> {};

// The version of a table pointer's type: kNetVersion<decltype(t)> inside a generic lambda.
template <typename TablePtr>
inline constexpr int kNetVersion = NetVersion<std::remove_cv_t<std::remove_pointer_t<TablePtr>>>::value;

// Calls fn(const ncclNet_vN_t*) for the bound version; ncclInternalError for an unknown one.
template <typename Fn>
ncclResult_t withNetTable(int version, const void* table, Fn&& fn) {
  switch (version) {
    case 6:
      return fn(static_cast<const ncclNet_v6_t*>(table));
    case 7:
      return fn(static_cast<const ncclNet_v7_t*>(table));
    case 8:
      return fn(static_cast<const ncclNet_v8_t*>(table));
    case 9:
      return fn(static_cast<const ncclNet_v9_t*>(table));
    case 10:
      return fn(static_cast<const ncclNet_v10_t*>(table));
    case 11:
      return fn(static_cast<const ncclNet_v11_t*>(table));
    case 12:
      return fn(static_cast<const ncclNet_v12_t*>(table));
    default:
      return ncclInternalError;
  }
}

// The properties struct of each version, read off its getProperties(int, Props*) member.
template <typename F>
struct PointeeOfSecondArg;
template <typename R, typename A, typename B>
struct PointeeOfSecondArg<R (*)(A, B)> {
  using type = std::remove_pointer_t<B>;
};
template <typename TablePtr>
using NetPropertiesOf = typename PointeeOfSecondArg<decltype(std::remove_pointer_t<TablePtr>::getProperties)>::type;

// The config struct of a v11+ init(void** ctx, uint64_t commId, Config* config, logger, prof).
template <typename F>
struct PointeeOfThirdArg;
template <typename R, typename A, typename B, typename C, typename D, typename E>
struct PointeeOfThirdArg<R (*)(A, B, C, D, E)> {
  using type = std::remove_pointer_t<C>;
};
template <typename TablePtr>
using NetInitConfigOf = typename PointeeOfThirdArg<decltype(std::remove_pointer_t<TablePtr>::init)>::type;

// The argument types of a function pointer type, as a tuple.
template <typename F>
struct FunctionArgs;
template <typename R, typename... A>
struct FunctionArgs<R (*)(A...)> {
  using type = std::tuple<A...>;
};

}  // namespace railtune::emu
