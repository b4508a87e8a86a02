// The small report `railtune demo` prints: what each kind binds for a plugin directory and behaviour.
#include "emulator/report.h"

#include "tests/emulator/test_support.h"

namespace railtune::emu::test {
namespace {

class ReportTest : public BehaviourTest {};
RAILTUNE_BOTH_BEHAVIOURS(ReportTest);

TEST_P(ReportTest, ProbeUsesTheDirectoryAndTheNetFallback) {
  std::vector<KindReport> r = probePlugins(pluginDir(), behaviour(), "mixed");
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].kind, PluginKind::Net);
  EXPECT_EQ(r[0].netChosen, "mixed") << joined(r[0].log);
  EXPECT_EQ(r[0].value, pluginPath("libnccl-net-mixed.so"));
  EXPECT_EQ(r[0].version, is230() ? 12 : 11);
  EXPECT_EQ(r[1].kind, PluginKind::Tuner);
  EXPECT_EQ(r[1].value, "mixed") << "no libnccl-tuner-mixed.so in the directory";
  EXPECT_TRUE(r[1].viaNetLibrary);
  EXPECT_EQ(r[1].symbol, is230() ? "ncclTunerPlugin_v6" : "ncclTunerPlugin_v5");
  EXPECT_TRUE(endsWith(r[1].library, "libnccl-net-mixed.so"));
  EXPECT_TRUE(r[2].viaNetLibrary);
  EXPECT_EQ(r[3].symbol, "");
  EXPECT_EQ(describeReport(r[3]), "env: none (NCCL's built-in behaviour)");
  EXPECT_NE(describeReport(r[1]).find("via the net library"), std::string::npos);
}

TEST_P(ReportTest, DescribeBinding) {
  Binding b = Loader::bindVersion(PluginKind::Tuner, pluginPath("libnccl-tuner-v4.so"), 4);
  const std::string s = describeBinding(b);
  EXPECT_NE(s.find("tuner: "), std::string::npos);
  EXPECT_NE(s.find("libnccl-tuner-v4.so -> ncclTunerPlugin_v4 (v4, 'echo-tuner-v4')"), std::string::npos) << s;
  Binding none = loader({{"NCCL_TUNER_PLUGIN", "none"}}).openTuner();
  EXPECT_EQ(describeBinding(none), "tuner: disabled (set to \"none\")");
}

}  // namespace
}  // namespace railtune::emu::test
