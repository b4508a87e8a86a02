// NCCL's net plugin list in both behaviours: order, failed init / zero devices / wrong device type,
// the NCCL_NET filter, "none", the 14-entry limit, lazy loading, and 2.28's finalize after a failed init.
#include "emulator/net_driver.h"
#include "tests/emulator/test_support.h"

namespace railtune::emu::test {
namespace {

class NetListTest : public BehaviourTest {
 protected:
  struct Run {
    std::vector<NetCandidate> list;
    NetSelection sel;
  };
  Run select(std::map<std::string, std::string> env) {
    Loader l = loader(std::move(env));
    Run r;
    r.list = l.openNetList();
    r.sel = selectNet(l, r.list, kCommId);
    return r;
  }
  static void finalize(Run& r) {
    if (r.sel.driver) r.sel.driver->finalize();
  }
};
RAILTUNE_BOTH_BEHAVIOURS(NetListTest);

TEST_P(NetListTest, FirstEntryThatWorksWinsAndTheOthersAreDisabled) {
  Run r = select({{"NCCL_NET_PLUGIN", "initfail,zerodev,devtype,second,v12"}});
  ASSERT_EQ(r.sel.chosenName, "second") << joined(r.sel.log);
  EXPECT_EQ(r.sel.chosen, 3);
  EXPECT_TRUE(logHas(r.sel.log, "NCCL_NET_PLUGIN set by environment to initfail,zerodev,devtype,second,v12"));
  EXPECT_TRUE(logHas(r.sel.log, "Failed to initialize NET plugin initfail"));
  EXPECT_TRUE(logHas(r.sel.log, "Failed to initialize NET plugin zerodev"));
  EXPECT_TRUE(logHas(r.sel.log, "WARN Unknown device code index 2"));
  EXPECT_TRUE(logHas(r.sel.log, "Initialized NET plugin second"));
  EXPECT_TRUE(logHas(r.sel.log, "Assigned NET plugin second to comm"));
  EXPECT_TRUE(logHas(r.sel.log, "Disabling external plugins: initfail, zerodev, devtype, v12"));
  EXPECT_EQ(r.list[0].state, NetEntryState::Disabled);
  EXPECT_EQ(r.list[1].state, NetEntryState::Disabled);
  EXPECT_EQ(r.list[3].state, NetEntryState::Enabled);
  EXPECT_FALSE(r.list[4].binding.library) << "entries after the winner are never opened";
  ASSERT_TRUE(r.sel.driver);
  EXPECT_EQ(r.sel.driver->version(), is230() ? 12 : 11);
  finalize(r);
}

TEST_P(NetListTest, FinalizeAfterAFailedInitOnlyIn228) {
  Run r = select({{"NCCL_NET_PLUGIN", "initfail"}});
  EXPECT_EQ(r.sel.chosenName, "Socket");
  rtEchoRecord* echo = echoOf(r.list[0].binding);
  ASSERT_NE(echo, nullptr);
  EXPECT_EQ(countCalls(echo, "net.init"), 1);
  EXPECT_EQ(countCalls(echo, "net.devices"), 0);
  if (is230()) {
    EXPECT_EQ(countCalls(echo, "net.finalize"), 0);
  } else {
    const rtEchoCall* fin = findCall(echo, "net.finalize");
    ASSERT_NE(fin, nullptr);
    EXPECT_EQ(fin->args[0], 0u) << "the context a failed init never set";
  }
}

TEST_P(NetListTest, FailedInitOfAnOldPluginGoesThroughTheAdapter) {
  Run r = select({{"NCCL_NET_PLUGIN", "initfail-v10"}});
  EXPECT_EQ(r.sel.chosenName, "Socket");
  rtEchoRecord* echo = echoOf(r.list[0].binding);
  EXPECT_EQ(countCalls(echo, "net.init"), 1);
  // The v10 adapter's finalize only drops its reference count; 2.28 still calls it.
  EXPECT_EQ(r.list[0].binding.library->state().netAdapterRefCount, is230() ? 0 : -1);
}

TEST_P(NetListTest, ZeroDevicesFailsTheEntryAndFinalizesIt) {
  Run r = select({{"NCCL_NET_PLUGIN", "zerodev"}});
  EXPECT_EQ(r.sel.chosenName, "Socket");
  rtEchoRecord* echo = echoOf(r.list[0].binding);
  EXPECT_EQ(countCalls(echo, "net.devices"), 1);
  EXPECT_EQ(countCalls(echo, "net.finalize"), 1) << "init had completed, so both versions finalize";
  EXPECT_TRUE(logHas(r.sel.log, "Failed to initialize NET plugin zerodev"));
}

TEST_P(NetListTest, WrongDeviceTypeIsFinalizedAndSkipped) {
  Run r = select({{"NCCL_NET_PLUGIN", "devtype"}});
  EXPECT_EQ(r.sel.chosenName, "Socket");
  rtEchoRecord* echo = echoOf(r.list[0].binding);
  EXPECT_EQ(countCalls(echo, "net.getProperties"), 1);
  EXPECT_EQ(countCalls(echo, "net.finalize"), 1);
}

TEST_P(NetListTest, NetNameFilterSkipsOtherPluginsWithoutInitialisingThem) {
  {
    Run r = select({{"NCCL_NET_PLUGIN", "v11,second"}, {"NCCL_NET", "SECOND"}});
    ASSERT_EQ(r.sel.chosenName, "second") << joined(r.sel.log);
    EXPECT_TRUE(r.list[0].binding.library) << "loaded to learn its name";
    EXPECT_EQ(countCalls(echoOf(r.list[0].binding), "net.init"), 0);
    finalize(r);
  }  // the libraries close here, so the next run starts with fresh echo records
  {
    Run s = select({{"NCCL_NET_PLUGIN", "second"}, {"NCCL_NET", "socket"}});
    EXPECT_EQ(s.sel.chosenName, "Socket");
    EXPECT_EQ(countCalls(echoOf(s.list[0].binding), "net.init"), 0);
  }
  Run none = select({{"NCCL_NET_PLUGIN", "second"}, {"NCCL_NET", "nomatch"}});
  EXPECT_EQ(none.sel.chosen, -1);
  EXPECT_TRUE(logHas(none.sel.log, "WARN Failed to initialize any NET plugin"));
}

TEST_P(NetListTest, NoneLeavesOnlyTheInternalTransports) {
  Run r = select({{"NCCL_NET_PLUGIN", "none"}});
  ASSERT_EQ(r.list.size(), 2u);
  EXPECT_TRUE(r.list[0].internal);
  EXPECT_EQ(r.list[0].internalName, "IB");
  EXPECT_EQ(r.sel.chosenName, "Socket");
  EXPECT_TRUE(logHas(r.sel.log, "Failed to initialize NET plugin IB"));
  EXPECT_FALSE(r.sel.driver);
}

TEST_P(NetListTest, UnsetTriesTheDefaultLibrary) {
  Run r = select({});
  ASSERT_EQ(r.list.size(), 3u);
  EXPECT_EQ(r.list[0].binding.requested, "libnccl-net.so");
  EXPECT_EQ(r.sel.chosenName, "echo-net-default") << joined(r.sel.log);
  finalize(r);
}

TEST_P(NetListTest, AtMostFourteenExternalEntries) {
  std::string names;
  for (int i = 0; i < 14; i++) names += "absent" + std::to_string(i) + ",";
  names += "second";
  Run r = select({{"NCCL_NET_PLUGIN", names}});
  EXPECT_EQ(r.list.size(), 16u);
  EXPECT_TRUE(logHas(r.sel.log, "NCCL_NET_PLUGIN list contains more than 13 plugins, ignoring the rest"));
  EXPECT_EQ(r.sel.chosenName, "Socket") << "the 15th entry was dropped";
}

TEST_P(NetListTest, EmptyListFieldsAreSkipped) {
  Run r = select({{"NCCL_NET_PLUGIN", ",,second,"}});
  EXPECT_EQ(r.list.size(), 3u);
  EXPECT_EQ(r.sel.chosenName, "second");
  finalize(r);
}

TEST_P(NetListTest, UnloadableEntriesAreSkipped) {
  Run r = select({{"NCCL_NET_PLUGIN", "absent,nosym,second"}});
  EXPECT_EQ(r.list[0].state, NetEntryState::Disabled);  // disabled once "second" won
  EXPECT_TRUE(logHas(r.sel.log, "External network plugin"));
  EXPECT_TRUE(logHas(r.sel.log, "libnccl-net-nosym.so is unsupported"));
  EXPECT_EQ(r.sel.chosenName, "second");
  finalize(r);
}

// A second communicator initialises the plugin again but NCCL asks devices() only the first time.
TEST_P(NetListTest, SecondCommunicatorReinitialisesWithoutDevices) {
  Loader l = loader({{"NCCL_NET_PLUGIN", "second"}});
  std::vector<NetCandidate> list = l.openNetList();
  NetSelection first = selectNet(l, list, kCommId);
  NetSelection second = selectNet(l, list, kCommId + 1);
  ASSERT_EQ(second.chosenName, "second");
  rtEchoRecord* echo = echoOf(list[0].binding);
  EXPECT_EQ(countCalls(echo, "net.init"), 2);
  EXPECT_EQ(countCalls(echo, "net.devices"), 1);
  const rtEchoCall* again = findCall(echo, "net.init", 1);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->args[1], kCommId + 1);
  first.driver->finalize();
  second.driver->finalize();
}

}  // namespace
}  // namespace railtune::emu::test
