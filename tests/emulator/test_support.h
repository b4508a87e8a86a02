// Shared helpers of the emulator tests: where the test plugins are, reading a plugin's sentinel echo,
// and the NCCL behaviours every loader rule is tested under.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "emulator/loader.h"
#include "tests/plugins/echo.h"

namespace railtune::emu::test {

inline std::string pluginDir() {
  return RAILTUNE_TEST_PLUGIN_DIR;
}
inline std::string pluginPath(const std::string& file) {
  return pluginDir() + "/" + file;
}

// Distinct sentinels, one per argument, so that a swapped pair of arguments cannot go unnoticed.
inline constexpr uint64_t kCommId = 0x1111222233334444ull;
inline constexpr size_t kRanks = 0x55;
inline constexpr size_t kNodes = 0x7;
// Wider than 32 bits: a size_t swapped with an int in a declaration would truncate it visibly.
inline constexpr size_t kBytes = 0x1234000ABCDEull;
inline constexpr size_t kSmallBytes = 0xABCDE;  // for the int sizes of net v6..v8
inline constexpr int kPipeOps = 3;
inline constexpr int kRegBuff = 1;
inline constexpr int kRank = 0x3;
inline constexpr int kTrafficClass = 0x2B;

template <typename T = void>
T* fakePointer(uintptr_t v) {
  return reinterpret_cast<T*>(v);
}
template <typename T>
uint64_t bits(T* p) {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p));
}
inline uint64_t bits(int v) {
  return static_cast<uint64_t>(static_cast<int64_t>(v));
}

// The echo record of the library a binding holds (each test plugin exports railtuneTestEcho).
inline rtEchoRecord* echoOf(const Binding& b) {
  if (!b.library) return nullptr;
  using EchoFn = rtEchoRecord* (*)();
  auto fn = reinterpret_cast<EchoFn>(b.library->symbol("railtuneTestEcho"));
  return fn ? fn() : nullptr;
}

inline void resetEcho(const Binding& b) {
  using ResetFn = void (*)();
  auto fn = b.library ? reinterpret_cast<ResetFn>(b.library->symbol("railtuneTestEchoReset")) : nullptr;
  if (fn) fn();
}

// The n-th recorded call of `func` ("tuner.init", ...), or null.
inline int recordedCalls(const rtEchoRecord* rec) {
  return rec ? std::min(rec->nCalls, RT_ECHO_MAX_CALLS) : 0;
}

inline const rtEchoCall* findCall(const rtEchoRecord* rec, const std::string& func, int nth = 0) {
  for (int i = 0; i < recordedCalls(rec); i++) {
    if (func == rec->calls[i].func && nth-- == 0) return &rec->calls[i];
  }
  return nullptr;
}

inline int countCalls(const rtEchoRecord* rec, const std::string& func) {
  int n = 0;
  for (int i = 0; i < recordedCalls(rec); i++) n += func == rec->calls[i].func ? 1 : 0;
  return n;
}

inline bool logHas(const std::vector<std::string>& log, const std::string& text) {
  return std::any_of(log.begin(), log.end(), [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

inline std::string joined(const std::vector<std::string>& log) {
  std::string s;
  for (const auto& l : log) s += l + "\n";
  return s;
}

inline bool endsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Every loader rule runs under every behaviour (2.28, 2.30, 2.31).
class BehaviourTest : public ::testing::TestWithParam<NcclBehaviour> {
 protected:
  NcclBehaviour behaviour() const { return GetParam(); }
  bool is230() const { return GetParam() >= NcclBehaviour::V2_30; }  // 2.30 or newer
  bool is231() const { return GetParam() >= NcclBehaviour::V2_31; }
  Loader loader(std::map<std::string, std::string> env) const { return Loader(GetParam(), EnvSource::fromMap(env)); }
};

inline std::string behaviourTestName(const ::testing::TestParamInfo<NcclBehaviour>& info) {
  return info.param == NcclBehaviour::V2_28 ? "nccl2_28" : info.param == NcclBehaviour::V2_30 ? "nccl2_30" : "nccl2_31";
}

// "v6" for a test instantiated per ABI version.
inline std::string versionTestName(const ::testing::TestParamInfo<int>& param) {
  std::string name("v");
  name += std::to_string(param.param);
  return name;
}

}  // namespace railtune::emu::test

#define RAILTUNE_BOTH_BEHAVIOURS(suite)                                                                                \
  INSTANTIATE_TEST_SUITE_P(Nccl, suite,                                                                                \
                           ::testing::Values(railtune::emu::NcclBehaviour::V2_28, railtune::emu::NcclBehaviour::V2_30, \
                                             railtune::emu::NcclBehaviour::V2_31),                                     \
                           railtune::emu::test::behaviourTestName)
