// The NCCL INFO line reader (analysis/nccl_log/log_line.h), one format at a time. Each line below is written
// from the format string of the NCCL version named beside it (docs/nccl-logs.md has the file:line of each).
#include <gtest/gtest.h>

#include "analysis/nccl_log/log_line.h"

namespace railtune::analysis::nccl_log {
namespace {

TEST(NcclLogHeader, PlainOpenMpiTimestampAndSlurmPrefixes) {
  auto h = splitHeader("tpgds-aihub0008:207007:208304 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->host, "tpgds-aihub0008");
  EXPECT_EQ(h->pid, 207007);
  EXPECT_EQ(h->tid, 208304);
  EXPECT_EQ(h->device, 0);
  EXPECT_EQ(h->level, "INFO");
  EXPECT_EQ(h->message, "NET/IB : Using [0]mlx5_0:1/RoCE");

  h = splitHeader("[1,9]<stdout>:nccl-tests-efa-16-worker-1:26:67 [1] NCCL INFO Channel 00 : 9[101d0] -> 0[101c0]");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->host, "nccl-tests-efa-16-worker-1");
  EXPECT_EQ(h->pid, 26);
  EXPECT_EQ(h->device, 1);

  // NCCL_DEBUG_TIMESTAMP_FORMAT's default "[%F %T] " (2.26+), then srun's "3: " label.
  h = splitHeader("3: [2026-11-30 10:00:01] gb-0042:81:95 [3] NCCL INFO Using network IB");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->host, "gb-0042");
  EXPECT_EQ(h->message, "Using network IB");

  // A Ray worker's "(pid=81, ip=10.0.0.1)" prefix.
  h = splitHeader("(RayWorker pid=81, ip=10.0.0.1) gb-0042:81:81 [0] NCCL INFO comm 0x1 rank 0 nRanks 2");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->host, "gb-0042");
}

TEST(NcclLogHeader, OtherLinesAreNotNccls) {
  EXPECT_FALSE(splitHeader("NCCL version 2.9.9+cuda11.2"));
  EXPECT_FALSE(splitHeader("[rank0]: Traceback (most recent call last):"));
  EXPECT_FALSE(splitHeader("host:12 [0] NCCL INFO missing tid"));
  EXPECT_FALSE(splitHeader("host:x:12 [0] NCCL INFO bad pid"));
  EXPECT_FALSE(splitHeader(":12:13 [0] NCCL INFO no host"));
  EXPECT_FALSE(splitHeader(""));
}

TEST(NcclLogHeader, VersionWithAndWithoutHeader) {
  EXPECT_EQ(versionOf("[1,0]<stdout>:NCCL version 2.9.9+cuda11.2").value_or(""), "2.9.9+cuda11.2");
  EXPECT_EQ(versionOf("h:1:1 [0] NCCL INFO NCCL version 2.29.3+cuda13.1").value_or(""), "2.29.3+cuda13.1");
  EXPECT_FALSE(versionOf("h:1:1 [0] NCCL INFO NCCL git version stable dcf2a2fbe"));
}

ChannelLine channel(std::string_view message) {
  ChannelLine line;
  std::string why;
  EXPECT_EQ(parseChannel(message, &line, &why), ChannelParse::Ok) << why;
  return line;
}

TEST(NcclLogChannel, TwoSevenToTwoElevenPrintBusIdsAndNoConnIndex) {
  // 2.7.8 net.cc:100 "Channel %02d : %d[%lx] -> %d[%lx] [send] via NET/%s/%d%s"
  const ChannelLine l = channel("Channel 01 : 2[c7000] -> 0[87000] [send] via NET/IB/1/GDRDMA");
  EXPECT_EQ(l.channel, 1);
  EXPECT_EQ(l.connIndex, -1);
  EXPECT_EQ(l.fromRank, 2);
  EXPECT_EQ(l.toRank, 0);
  EXPECT_EQ(l.fromTag, "c7000");
  EXPECT_EQ(l.side, ChannelLine::Side::Send);
  EXPECT_EQ(l.via, ChannelVia::Net);
  EXPECT_EQ(l.net, "IB");
  EXPECT_EQ(l.netDevice, 1);
  EXPECT_TRUE(l.gdr);
  EXPECT_FALSE(l.shared);
  // 2.11.4: "/Shared" after the GDR flag; the receive side; no GDR.
  const ChannelLine r = channel("Channel 00 : 1[1e0] -> 0[1e0] [receive] via NET/Socket/0/Shared");
  EXPECT_EQ(r.side, ChannelLine::Side::Receive);
  EXPECT_EQ(r.net, "Socket");
  EXPECT_FALSE(r.gdr);
  EXPECT_TRUE(r.shared);
}

