// Profiler v7 end to end: the real libnccl-profiler-railtune.so loaded and driven by the emulator as NCCL
// 2.31.2 does (profiler.cc: v7 bound first; KernelPhase events under KernelCh; symmetric kernels' Coll
// events; userTag), and as 2.30.7 does with the same library (v6: no tags, no phases, no symmetric
// kernels' events). What lands in RAILTUNE_PROFILE_DIR is read back with the strict reader. Then bad
// input: a KernelPhase through the v6 table, phase ids NCCL does not define, a phase without its end,
// stops of what never started, tags 0 and 2^64-1. Every call answers ncclSuccess; every drop is counted.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

#include "emulator/profiler_driver.h"
#include "emulator/profiler_sequence.h"
#include "formats/profile_logs.h"
#include "nccl/profiler_v7.h"
#include "tests/e2e/emulated_fixture.h"
#include "tests/support/file_text.h"
#include "tests/support/record_file_name.h"

namespace railtune::testing {
namespace {

namespace fs = std::filesystem;
using emu::NcclBehaviour;
using formats::profile::OperationPath;
using formats::profile::OperationRecord;
using formats::profile::ParsedCollective;

class ProfilerV7Test : public EmulatedTest {
 protected:
  void SetUp() override {
    EmulatedTest::SetUp();
    dir = fs::path(::testing::TempDir()) / ("railtune-profile-v7-" + std::to_string(getpid()));
    fs::remove_all(dir);
    env.set("RAILTUNE_PROFILE_DIR", dir.string());
    env.set("RAILTUNE_JOB_ID", "v7");
    env.set("RAILTUNE_HOST", "gb300-r00-t00");
    env.unset("RAILTUNE_PROFILE_MASK");  // the default: KernelPhase included
    env.unset("RAILTUNE_HANG_TIMEOUT");
  }
  void TearDown() override {
    fs::remove_all(dir);
    EmulatedTest::TearDown();
  }
  // Loads the library as NCCL of `behaviour` does (NCCL_PROFILER_PLUGIN = its path).
  emu::Binding open(NcclBehaviour behaviour) const {
    emu::Loader loader(behaviour, emu::EnvSource::fromMap({{"NCCL_PROFILER_PLUGIN", pluginPath("profiler")}}));
    return loader.openProfiler();
  }
  std::vector<ParsedCollective> records() const {
    const fs::path path =
        railtune::testing::findRecordFile(dir, "v7-gb300-r00-t00-" + std::to_string(getpid()), "collectives.jsonl");
    const auto parsed = formats::profile::parseCollectiveRecords(readFile(path), path.string());
    EXPECT_EQ(parsed.error, "");
    return parsed.records;
  }
  fs::path dir;
};

// A tagged AllGather a symmetric kernel ran over 4 channels, each timing its three phases, and a tagged
// ring AllReduce whose channels time compute only (NCCL folds the missing boundaries: zero-length phases
// send no event).
std::vector<emu::EmulatedOperation> step() {
  emu::EmulatedOperation symmetric;
  symmetric.func = "AllGather";
  symmetric.count = 1 << 18;
  symmetric.nChannels = 4;
  symmetric.symmetric = true;
  symmetric.userTag = 1;  // "forward"
  symmetric.phaseNs = {{1000, 5000, 200}, {3000, 4000, 100}, {2000, 6000, 300}, {1500, 5500, 250}};
  emu::EmulatedOperation allReduce = emu::ringAllReduce(3, 8, 2, 1, 4, 4 << 20);
  allReduce.userTag = UINT64_MAX;
  allReduce.phaseNs = {{0, 70000, 0}};
  return {symmetric, allReduce};
}

void runStep(emu::ProfilerDriver& driver) {
  ASSERT_EQ(driver.init(0xabc, "trainer", 2, 8, 3), ncclSuccess);
  emu::ProfilerSequence sequence(driver, 3);
  for (const emu::EmulatedOperation& op : step()) {
    const emu::SequenceStats stats = sequence.run(op);
    EXPECT_EQ(stats.failures, 0);
  }
  ASSERT_EQ(driver.finalize(), ncclSuccess);
  EXPECT_TRUE(driver.violations().empty()) << driver.violations().front();
}

TEST_F(ProfilerV7Test, Nccl231BindsV7AndRecordsTagsSymmetricKernelsAndPhases) {
  {
    emu::Binding binding = open(NcclBehaviour::V2_31);
    ASSERT_TRUE(binding) << binding.log.size();
    EXPECT_EQ(binding.symbol, "ncclProfiler_v7");
    emu::ProfilerDriver driver(binding, NcclBehaviour::V2_31);
    runStep(driver);
  }
  EXPECT_TRUE(pluginWarnings().empty()) << pluginLogText();
  const std::vector<ParsedCollective> all = records();
  ASSERT_EQ(all.size(), 2u);
  const OperationRecord& sym = all[0].record;
  EXPECT_EQ(sym.operation.view(), "AllGather");
  EXPECT_EQ(sym.userTag, 1u);
  EXPECT_EQ(sym.symColl, true);
  EXPECT_EQ(sym.kernelVariant.view(), "AGxLL_R");
  EXPECT_EQ(sym.algorithm.view(), "R");  // NCCL names the algorithm by the variant's part after '_'
  EXPECT_EQ(sym.path, OperationPath::Symmetric);
  EXPECT_EQ(sym.phases.channels, 4u);
  EXPECT_EQ(sym.phases.longestNs, (std::array<uint64_t, 3>{3000, 6000, 300}));  // the longest channel of each
  EXPECT_FALSE(sym.phases.incomplete);
  EXPECT_EQ(sym.phases.unknown, 0u);
  const OperationRecord& ring = all[1].record;
  EXPECT_EQ(ring.userTag, UINT64_MAX);  // 2^64-1 exactly, through JSON
  EXPECT_EQ(ring.symColl, false);
  EXPECT_EQ(ring.path, OperationPath::Tuned);
  EXPECT_EQ(ring.phases.channels, 2u);
  EXPECT_EQ(ring.phases.timed, (std::array<bool, 3>{false, true, false}));
  EXPECT_EQ(ring.phases.longestNs[1], 70000u);
}

// The same library under 2.30 binds v6: no tags, no phases; the symmetric kernel gives no task event.
TEST_F(ProfilerV7Test, Nccl230BindsV6AndRecordsWhatV6Knows) {
  {
    emu::Binding binding = open(NcclBehaviour::V2_30);
    ASSERT_TRUE(binding);
    EXPECT_EQ(binding.symbol, "ncclProfiler_v6");
    emu::ProfilerDriver driver(binding, NcclBehaviour::V2_30);
    runStep(driver);
  }
  const std::vector<ParsedCollective> all = records();
  ASSERT_EQ(all.size(), 1u);
  const OperationRecord& ring = all[0].record;
  EXPECT_EQ(ring.operation.view(), "AllReduce");
  EXPECT_FALSE(ring.userTag.has_value());
  EXPECT_FALSE(ring.symColl.has_value());
  EXPECT_EQ(ring.path, OperationPath::Tuned);
  EXPECT_FALSE(ring.phases.present());
}

// NCCL 2.31 with the v6 table (bound explicitly): its adapter strips KernelPhase from the mask and drops
// phase events and states, so the plugin sees exactly what 2.30 gives it, nothing lost, nothing counted.
TEST_F(ProfilerV7Test, Nccl231ThroughTheV6TableGetsNoPhases) {
  {
    emu::Binding binding = emu::Loader::bindVersion(emu::PluginKind::Profiler, pluginPath("profiler"), 6);
    ASSERT_TRUE(binding);
    emu::ProfilerDriver driver(binding, NcclBehaviour::V2_31);
    ASSERT_EQ(driver.init(0xabc, "trainer", 2, 8, 3), ncclSuccess);
    EXPECT_EQ(driver.activationMask() & ncclProfileKernelPhase, 0);
    emu::ProfilerSequence sequence(driver, 3);
    for (const emu::EmulatedOperation& op : step()) EXPECT_EQ(sequence.run(op).failures, 0);
    ASSERT_EQ(driver.finalize(), ncclSuccess);
  }
  const std::vector<ParsedCollective> all = records();
  ASSERT_EQ(all.size(), 2u);  // 2.31 gives the symmetric kernel a Coll event, even through v6
  for (const ParsedCollective& line : all) {
    EXPECT_FALSE(line.droppedNotice);
    EXPECT_FALSE(line.record.userTag.has_value());
    EXPECT_FALSE(line.record.phases.present());
  }
}

// Drives one table directly (NCCL's ABI, no emulator in between), for inputs NCCL itself never makes.
template <typename Table, typename Args>
struct DirectCalls {
  emu::Binding binding;  // holds the library open
  const Table* table = nullptr;
  void* context = nullptr;
  int mask = 0;
  explicit DirectCalls(emu::Binding b) : binding(std::move(b)), table(static_cast<const Table*>(binding.table)) {
    EXPECT_EQ(table->init(&context, 0xabc, &mask, "direct", 1, 8, 3, nullptr), ncclSuccess);
  }
  template <typename Descr>
  void* start(Descr descr) {
    void* handle = &mask;  // must come back NULL or the plugin's own
    EXPECT_EQ(table->startEvent(context, &handle, &descr), ncclSuccess);
    return handle;
  }
  void stop(void* handle) { EXPECT_EQ(table->stopEvent(handle), ncclSuccess); }
  void state(void* handle, ncclProfilerEventState_t state, uint64_t pTimer) {
    Args args{};
    args.kernelCh.pTimer = pTimer;
    EXPECT_EQ(table->recordEventState(handle, state, &args), ncclSuccess);
  }
  void finalize() { EXPECT_EQ(table->finalize(context), ncclSuccess); }
};
using V7Calls = DirectCalls<ncclProfiler_v7_t, ncclProfilerEventStateArgs_v7_t>;
using V6Calls = DirectCalls<ncclProfiler_v6_t, ncclProfilerEventStateArgs_v6_t>;

ncclProfilerEventDescr_v7_t coll(uint64_t userTag) {
  ncclProfilerEventDescr_v7_t d{};
  d.type = ncclProfileColl;
  d.rank = 3;
  d.coll.func = "AllReduce";
  d.coll.count = 1024;
  d.coll.datatype = "ncclFloat32";
  d.coll.nChannels = 1;
  d.coll.algo = "RING";
  d.coll.proto = "SIMPLE";
  d.coll.userTag = userTag;
  return d;
}

ncclProfilerEventDescr_v7_t kernelCh(void* parent, uint64_t pTimer) {
  ncclProfilerEventDescr_v7_t d{};
  d.type = ncclProfileKernelCh;
  d.parentObj = parent;
  d.kernelCh.channelId = 0;
  d.kernelCh.pTimer = pTimer;
  return d;
}

ncclProfilerEventDescr_v7_t phase(void* parent, int id, uint64_t pTimer) {
  ncclProfilerEventDescr_v7_t d{};
  d.type = ncclProfileKernelPhase;
  d.parentObj = parent;
  d.kernelPhase.channelId = 0;
  d.kernelPhase.phaseId = static_cast<uint8_t>(id);
  d.kernelPhase.phaseName = nullptr;  // never read
  d.kernelPhase.pTimer = pTimer;
  return d;
}

// Unknown phase ids, a phase without its end, one ending before it began, a stop of a stopped phase and
// of NULL, the tag 0: one record, the timed phase in it, every odd one counted in "unknown"/"incomplete".
TEST_F(ProfilerV7Test, OddPhasesAreCountedNotTimed) {
  {
    V7Calls nccl(emu::Loader::bindVersion(emu::PluginKind::Profiler, pluginPath("profiler"), 7));
    EXPECT_NE(nccl.mask & ncclProfileKernelPhase, 0);
    void* op = nccl.start(coll(0));
    ASSERT_NE(op, nullptr);
    void* channel = nccl.start(kernelCh(op, 1000));
    ASSERT_NE(channel, nullptr);
    EXPECT_EQ(nccl.start(phase(channel, 7, 1000)), nullptr);  // no such phase: counted, not timed
    EXPECT_EQ(nccl.start(phase(channel, 255, 1000)), nullptr);
    void* noEnd = nccl.start(phase(channel, 0, 1000));  // stops without its KernelPhaseStop state
    nccl.stop(noEnd);
    nccl.stop(noEnd);    // stopped twice: misuse, ignored
    nccl.stop(nullptr);  // a stop of what never started (NCCL passes the NULL it got)
    void* backwards = nccl.start(phase(channel, 1, 5000));
    nccl.state(backwards, ncclProfilerKernelPhaseStop, 4000);  // ends before it began
    nccl.stop(backwards);
    void* good = nccl.start(phase(channel, 2, 6000));
    nccl.state(good, ncclProfilerKernelPhaseStop, 6750);
    nccl.stop(good);
    nccl.state(channel, ncclProfilerKernelChStop, 7000);
    nccl.stop(channel);
    nccl.stop(op);
    nccl.finalize();
  }
  const std::vector<ParsedCollective> all = records();
  ASSERT_EQ(all.size(), 1u);
  const OperationRecord& r = all[0].record;
  EXPECT_EQ(r.userTag, 0u);  // untagged, and said so: v7 writes the tag even when 0
  EXPECT_EQ(r.phases.unknown, 2u);
  EXPECT_TRUE(r.phases.incomplete);
  EXPECT_EQ(r.phases.timed, (std::array<bool, 3>{false, false, true}));
  EXPECT_EQ(r.phases.longestNs[2], 750u);
  EXPECT_EQ(r.phases.channels, 1u);
}

// A v7 event handed to the v6 entry point: the type word decides, and a KernelPhase (or its stop
// state) is a type v6 does not have: no handle, counted in the dropped line the user reads.
TEST_F(ProfilerV7Test, AKernelPhaseThroughTheV6TableIsCountedAsDropped) {
  {
    V6Calls nccl(emu::Loader::bindVersion(emu::PluginKind::Profiler, pluginPath("profiler"), 6));
    EXPECT_EQ(nccl.mask & ncclProfileKernelPhase, 0);  // not asked for through v6
    ncclProfilerEventDescr_v6_t c = {};
    c.type = ncclProfileColl;
    c.coll.func = "AllReduce";
    c.coll.datatype = "ncclFloat32";
    c.coll.count = 1024;
    c.coll.nChannels = 1;
    void* op = nccl.start(c);
    ncclProfilerEventDescr_v6_t k = {};
    k.type = ncclProfileKernelCh;
    k.parentObj = op;
    k.kernelCh.pTimer = 1000;
    void* channel = nccl.start(k);
    ASSERT_NE(channel, nullptr);
    ncclProfilerEventDescr_v6_t p = {};
    p.type = ncclProfileKernelPhase;
    p.parentObj = channel;
    EXPECT_EQ(nccl.start(p), nullptr);
    p.type = uint64_t{1} << 40;  // a bit no version defines
    EXPECT_EQ(nccl.start(p), nullptr);
    nccl.state(channel, ncclProfilerKernelPhaseStop, 1500);  // v7's state through v6
    nccl.state(channel, ncclProfilerKernelChStop, 2000);
    nccl.stop(channel);
    nccl.stop(op);
    nccl.finalize();
  }
  const std::vector<ParsedCollective> all = records();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_FALSE(all[0].record.phases.present());
  EXPECT_FALSE(all[0].record.userTag.has_value());
  EXPECT_TRUE(all[1].droppedNotice);
  EXPECT_EQ(all[1].eventsDropped, 3u);
}

// A v6-sized Coll descriptor handed to the v7 entry (the v7 members past it zero, as in a zeroed
// buffer): read as untagged, not symmetric, no kernel named.
TEST_F(ProfilerV7Test, AV6DescriptorThroughTheV7TableReadsAsUntagged) {
  {
    V7Calls nccl(emu::Loader::bindVersion(emu::PluginKind::Profiler, pluginPath("profiler"), 7));
    ncclProfilerEventDescr_v6_t c = {};
    c.type = ncclProfileColl;
    c.coll.func = "AllReduce";
    c.coll.datatype = "ncclFloat32";
    c.coll.count = 1024;
    ncclProfilerEventDescr_v7_t wide = {};
    std::memcpy(static_cast<void*>(&wide), &c, sizeof(c));
    void* op = nccl.start(wide);
    ASSERT_NE(op, nullptr);
    nccl.stop(op);
    nccl.finalize();
  }
  const std::vector<ParsedCollective> all = records();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].record.userTag, 0u);
  EXPECT_EQ(all[0].record.symColl, false);
  EXPECT_EQ(all[0].record.path, OperationPath::Tuned);
  EXPECT_EQ(all[0].record.kernelVariant.view(), "");
}

