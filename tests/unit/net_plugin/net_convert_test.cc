#include "net_plugin/adapter_convert.h"

#include <gtest/gtest.h>

#include "nccl/net_v10.h"
#include "nccl/net_v11.h"
#include "nccl/net_v6.h"
#include "nccl/net_v9.h"

namespace railtune::net::adapter {
namespace {

ncclNetProperties_v12_t sampleProperties() {
  ncclNetProperties_v12_t p{};
  static char name[] = "mlx5_0";
  static char pci[] = "/sys/devices/pci0000:00/0000:00:01.0";
  p.name = name;
  p.pciPath = pci;
  p.guid = 0xabc;
  p.ptrSupport = NCCL_PTR_HOST | NCCL_PTR_CUDA;
  p.regIsGlobal = 1;
  p.forceFlush = 1;
  p.speed = 400000;
  p.port = 1;
  p.latency = 2.5f;
  p.maxComms = 65536;
  p.maxRecvs = 8;
  p.netDeviceType = NCCL_NET_DEVICE_HOST;
  p.vProps.ndevs = 6;
  for (int i = 0; i < 6; ++i) p.vProps.devs[i] = 10 + i;
  p.maxP2pBytes = 1 << 30;
  p.maxCollBytes = 1 << 29;
  p.maxMultiRequestSize = 4;
  p.railId = 3;
  p.planeId = 1;
  return p;
}

TEST(NetConvertTest, V11KeepsEverythingButRailAndPlaneAndCapsVirtualDevices) {
  const ncclNetProperties_v12_t in = sampleProperties();
  ncclNetProperties_v11_t out;
  narrowProperties(in, &out);
  EXPECT_STREQ(out.name, "mlx5_0");
  EXPECT_EQ(out.guid, 0xabcu);
  EXPECT_EQ(out.speed, 400000);
  EXPECT_EQ(out.regIsGlobal, 1);
  EXPECT_EQ(out.forceFlush, 1);
  EXPECT_EQ(out.maxMultiRequestSize, 4);
  EXPECT_EQ(out.maxP2pBytes, size_t{1} << 30);
  EXPECT_EQ(out.vProps.ndevs, 4) << "v11 holds 4 physical devices";
  EXPECT_EQ(out.vProps.devs[3], 13);
}

TEST(NetConvertTest, V9HasNoMultiRequestSize) {
  ncclNetProperties_v9_t out;
  narrowProperties(sampleProperties(), &out);
  EXPECT_EQ(out.maxCollBytes, size_t{1} << 29);
  EXPECT_EQ(out.netDeviceType, NCCL_NET_DEVICE_HOST);
}

TEST(NetConvertTest, V6KeepsOnlyItsOwnFields) {
  ncclNetProperties_v6_t out;
  narrowProperties(sampleProperties(), &out);
  EXPECT_STREQ(out.pciPath, "/sys/devices/pci0000:00/0000:00:01.0");
  EXPECT_EQ(out.ptrSupport, NCCL_PTR_HOST | NCCL_PTR_CUDA);
  EXPECT_EQ(out.latency, 2.5f);
  EXPECT_EQ(out.maxComms, 65536);
  EXPECT_EQ(out.maxRecvs, 8);
  EXPECT_EQ(out.port, 1);
}

TEST(NetConvertTest, OlderConfigsWidenToV12sAndV12sPassThrough) {
  ncclNetCommConfig_v12_t scratch{};
  ncclNetCommConfig_v10_t v10{};
  v10.trafficClass = 106;
  ncclNetCommConfig_v12_t* widened = asNewest(&v10, scratch);
  ASSERT_EQ(widened, &scratch);
  EXPECT_EQ(widened->trafficClass, 106);
  EXPECT_EQ(asNewest(static_cast<ncclNetCommConfig_v11_t*>(nullptr), scratch), nullptr) << "no config stays none";

  ncclNetCommConfig_v12_t v12{};
  EXPECT_EQ(asNewest(&v12, scratch), &v12) << "v12's own config is the boundary's: not copied";
}

TEST(NetConvertTest, V11AttributesWidenFieldByField) {
  ncclNetAttr_v11_t v11{};
  v11.sendCommAttr = {1, 2, 3, 4};
  v11.recvCommAttr = {5, 6, 7, 8};
  v11.op = 9;
  v11.algo = 10;
  v11.proto = 11;
  ncclNetAttr_v12_t scratch{};
  const ncclNetAttr_v12_t* widened = asNewest(&v11, scratch);
  ASSERT_EQ(widened, &scratch);
  EXPECT_EQ(widened->sendCommAttr.maxConcurrentPeers, 1);
  EXPECT_EQ(widened->sendCommAttr.minFlowsPerPeer, 4);
  EXPECT_EQ(widened->recvCommAttr.minConcurrentPeers, 6);
  EXPECT_EQ(widened->recvCommAttr.maxFlowsPerPeer, 7);
  EXPECT_EQ(widened->op, 9u);
  EXPECT_EQ(widened->algo, 10u);
  EXPECT_EQ(widened->proto, 11u);
  EXPECT_EQ(asNewest(static_cast<ncclNetAttr_v11_t*>(nullptr), scratch), nullptr);
  ncclNetAttr_v12_t v12{};
  EXPECT_EQ(asNewest(&v12, scratch), &v12);
}

}  // namespace
}  // namespace railtune::net::adapter
