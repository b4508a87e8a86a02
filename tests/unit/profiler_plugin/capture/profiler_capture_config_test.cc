// RAILTUNE_PROFILE_MASK and the pool sizes, message sizes as nccl-tests reports them, and the
// NetPlugin descriptor decoding.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/params.h"
#include "formats/net_event.h"
#include "profiler_plugin/capture/make_capture.h"
#include "profiler_plugin/capture/mask.h"
#include "profiler_plugin/capture/message_size.h"
#include "profiler_plugin/capture/net_decode.h"
#include "tests/support/fake_env.h"

namespace railtune::profiler {
namespace {

using railtune::testing::fakeEnv;
using railtune::testing::fakeEnvVars;

constexpr EventMask bit(EventType type) {
  return static_cast<EventMask>(type);
}

TEST(ProfilerCaptureMask, DefaultIsWhatCompletionAndTheWatchdogNeed) {
  EXPECT_EQ(kDefaultProfileMask, bit(EventType::Coll) | bit(EventType::P2p) | bit(EventType::ProxyOp) |
                                     bit(EventType::KernelCh) | bit(EventType::KernelPhase) | bit(EventType::CeColl));
  EXPECT_EQ(parseProfileMask({}).mask, kDefaultProfileMask);
  EXPECT_EQ(parseProfileMask({"default"}).mask, kDefaultProfileMask);
  EXPECT_EQ(profileMaskNames(kDefaultProfileMask), "coll,p2p,proxyop,kernelch,kernelphase,cecoll");
}

TEST(ProfilerCaptureMask, NamesCombineCaseInsensitively) {
  const ParsedMask parsed = parseProfileMask({"Coll", "PROXYSTEP", "netplugin"});
  EXPECT_TRUE(parsed.error.empty());
  EXPECT_EQ(parsed.mask, bit(EventType::Coll) | bit(EventType::ProxyStep) | bit(EventType::NetPlugin));
  EXPECT_EQ(parseProfileMask({"all"}).mask, kAllProfileMask);
  EXPECT_EQ(parseProfileMask({"KernelPhase", "cecoll"}).mask, bit(EventType::KernelPhase) | bit(EventType::CeColl));
  EXPECT_EQ(parseProfileMask({"none"}).mask, 0u);
  EXPECT_EQ(profileMaskNames(0), "none");
}

TEST(ProfilerCaptureMask, AnUnknownNameIsRejectedWithTheDefault) {
  const ParsedMask parsed = parseProfileMask({"coll", "kernel"});
  EXPECT_NE(parsed.error.find("'kernel'"), std::string::npos);
  EXPECT_EQ(parsed.mask, kDefaultProfileMask);
}

TEST(ProfilerCaptureSettings, VariablesAreReadThroughTheRegistry) {
  fakeEnvVars() = {{"RAILTUNE_PROFILE_MASK", "coll,proxyop"},
                   {"RAILTUNE_PROFILE_OPERATIONS", "64"},
                   {"RAILTUNE_PROFILE_EVENTS", "1024"}};
  const CaptureSettings settings = readCaptureSettings(fakeEnv);
  EXPECT_TRUE(settings.errors.empty());
  EXPECT_EQ(settings.options.mask, bit(EventType::Coll) | bit(EventType::ProxyOp));
  EXPECT_EQ(settings.options.operationSlots, 64u);
  EXPECT_EQ(settings.options.eventSlots, 1024u);
}

TEST(ProfilerCaptureSettings, BadValuesNameTheVariableAndFallBackToDefaults) {
  fakeEnvVars() = {{"RAILTUNE_PROFILE_MASK", "coll,bogus"},
                   {"RAILTUNE_PROFILE_OPERATIONS", "3"},
                   {"RAILTUNE_PROFILE_EVENTS", "many"}};
  const CaptureSettings settings = readCaptureSettings(fakeEnv);
  ASSERT_EQ(settings.errors.size(), 3u);
  EXPECT_NE(settings.errors[0].find("RAILTUNE_PROFILE_MASK"), std::string::npos);
  EXPECT_NE(settings.errors[1].find("RAILTUNE_PROFILE_OPERATIONS='3': outside 16..1048576"), std::string::npos);
  EXPECT_NE(settings.errors[2].find("RAILTUNE_PROFILE_EVENTS='many'"), std::string::npos);
  EXPECT_EQ(settings.options.mask, kDefaultProfileMask);
  EXPECT_EQ(settings.options.operationSlots, 256u);
  EXPECT_EQ(settings.options.eventSlots, 4096u);
  fakeEnvVars().clear();
}

// The parameter table lists the names `railtune config` accepts; each must be one the parser knows.
TEST(ProfilerCaptureSettings, EveryNameTheParameterTableAllowsParses) {
  const ParamSpec* spec = findParam("RAILTUNE_PROFILE_MASK");
  ASSERT_NE(spec, nullptr);
  std::string names = spec->allowed;
  std::replace(names.begin(), names.end(), '|', ',');
  const std::vector<std::string> items = splitList(names);
  EXPECT_EQ(items.size(), 11u) << names;
  for (const std::string& item : items) EXPECT_EQ(parseProfileMask({item}).error, "") << item;
}

TEST(ProfilerCaptureSettings, TheFactoryTakesKernelEventsFromTheAbiVersion) {
  fakeEnvVars().clear();
  const Log log("test");
  auto v5 = makeCaptureEngine(CommInfo{}, 5, nullptr, log, fakeEnv);
  // KernelPhase is v7's: not asked of NCCL through an older table.
  EXPECT_EQ(v5->activationMask(), kDefaultProfileMask & ~bit(EventType::KernelPhase) & ~bit(EventType::CeColl));
  EXPECT_STREQ(v5->name(), "capture");
  auto v7 = makeCaptureEngine(CommInfo{}, 7, nullptr, log, fakeEnv);
  EXPECT_EQ(v7->activationMask(), kDefaultProfileMask);
}

TEST(ProfilerCaptureMessageSize, FollowsNcclTestsSizes) {
  EXPECT_EQ(datatypeSize("ncclFloat32"), 4u);
  EXPECT_EQ(datatypeSize("ncclBfloat16"), 2u);
  EXPECT_EQ(datatypeSize("ncclFloat8e4m3"), 1u);
  EXPECT_EQ(datatypeSize("ncclUint64"), 8u);
  EXPECT_EQ(datatypeSize("Unknown"), 0u);
  EXPECT_EQ(messageBytes("AllReduce", 1000, "ncclFloat32", 8), 4000u);
  EXPECT_EQ(messageBytes("Broadcast", 1000, "ncclFloat32", 8), 4000u);
  EXPECT_EQ(messageBytes("Reduce", 1000, "ncclFloat32", 8), 4000u);
  EXPECT_EQ(messageBytes("AllGather", 1000, "ncclFloat32", 8), 32000u);
  EXPECT_EQ(messageBytes("ReduceScatter", 1000, "ncclFloat16", 8), 16000u);
  EXPECT_EQ(messageBytes("AlltoAll", 10, "ncclInt8", 4), 40u);
  EXPECT_EQ(messageBytes("Send", 10, "ncclInt64", 4), 80u);
  EXPECT_EQ(messageBytes("AllGather", 1000, "ncclFloat32", 0), 4000u) << "nRanks unknown (v1..v3)";
  EXPECT_EQ(messageBytes("AllReduce", 1000, "Unknown", 8), 0u);
}

TEST(ProfilerCaptureNetDecode, RailtuneEventsNameDeviceHcaRailAndPlane) {
  railtuneNetEventDescr_v1_t event{};
  event.device = 5;
  event.hca = "mlx5_5";
  event.rail = 5;
  event.plane = 0;
  NetEndpoint out;
  ASSERT_EQ(decodeNetEvent(RAILTUNE_PROFILER_NET_TYPE | 1, &event, out), NetDecode::Railtune);
  EXPECT_EQ(out.device, 5);
  EXPECT_EQ(out.label.view(), "mlx5_5");
  EXPECT_EQ(out.rail, 5);
  EXPECT_EQ(out.plane, 0);
}

TEST(ProfilerCaptureNetDecode, NcclIbAndSocketDescriptorsAreLabelled) {
  NcclNetIbDescrV1 ib{};
  ib.type = kNcclProfileQp;
  ib.qp.device = 2;
  ib.qp.qpNum = 417;
  NetEndpoint out;
  ASSERT_EQ(decodeNetEvent(kNcclNetTypeIb | 1, &ib, out), NetDecode::NcclIb);
  EXPECT_EQ(out.label.view(), "ib dev 2 qp 417");
  EXPECT_EQ(out.device, 2);
  NcclNetSockDescrV1 sock{};
  sock.type = kNcclProfileSocket;
  sock.sock.fd = 17;
  NetEndpoint sockOut;
  ASSERT_EQ(decodeNetEvent(kNcclNetTypeSocket | 1, &sock, sockOut), NetDecode::NcclSocket);
  EXPECT_EQ(sockOut.label.view(), "socket fd 17");
  EXPECT_EQ(sockOut.device, -1);
}

TEST(ProfilerCaptureNetDecode, UnknownTypesVersionsAndNullDataAreRefused) {
  NcclNetIbDescrV1 ib{};
  ib.type = kNcclProfileQp;
  NetEndpoint out;
  EXPECT_EQ(decodeNetEvent(kNcclNetTypeIb | 1, nullptr, out), NetDecode::Unknown);
  EXPECT_EQ(decodeNetEvent(kNcclNetTypeIb | 2, &ib, out), NetDecode::Unknown);
  EXPECT_EQ(decodeNetEvent(kNcclNetTypeIb, &ib, out), NetDecode::Unknown);
  EXPECT_EQ(decodeNetEvent((3 << 16) | 1, &ib, out), NetDecode::Unknown);
  ib.type = 4;
  EXPECT_EQ(decodeNetEvent(kNcclNetTypeIb | 1, &ib, out), NetDecode::Unknown);
  EXPECT_EQ(out.device, -1);
}

}  // namespace
}  // namespace railtune::profiler