TEST(NcclLogChannel, NetworkNamesWithSpacesAndPxnProxies) {
  const ChannelLine aws = channel("Channel 03 : 15[a01d0] -> 6[a01c0] [receive] via NET/AWS Libfabric/2/GDRDMA");
  EXPECT_EQ(aws.net, "AWS Libfabric");
  EXPECT_EQ(aws.netDevice, 2);
  // 2.30.7 net.cc:328 "... [send] via NET/%s/%d(%d)%s%s%s": rank 2's proxy drives NIC 5.
  const ChannelLine pxn = channel("Channel 04/0 : 5[5] -> 12[4] [send] via NET/IB/5(2)/GDRDMA(PCI)/Shared");
  EXPECT_EQ(pxn.connIndex, 0);
  EXPECT_EQ(pxn.netDevice, 5);
  EXPECT_EQ(pxn.proxyRank, 2);
  EXPECT_TRUE(pxn.gdr);
  EXPECT_TRUE(pxn.shared);
  EXPECT_EQ(pxn.fromTag, "5");
  const ChannelLine plugin = channel("Channel 02/1 : 0[0] -> 9[1] [send] via NET/NCCL RDMA Plugin v6/3");
  EXPECT_EQ(plugin.net, "NCCL RDMA Plugin v6");
  EXPECT_EQ(plugin.connIndex, 1);
  EXPECT_FALSE(plugin.gdr);
}

TEST(NcclLogChannel, TwoThirtyOneReceiveLinesSayHowGdrIsFlushed) {
  // 2.31.2 net.cc:395 "... [receive] via NET/%s/%d%s%s%s%s%s": "/flush=" and its kind after "/Shared".
  const ChannelLine shared = channel("Channel 01/1 : 3[2] -> 12[4] [receive] via NET/IB/4/GDRDMA/Shared/flush=Always");
  EXPECT_EQ(shared.netDevice, 4);
  EXPECT_TRUE(shared.gdr);
  EXPECT_TRUE(shared.shared);
  EXPECT_EQ(shared.flush, "Always");
  const ChannelLine pci = channel("Channel 00/0 : 3[2] -> 12[4] [receive] via NET/IBext_v8/1/GDRDMA(PCI)/flush=C2c");
  EXPECT_EQ(pci.net, "IBext_v8");
  EXPECT_EQ(pci.netDevice, 1);
  EXPECT_TRUE(pci.gdr);
  EXPECT_FALSE(pci.shared);
  EXPECT_EQ(pci.flush, "C2c");
  EXPECT_EQ(channel("Channel 00/0 : 3[2] -> 12[4] [receive] via NET/IB/1/GDRDMA/flush=None").flush, "None");
  EXPECT_EQ(channel("Channel 00/0 : 3[2] -> 12[4] [receive] via NET/IB/1").flush, "");
  ChannelLine line;
  std::string why;
  EXPECT_EQ(parseChannel("Channel 00/0 : 3[2] -> 12[4] [receive] via NET/IB/1/GDRDMA/flush=Alw", &line, &why),
            ChannelParse::Bad);
  EXPECT_NE(why.find("unreadable flush"), std::string::npos) << why;
}

TEST(NcclLogChannel, LocalTransportsAreCountedKinds) {
  EXPECT_EQ(channel("Channel 00/0 : 8[0] -> 15[7] via P2P/IPC").via, ChannelVia::P2p);
  EXPECT_EQ(channel("Channel 00 : 0[1b000] -> 1[1c000] via P2P/direct pointer").via, ChannelVia::P2p);
  EXPECT_EQ(channel("Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read").via, ChannelVia::P2p);
  EXPECT_EQ(channel("Channel 00 : 0[1b000] -> 1[1c000] via direct shared memory").via, ChannelVia::Shm);
  EXPECT_EQ(channel("Channel 01 : 0[0] -> 1[1] via SHM/direct/direct").via, ChannelVia::Shm);
}

