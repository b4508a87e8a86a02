// Loader rules for tuner, profiler and env plugins (name as given, prefix retry and its exceptions,
// unset, "none", STATIC_PLUGIN, symbol-version order, missing symbols, the net-library fallback), in
// both NCCL behaviours.
#include "emulator/loader.h"

#include "emulator/net_driver.h"
#include "tests/emulator/test_support.h"

namespace railtune::emu::test {
namespace {

class LoaderTest : public BehaviourTest {};
RAILTUNE_BOTH_BEHAVIOURS(LoaderTest);

TEST_P(LoaderTest, OpensALibraryNameAsGivenThroughTheSearchPath) {
  Binding b = loader({{"NCCL_TUNER_PLUGIN", "libnccl-tuner-v4.so"}}).openTuner();
  ASSERT_TRUE(b) << joined(b.log);
  EXPECT_EQ(b.openedName, "libnccl-tuner-v4.so");
  EXPECT_EQ(b.version, 4);
  EXPECT_EQ(b.symbol, "ncclTunerPlugin_v4");
  EXPECT_TRUE(endsWith(b.library->path(), "/libnccl-tuner-v4.so"));
  EXPECT_TRUE(logHas(b.log, "NCCL_TUNER_PLUGIN set by environment to libnccl-tuner-v4.so"));
  EXPECT_TRUE(logHas(b.log, "TUNER/Plugin: Using echo-tuner-v4 (v4)"));
  EXPECT_TRUE(logHas(b.log, "Successfully loaded external tuner plugin " + b.library->path()));
}

TEST_P(LoaderTest, OpensAnAbsolutePath) {
  Binding b = loader({{"NCCL_PROFILER_PLUGIN", pluginPath("libnccl-profiler-v3.so")}}).openProfiler();
  ASSERT_TRUE(b) << joined(b.log);
  EXPECT_EQ(b.version, 3);
  EXPECT_EQ(b.symbol, "ncclProfiler_v3");
  EXPECT_TRUE(logHas(b.log, "PROFILER/Plugin: Loaded echo-prof-v3 (v3)"));
}

TEST_P(LoaderTest, RetriesABareWordWithTheKindsPrefix) {
  Binding b = loader({{"NCCL_TUNER_PLUGIN", "v5"}}).openTuner();
  ASSERT_TRUE(b) << joined(b.log);
  EXPECT_EQ(b.openedName, "libnccl-tuner-v5.so");
  EXPECT_EQ(b.version, 5);
  EXPECT_FALSE(logHas(b.log, "Could not find"));  // NCCL lists misses only when nothing opened
}

TEST_P(LoaderTest, DoesNotRetryALibraryStyleName) {
  Binding b = loader({{"NCCL_TUNER_PLUGIN", "libv5.so"}, {"NCCL_NET_PLUGIN", "none"}}).openTuner();
  EXPECT_FALSE(b);
  EXPECT_TRUE(logHas(b.log, "TUNER/Plugin: Could not find: libv5.so")) << joined(b.log);
  EXPECT_FALSE(logHas(b.log, "libnccl-tuner-libv5.so"));
}

TEST_P(LoaderTest, DoesNotRetryANameWithASlash) {
  Binding b = loader({{"NCCL_TUNER_PLUGIN", "./v5"}}).openTuner();
  EXPECT_FALSE(b);
  EXPECT_TRUE(logHas(b.log, "TUNER/Plugin: Could not find: ./v5")) << joined(b.log);
  EXPECT_FALSE(logHas(b.log, "libnccl-tuner-./v5.so"));
}

TEST_P(LoaderTest, RetriesANameThatIsOnlyHalfLibraryStyle) {
  Binding b = loader({{"NCCL_TUNER_PLUGIN", "libv5"}}).openTuner();
  EXPECT_FALSE(b);
  EXPECT_TRUE(logHas(b.log, "TUNER/Plugin: Could not find: libv5 libnccl-tuner-libv5.so")) << joined(b.log);
}

TEST_P(LoaderTest, UnsetOpensTheKindsDefaultName) {
  Binding b = loader({}).openTuner();
  ASSERT_TRUE(b) << joined(b.log);
  EXPECT_EQ(b.openedName, "libnccl-tuner.so");
  EXPECT_EQ(b.requested, "");
  EXPECT_STREQ(*static_cast<const char* const*>(b.table), "echo-tuner-default");
  Binding p = loader({}).openProfiler();
  ASSERT_TRUE(p) << joined(p.log);
  EXPECT_EQ(p.openedName, "libnccl-profiler.so");
}

TEST_P(LoaderTest, NoneDisablesCaseInsensitively) {
  for (const char* none : {"none", "NONE", "None"}) {
    Binding b = loader({{"NCCL_TUNER_PLUGIN", none}}).openTuner();
    EXPECT_TRUE(b.disabled) << none;
    EXPECT_FALSE(b);
    EXPECT_FALSE(b.library);
    Binding e = loader({{"NCCL_ENV_PLUGIN", none}}).openEnv();
    EXPECT_TRUE(e.disabled) << none;
  }
}

TEST_P(LoaderTest, AnyPrefixOfStaticPluginMeansTheMainProgram) {
  for (const char* name : {"STATIC_PLUGIN", "static_plugin", "STATIC", "s"}) {
    Binding b = loader({{"NCCL_TUNER_PLUGIN", name}}).openTuner();
    ASSERT_TRUE(b) << name << "\n" << joined(b.log);
    EXPECT_EQ(b.version, 3) << name;  // the program links a tuner exporting v3 only
    EXPECT_STREQ(*static_cast<const char* const*>(b.table), "static");
    EXPECT_EQ(b.library->path(), "");  // the main program's link-map name
  }
  Binding longer = loader({{"NCCL_TUNER_PLUGIN", "STATIC_PLUGINX"}, {"NCCL_NET_PLUGIN", "none"}}).openTuner();
  EXPECT_FALSE(longer) << "a longer name is not a prefix of STATIC_PLUGIN";
}

TEST_P(LoaderTest, BindsTheNewestVersionTheBehaviourKnows) {
  Binding t = loader({{"NCCL_TUNER_PLUGIN", "all"}}).openTuner();
  Binding p = loader({{"NCCL_PROFILER_PLUGIN", "all"}}).openProfiler();
  Binding e = loader({{"NCCL_ENV_PLUGIN", "both"}}).openEnv();
  Loader l = loader({{"NCCL_NET_PLUGIN", "all"}});
  std::vector<NetCandidate> nets = l.openNetList();
  l.loadNet(nets[0]);
  EXPECT_EQ(t.version, is230() ? 6 : 5);
  EXPECT_EQ(p.version, is230() ? 6 : 5);
  EXPECT_EQ(e.version, is230() ? 2 : 1);
  EXPECT_EQ(nets[0].binding.version, is230() ? 12 : 11);
  EXPECT_EQ(nets[0].binding.symbol, is230() ? "ncclNetPlugin_v12" : "ncclNetPlugin_v11");
}

TEST_P(LoaderTest, SymbolOrderFallsBackToOlderVersions) {
  const std::pair<const char*, int> tuners[] = {{"v2", 2}, {"v3", 3}, {"v4", 4}};
  for (const auto& [name, v] : tuners) {
    Binding t = loader({{"NCCL_TUNER_PLUGIN", name}}).openTuner();
    EXPECT_EQ(t.version, v);
  }
  const std::pair<const char*, int> profilers[] = {{"v1", 1}, {"v2", 2}, {"v3", 3}, {"v4", 4}};
  for (const auto& [name, v] : profilers) {
    Binding p = loader({{"NCCL_PROFILER_PLUGIN", name}}).openProfiler();
    EXPECT_EQ(p.version, v);
  }
}

TEST_P(LoaderTest, ANewerVersionThanTheBehaviourKnowsIsUnsupported) {
  Binding t = loader({{"NCCL_TUNER_PLUGIN", "v6"}, {"NCCL_NET_PLUGIN", "none"}}).openTuner();
  Binding p = loader({{"NCCL_PROFILER_PLUGIN", "v6"}}).openProfiler();
  Binding e = loader({{"NCCL_ENV_PLUGIN", "v2"}}).openEnv();
  EXPECT_EQ(static_cast<bool>(t), is230());
  EXPECT_EQ(static_cast<bool>(p), is230());
  EXPECT_EQ(static_cast<bool>(e), is230());
  if (!is230()) {
    EXPECT_TRUE(logHas(t.log, "External tuner plugin")) << joined(t.log);
    EXPECT_TRUE(logHas(t.log, "is unsupported"));
    EXPECT_TRUE(logHas(e.log, "External env plugin"));
  }
}

TEST_P(LoaderTest, MissingSymbolRunsWithoutThePluginAndClosesIt) {
  Binding b = loader({{"NCCL_TUNER_PLUGIN", "nosym"}}).openTuner();
  EXPECT_FALSE(b);
  EXPECT_FALSE(b.library);
  EXPECT_TRUE(logHas(b.log, "libnccl-tuner-nosym.so is unsupported")) << joined(b.log);
  EXPECT_FALSE(b.viaNetLibrary);
}

// A communicator whose net plugin is the mixed library: tuner and profiler come from it when their
// own libraries do not open.
TEST_P(LoaderTest, TunerAndProfilerFallBackToTheLoadedNetLibrary) {
  Loader l =
      loader({{"NCCL_NET_PLUGIN", "mixed"}, {"NCCL_TUNER_PLUGIN", "absent"}, {"NCCL_PROFILER_PLUGIN", "absent"}});
  std::vector<NetCandidate> nets = l.openNetList();
  NetSelection sel = selectNet(l, nets, kCommId);
  ASSERT_EQ(sel.chosenName, "mixed") << joined(sel.log);
  Binding t = l.openTuner();
  Binding p = l.openProfiler();
  ASSERT_TRUE(t) << joined(t.log);
  ASSERT_TRUE(p) << joined(p.log);
  EXPECT_TRUE(t.viaNetLibrary);
  EXPECT_TRUE(p.viaNetLibrary);
  EXPECT_EQ(t.openedName, "libnccl-net-mixed.so");
  EXPECT_EQ(t.version, is230() ? 6 : 5);
  EXPECT_EQ(p.version, is230() ? 6 : 5);
  EXPECT_EQ(t.library->path(), nets[0].binding.library->path());
  EXPECT_FALSE(logHas(t.log, "Successfully loaded external tuner plugin"));  // NCCL names no plugin then
  sel.driver->finalize();
}

TEST_P(LoaderTest, NoFallbackWhenOnlyTheInternalNetIsUsed) {
  Loader l = loader({{"NCCL_NET_PLUGIN", "none"}, {"NCCL_TUNER_PLUGIN", "absent"}, {"NCCL_PROFILER_PLUGIN", "absent"}});
  std::vector<NetCandidate> nets = l.openNetList();
  NetSelection sel = selectNet(l, nets, kCommId);
  EXPECT_EQ(sel.chosenName, "Socket");
  Binding t = l.openTuner();
  Binding p = l.openProfiler();
  EXPECT_FALSE(t);
  EXPECT_FALSE(t.viaNetLibrary);
  EXPECT_FALSE(p);
}

TEST_P(LoaderTest, FallbackFindsNothingInANetLibraryWithoutTunerSymbols) {
  Loader l = loader({{"NCCL_NET_PLUGIN", "second"}, {"NCCL_TUNER_PLUGIN", "absent"}});
  std::vector<NetCandidate> nets = l.openNetList();
  NetSelection sel = selectNet(l, nets, kCommId);
  ASSERT_EQ(sel.chosenName, "second");
  Binding t = l.openTuner();
  EXPECT_FALSE(t);
  EXPECT_FALSE(logHas(t.log, "is unsupported"));  // NCCL logs no name after a fallback
  sel.driver->finalize();
}

TEST_P(LoaderTest, EnvPluginBindsPerBehaviour) {
  Binding v1 = loader({{"NCCL_ENV_PLUGIN", "v1"}}).openEnv();
  ASSERT_TRUE(v1) << joined(v1.log);
  EXPECT_EQ(v1.version, 1);
  EXPECT_TRUE(logHas(v1.log, "ENV/Plugin: Using echo-env-v1 (v1)"));
  Binding none = loader({{"NCCL_ENV_PLUGIN", "absent"}}).openEnv();
  EXPECT_FALSE(none);
}

TEST(LoaderNames, SymbolNamesAndVersionLists) {
  EXPECT_EQ(symbolName(PluginKind::Profiler, 5), "ncclProfiler_v5");
  EXPECT_EQ(symbolName(PluginKind::Tuner, 2), "ncclTunerPlugin_v2");
  EXPECT_EQ(symbolName(PluginKind::Net, 12), "ncclNetPlugin_v12");
  EXPECT_EQ(symbolName(PluginKind::Env, 2), "ncclEnvPlugin_v2");
  EXPECT_EQ(symbolVersions(NcclBehaviour::V2_28, PluginKind::Net), (std::vector<int>{11, 10, 9, 8, 7, 6}));
  EXPECT_EQ(symbolVersions(NcclBehaviour::V2_30, PluginKind::Profiler), (std::vector<int>{6, 5, 4, 3, 2, 1}));
  // 2.31.2: profiler.cc tries getNcclProfiler_v7 first; the other kinds' lists are 2.30's.
  EXPECT_EQ(symbolVersions(NcclBehaviour::V2_31, PluginKind::Profiler), (std::vector<int>{7, 6, 5, 4, 3, 2, 1}));
  EXPECT_EQ(symbolVersions(NcclBehaviour::V2_31, PluginKind::Tuner), (std::vector<int>{6, 5, 4, 3, 2}));
  EXPECT_EQ(symbolVersions(NcclBehaviour::V2_31, PluginKind::Net), (std::vector<int>{12, 11, 10, 9, 8, 7, 6}));
  EXPECT_EQ(symbolVersions(NcclBehaviour::V2_31, PluginKind::Env), (std::vector<int>{2, 1}));
  EXPECT_EQ(parseBehaviour("2.31"), NcclBehaviour::V2_31);
  EXPECT_EQ(parseBehaviour("2.31.2"), NcclBehaviour::V2_31);
  EXPECT_STREQ(behaviourName(NcclBehaviour::V2_31), "2.31");
  EXPECT_LT(NcclBehaviour::V2_30, NcclBehaviour::V2_31);  // "2.30 or newer" is >= V2_30
  EXPECT_EQ(parseBehaviour("2.28"), NcclBehaviour::V2_28);
  EXPECT_EQ(parseBehaviour("2.30.7"), NcclBehaviour::V2_30);
  EXPECT_FALSE(parseBehaviour("2.29"));
  EXPECT_STREQ(behaviourName(NcclBehaviour::V2_30), "2.30");
}

}  // namespace
}  // namespace railtune::emu::test