// A copy-engine AllGather (CeColl, v6+; userTag under v7): a record with path copy_engine, its tag, no
// algorithm or channels, closed at its stop.
TEST_F(ProfilerV7Test, ACopyEngineCollectiveIsRecordedWithItsPath) {
  {
    V7Calls nccl(emu::Loader::bindVersion(emu::PluginKind::Profiler, pluginPath("profiler"), 7));
    EXPECT_NE(nccl.mask & ncclProfileCeColl, 0);
    ncclProfilerEventDescr_v7_t ce = {};
    ce.type = ncclProfileCeColl;
    ce.rank = 3;
    ce.ceColl.seqNumber = 5;
    ce.ceColl.func = "AllGather";
    ce.ceColl.count = 1 << 20;
    ce.ceColl.datatype = "ncclInt8";
    ce.ceColl.syncStrategy = "MC";
    ce.ceColl.userTag = 3;
    void* op = nccl.start(ce);
    ASSERT_NE(op, nullptr);
    nccl.stop(op);
    nccl.finalize();
  }
  const std::vector<ParsedCollective> all = records();
  ASSERT_EQ(all.size(), 1u);
  const OperationRecord& r = all[0].record;
  EXPECT_EQ(r.path, OperationPath::CopyEngine);
  EXPECT_EQ(r.operation.view(), "AllGather");
  EXPECT_EQ(r.seq, 5u);
  EXPECT_EQ(r.userTag, 3u);
  EXPECT_EQ(r.algorithm.view(), "");
  EXPECT_EQ(r.channels, 0);
  EXPECT_EQ(r.closedBy, formats::profile::CloseReason::Enqueued);
}

}  // namespace
}  // namespace railtune::testing