TEST(NcclLogChannel, RingAndTreeListingsAreNotConnections) {
  ChannelLine line;
  std::string why;
  EXPECT_EQ(parseChannel("Channel 00/02 :    0   1", &line, &why), ChannelParse::NotChannel);
  EXPECT_EQ(parseChannel("Channel 00/24 : 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15", &line, &why),
            ChannelParse::NotChannel);
  EXPECT_EQ(parseChannel("Trees [0] 1/-1/-1->0->-1 [1] -1/-1/-1->0->1", &line, &why), ChannelParse::NotChannel);
  EXPECT_EQ(parseChannel("Connected all rings, use ring PXN 0 GDR 1", &line, &why), ChannelParse::NotChannel);
}

TEST(NcclLogChannel, CutLinesAreBadWithAReason) {
  ChannelLine line;
  std::string why;
  EXPECT_EQ(parseChannel("Channel 00/0 : 1[1] -> 8[0] [receive] via NET/IB/", &line, &why), ChannelParse::Bad);
  EXPECT_NE(why.find("no network device"), std::string::npos) << why;
  EXPECT_EQ(parseChannel("Channel 00/0 : 1[1] -> 8[", &line, &why), ChannelParse::Bad);
  EXPECT_EQ(parseChannel("Channel 00/0 : 1[1] -> 8[0] [rece", &line, &why), ChannelParse::Bad);
  EXPECT_EQ(parseChannel("Channel 07/0 : 8[0] -> 7[7] via NET/IB/0", &line, &why), ChannelParse::Bad)
      << "a network line always says [send] or [receive]";
  EXPECT_EQ(parseChannel("Channel 07/0 : 8[0] -> 7[7] [send] via NET/IB/5(x)", &line, &why), ChannelParse::Bad);
}

TEST(NcclLogChannel, LinesCutBeforeTheArrowAreBadNotListings) {
  // A ring listing always has a rank after the colon (rings.cc:9-16,31 at NCCL commit 1cb208d); a line with none, or
  // with a "RANK[DEV]" and no arrow, is a connection line cut short: counted, never passed over.
  ChannelLine line;
  std::string why;
  for (const char* cut : {"Channel 05/0 :", "Channel 05/0 : ", "Channel 05 :", "Channel 05/0", "Channel 05/",
                          "Channel 05/0 : 3[3]", "Channel 05/0 : 3[3] ->", "Channel 05 : 0[1b000"}) {
    why.clear();
    EXPECT_EQ(parseChannel(cut, &line, &why), ChannelParse::Bad) << cut;
    EXPECT_FALSE(why.empty()) << cut;
  }
  EXPECT_NE((parseChannel("Channel 05/0 :", &line, &why), why).find("nothing after the ' : '"), std::string::npos);
  EXPECT_EQ(parseChannel("Channel 00/02 :  0", &line, &why), ChannelParse::NotChannel);
}

DeviceList devices(std::string_view message) {
  DeviceList list;
  std::string why;
  EXPECT_EQ(parseDeviceList(message, &list, &why), DeviceListParse::Ok) << why;
  return list;
}

TEST(NcclLogDevices, IbListsOfEachEra) {
  // 2.7-2.11: "NET/IB : Using%s ; OOB %s:%s"
  DeviceList l = devices("NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ib0:10.0.0.1<0>");
  ASSERT_EQ(l.devices.size(), 2u);
  EXPECT_EQ(l.net, "IB");
  EXPECT_EQ(l.devices[1].name, "mlx5_1");
  EXPECT_EQ(l.devices[1].port, 1);
  EXPECT_EQ(l.devices[1].link, "IB");
  EXPECT_FALSE(l.relaxedOrdering);
  // 2.12+: "[RO]" before "; OOB"; a non-contiguous NCCL_IB_HCA keeps NCCL's indices.
  l = devices("NET/IB : Using [0]mlx5_0:1/RoCE [7]mlx5_11:1/RoCE [RO]; OOB enp25s0np0:10.99.91.63<0>");
  ASSERT_EQ(l.devices.size(), 2u);
  EXPECT_EQ(l.devices[1].index, 7);
  EXPECT_EQ(l.devices[1].name, "mlx5_11");
  EXPECT_EQ(l.devices[1].link, "RoCE");
  EXPECT_TRUE(l.relaxedOrdering);
}

