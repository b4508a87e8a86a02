// A workload between two simulated hosts over the verbs transport: this process receives on host 0, a forked
// peer sends on host 1, both through the real net .so, each building the same plan (net_fault_workload.h).
// Shared by the transport's end-to-end tests and its QP x split x size matrix.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "formats/path_log.h"
#include "tests/e2e/net_fault_workload.h"
#include "tests/e2e/net_ib_harness.h"

namespace railtune::testing::netfault {

// The plan of one run, from the device's maxRecvs (both processes call it, so it must be deterministic).
using PlanMaker = std::function<Plan(int maxRecvs)>;

// 120 receives of random sizes, tags and groups from a seed (makePlan).
PlanMaker randomPlan(uint32_t seed);

// Every size alone, then grouped receives of up to maxRecvs buffers holding every size, sent in reverse and in a
// shuffled order, some with slack past the message: each buffer's content a seeded position-dependent pattern.
PlanMaker sizesPlan(std::vector<size_t> sizes, uint32_t seed);

// Runs `plan` from host 1 (sender) to host 0 (this process) on a fresh simulated fabric; gtest failures name
// what went wrong (a byte, a size, a WARN). With `pathLogs`, both processes write their path log there.
void runIbWorkload(ScopedEnv& env, const SimFabricSetup& setup, int version, const PlanMaker& plan,
                   const std::string& pathLogs = "");

// Both ends in this process (host 0, its HCA looped back): post() registers both buffers and posts the receive;
// the test then sends into it (or not).
struct LoopedBack {
  explicit LoopedBack(emu::NetDriver& driver) : net(driver) {}
  emu::NetDriver& net;
  LocalLink link;
  std::vector<std::byte> out = std::vector<std::byte>(1 << 20, std::byte{0x42}), in = std::vector<std::byte>(1 << 20);
  void* outRegion = nullptr;
  void* inRegion = nullptr;
  void* recv = nullptr;
  void* send = nullptr;
  void post();
};

// The first of `requests` to fail within `limit`; ncclSuccess when none did. A request reported done is not
// tested again, as NCCL would not.
ncclResult_t firstFailure(emu::NetDriver& net, std::vector<void*> requests, Millis limit);

// The path log records of every file under `dir`.
std::vector<formats::path_log::ParsedRecord> pathRecords(const std::string& dir);

}  // namespace railtune::testing::netfault
