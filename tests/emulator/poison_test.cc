// Poison guards: plugins that write 8 bytes past a struct they were handed (as a plugin built against
// the wrong ABI version would) are caught, named, and turned into ncclInternalError.
#include <cstring>

#include "emulator/logger.h"
#include "emulator/net_driver.h"
#include "emulator/profiler_driver.h"
#include "emulator/tuner_driver.h"
#include "tests/emulator/test_support.h"

namespace railtune::emu::test {
namespace {

class PoisonTest : public BehaviourTest {
 protected:
  static ncclNvlDomainInfo_v5_t domains() { return {1, 8, 8}; }
  static bool named(const std::vector<std::string>& v, const std::string& what) { return logHas(v, what); }
};
RAILTUNE_BOTH_BEHAVIOURS(PoisonTest);

TEST_P(PoisonTest, GuardDetectsWritesPastTheStruct) {
  Poisoned<ncclNvlDomainInfo_v5_t> g;
  EXPECT_TRUE(g.intact());
  g->maxRanksPerNvlDomain = 72;  // inside the struct
  EXPECT_TRUE(g.intact());
  reinterpret_cast<unsigned char*>(g.get())[sizeof(ncclNvlDomainInfo_v5_t)] = 0;
  EXPECT_FALSE(g.intact());
  std::vector<std::string> v;
  EXPECT_FALSE(checkPoison(g, "call", "ncclNvlDomainInfo_v5_t", v));
  EXPECT_TRUE(named(v, "call: plugin wrote past the end of ncclNvlDomainInfo_v5_t"));
}

TEST_P(PoisonTest, TunerConstantsAndDomainInfo) {
  for (const char* name : {"poison-constants", "poison-domains"}) {
    Binding b = loader({{"NCCL_TUNER_PLUGIN", name}}).openTuner();
    ASSERT_TRUE(b) << joined(b.log);
    TunerDriver d(b);
    ncclTunerConstants_v5_t c = defaultTunerConstants(behaviour());
    EXPECT_EQ(d.init(kCommId, kRanks, kNodes, domains(), &c), ncclInternalError) << name;
    ASSERT_EQ(d.violations().size(), 1u) << name;
    const bool constants = std::strcmp(name, "poison-constants") == 0;
    EXPECT_TRUE(named(d.violations(), constants ? "tuner.init: plugin wrote past the end of ncclTunerConstants_v5_t"
                                                : "tuner.init: plugin wrote past the end of ncclNvlDomainInfo_v5_t"));
  }
}

TEST_P(PoisonTest, CostTable) {
  for (int v : {3, 4, 5, 6}) {
    Binding b = Loader::bindVersion(PluginKind::Tuner, pluginPath("libnccl-tuner-poison-table.so"), v);
    TunerDriver d(b);
    ASSERT_EQ(d.init(kCommId, kRanks, kNodes, domains(), nullptr), ncclSuccess);
    CostTable t{};
    int nChannels = 0;
    EXPECT_EQ(d.getCollInfo(ncclFuncAllReduce, kBytes, 1, t, 0, &nChannels), ncclInternalError) << "v" << v;
    EXPECT_TRUE(named(d.violations(), "tuner.getCollInfo: plugin wrote past the end of the cost table")) << v;
  }
}

TEST_P(PoisonTest, WellBehavedPluginsLeaveNoViolation) {
  Binding b = loader({{"NCCL_TUNER_PLUGIN", "all"}}).openTuner();
  TunerDriver d(b);
  ncclTunerConstants_v5_t c = defaultTunerConstants(behaviour());
  ASSERT_EQ(d.init(kCommId, kRanks, kNodes, domains(), &c), ncclSuccess);
  CostTable t{};
  int nChannels = 0;
  ASSERT_EQ(d.getCollInfo(ncclFuncAllReduce, kBytes, 1, t, 0, &nChannels), ncclSuccess);
  EXPECT_TRUE(d.violations().empty());
}

TEST_P(PoisonTest, NetPropertiesEveryVersion) {
  for (int v = 6; v <= 12; v++) {
    Binding b = Loader::bindVersion(PluginKind::Net, pluginPath("libnccl-net-poison-props.so"), v);
    NetDriver d(b);
    ASSERT_EQ(d.init(kCommId, -1, pluginLogger(), idleProfilerCallback()), ncclSuccess);
    ncclNetProperties_v12_t p{};
    EXPECT_EQ(d.getProperties(0, &p), ncclInternalError) << "v" << v;
    EXPECT_TRUE(named(d.violations(), "net.getProperties: plugin wrote past the end of ncclNetProperties_t")) << v;
    d.finalize();
  }
}

TEST_P(PoisonTest, PoisonedPropertiesKeepTheNetPluginOut) {
  Loader l = loader({{"NCCL_NET_PLUGIN", "poison-props"}});
  std::vector<NetCandidate> list = l.openNetList();
  NetSelection sel = selectNet(l, list, kCommId);
  EXPECT_EQ(sel.chosenName, "Socket") << joined(sel.log);
}

TEST_P(PoisonTest, NetConfigAndAttributes) {
  const int v = is230() ? 12 : 11;
  Binding cfg = Loader::bindVersion(PluginKind::Net, pluginPath("libnccl-net-poison-config.so"), v);
  NetDriver c(cfg);
  EXPECT_EQ(c.init(kCommId, -1, pluginLogger(), idleProfilerCallback()), ncclInternalError);
  EXPECT_TRUE(named(c.violations(), "net.init: plugin wrote past the end of ncclNetCommConfig_t"));

  Binding attr = Loader::bindVersion(PluginKind::Net, pluginPath("libnccl-net-poison-attr.so"), v);
  NetDriver a(attr);
  ASSERT_EQ(a.init(kCommId, -1, pluginLogger(), idleProfilerCallback()), ncclSuccess);
  ncclNetAttr_v12_t at{};
  EXPECT_EQ(a.setNetAttr(&at), ncclInternalError);
  EXPECT_TRUE(named(a.violations(), "net.setNetAttr: plugin wrote past the end of ncclNetAttr_v1"));
  a.finalize();
}

TEST_P(PoisonTest, ProfilerDescriptorsAndStateArgs) {
  for (int v = 1; v <= (is230() ? 6 : 5); v++) {
    Binding descr = Loader::bindVersion(PluginKind::Profiler, pluginPath("libnccl-profiler-poison-descr.so"), v);
    ProfilerDriver d(descr, behaviour());
    ASSERT_EQ(d.init(kCommId, "c", 1, 2, 0), ncclSuccess);
    ncclProfilerEventDescr_v6_t e;
    std::memset(&e, 0, sizeof(e));
    e.type = ncclProfileGroup;
    void* h = nullptr;
    EXPECT_EQ(d.startEvent(&e, &h), ncclInternalError) << "v" << v;
    EXPECT_TRUE(named(d.violations(), "profiler.startEvent: plugin wrote past the end of ncclProfilerEventDescr_t"));

    Binding state = Loader::bindVersion(PluginKind::Profiler, pluginPath("libnccl-profiler-poison-state.so"), v);
    ProfilerDriver s(state, behaviour());
    ASSERT_EQ(s.init(kCommId, "c", 1, 2, 0), ncclSuccess);
    ncclProfilerEventStateArgs_v6_t args{};
    EXPECT_EQ(s.recordEventState(fakePointer(1), ncclProfilerProxyCtrlIdle, &args), ncclInternalError) << "v" << v;
    EXPECT_TRUE(named(s.violations(), "profiler.recordEventState: plugin wrote past the end"));
  }
}

}  // namespace
}  // namespace railtune::emu::test