TEST(NcclLogDevices, MergedEntriesOfTwoTwentyTakeTheirPlaceInTheList) {
  // 2.20.3-2.23.4 net_ib.cc: " [%d]={" "[%d] %s:%d/%s, " "}"; an unmerged entry prints its physical index (2),
  // while Channel lines name it by its place in the list (1).
  const DeviceList l =
      devices("NET/IB : Using [0]={[0] mlx5_0:1/RoCE, [1] mlx5_0:2/RoCE} [2]mlx5_2:1/IB [RO]; OOB eth0:10.0.0.1<0>");
  ASSERT_EQ(l.devices.size(), 2u);
  EXPECT_EQ(l.devices[0].name, "mlx5_0");
  EXPECT_EQ(l.devices[0].merged.size(), 2u);
  EXPECT_EQ(l.devices[0].port, -1) << "ports 1 and 2 merged";
  EXPECT_EQ(l.devices[1].index, 1);
  EXPECT_EQ(l.devices[1].name, "mlx5_2");
  const DeviceList two = devices("NET/IB : Using [0]={[0] mlx5_0:1/IB, [1] mlx5_1:1/IB}; OOB eth0:10.0.0.1<0>");
  EXPECT_EQ(two.devices[0].name, "mlx5_0+mlx5_1");
  EXPECT_EQ(two.devices[0].port, 1);
}

TEST(NcclLogDevices, TwoThirtyPrintsRailAndPlane) {
  // 2.30.7 net_ib/init.cc:494-504: " [%d]%s:%d", then ":rail" (or ":" when only a plane is set), ":plane", "/LINK".
  const DeviceList l = devices(
      "NET/IB : Using [0]mlx5_0:1:0:0/IB [1]mlx5_1:1:0:1/IB [2]mlx5_2:1:3/IB [3]mlx5_3:1::1/IB [4]mlx5_4:1/IB "
      "[RO]; OOB eth0:10.0.0.1<0>");
  ASSERT_EQ(l.devices.size(), 5u);
  EXPECT_EQ(l.devices[1].rail, 0);
  EXPECT_EQ(l.devices[1].plane, 1);
  EXPECT_EQ(l.devices[2].rail, 3);
  EXPECT_EQ(l.devices[2].plane, -1);
  EXPECT_EQ(l.devices[3].rail, -1);
  EXPECT_EQ(l.devices[3].plane, 1);
  EXPECT_EQ(l.devices[4].rail, -1);
}

TEST(NcclLogDevices, SocketListsAndThingsThatAreNotLists) {
  const DeviceList s = devices("NET/Socket : Using [0]eth0:10.0.139.244<0> [1]eth1:10.1.0.2<0>");
  ASSERT_EQ(s.devices.size(), 2u);
  EXPECT_EQ(s.devices[0].name, "eth0");
  EXPECT_EQ(s.devices[0].address, "10.0.139.244<0>");
  EXPECT_EQ(s.devices[0].port, -1);
  DeviceList list;
  std::string why;
  EXPECT_EQ(parseDeviceList("NET/Socket: Using 2 threads and 8 sockets per thread", &list, &why),
            DeviceListParse::NotDeviceList);
  EXPECT_EQ(parseDeviceList("NET/Plugin: Failed to find ncclNetPlugin_v10 symbol.", &list, &why),
            DeviceListParse::NotDeviceList);
  EXPECT_EQ(parseDeviceList("NET/IB : Using [0]mlx5_0", &list, &why), DeviceListParse::Bad);
  // Cut at 1023 characters (NCCL < 2.29): the entries before the cut stand.
  ASSERT_EQ(parseDeviceList("NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_", &list, &why), DeviceListParse::Ok);
  EXPECT_TRUE(list.cut);
  EXPECT_EQ(list.devices.size(), 2u);
  EXPECT_EQ(parseDeviceList("NET/IB : Using ; OOB eth0:1.2.3.4<0>", &list, &why), DeviceListParse::Bad);
}

TEST(NcclLogComm, InitLinesOfEachEra) {
  // 2.8-2.15: no commId, no nvmlDev.
  auto c = parseCommLine("comm 0x7f85a4000fa0 rank 0 nranks 2 cudaDev 0 busId 1e0 - Init COMPLETE");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->pointer, "0x7f85a4000fa0");
  EXPECT_EQ(c->rank, 0);
  EXPECT_EQ(c->nRanks, 2);
  EXPECT_FALSE(c->commId);
  EXPECT_EQ(c->busId.value_or(0), 0x1e0);
  // 2.21+: the function's name first; 2.29+: "[Rank N] " before it.
  c = parseCommLine(
      "[Rank 2] ncclCommInitRank comm 0x55db95387730 rank 2 nranks 16 cudaDev 2 nvmlDev 5 busId 3b000 commId "
      "0x35712f37c64c1510 - Init START");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->commId.value_or(0), 0x35712f37c64c1510ULL);
  EXPECT_EQ(c->cudaDev, 2);
  EXPECT_EQ(c->nvmlDev, 5);
  EXPECT_EQ(c->nRanks, 16);
  // 2.23+ split: "key %d- Init START" has no space before the dash (v2.30.7 init.cc:1886); still a START.
  c = parseCommLine(
      "ncclCommSplit comm 0x1 rank 1 nranks 4 cudaDev 1 nvmlDev 1 busId 1b000 parent 0x2 color 3 key 1- "
      "Init START");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->rank, 1);
  EXPECT_TRUE(c->start);
  EXPECT_FALSE(c->commId);
  // 2.31.2 split: the child's commId again, and "key %d - Init START".
  c = parseCommLine(
      "ncclCommSplit comm 0x55d0a1c2e8f0 rank 3 nranks 8 cudaDev 3 nvmlDev 3 busId 7b000 commId 0x9f3e21c4a0b5d677 "
      "parent 0x55d0a1b00010 childCount 1 color 0 key 3 - Init START");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->rank, 3);
  EXPECT_EQ(c->nRanks, 8);
  EXPECT_EQ(c->commId.value_or(0), 0x9f3e21c4a0b5d677ULL);
  EXPECT_TRUE(c->start);
  c = parseCommLine(
      "ncclCommSplit comm 0x55d0a1c2e8f0 rank 3 nranks 8 cudaDev 3 nvmlDev 3 busId 7b000 commId 0x9f3e21c4a0b5d677 "
      "parent 0x55d0a1b00010 childCount 1 color 0 key 3 - Init COMPLETE");
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->start);
  // 2.31.2 init.cc:398, printed under NCCL_DEBUG_SUBSYS=DESTROY: the commId of the communicator destroyed.
  c = parseCommLine(
      "comm 0x55d0a1c2e8f0 rank 3 nranks 8 cudaDev 3 busId 7b000 commId 0x9f3e21c4a0b5d677 - Destroy "
      "COMPLETE");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->commId.value_or(0), 0x9f3e21c4a0b5d677ULL);
  EXPECT_FALSE(c->start);
  // 2.20+'s summary line.
  c = parseCommLine("comm 0x55a223a946d0 rank 8 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->nRanks, 16);
  EXPECT_FALSE(parseCommLine("comm 0x1 rank 0 nRanks"));
  EXPECT_FALSE(parseCommLine("commit the changes"));
  EXPECT_FALSE(parseCommLine("ncclCommInitRank comm 0x1 - Init START"));
}

TEST(NcclLogComm, BusIdsPrintAsNcclsText) {
  EXPECT_EQ(busIdText(0x18000), "0000:18:00.0");
  EXPECT_EQ(busIdText(0x1e0), "0000:00:1e.0");
  EXPECT_EQ(busIdText(0x101d0), "0000:10:1d.0");
  EXPECT_EQ(networkOf("Using network AWS Libfabric").value_or(""), "AWS Libfabric");
}

}  // namespace
}  // namespace railtune::analysis::nccl_log
