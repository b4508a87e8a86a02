// NCCL 2.31 and 2.32 in the symbol-version table (emulator/loader.h: symbolVersionsForNccl) and what a job
// misses when NCCL binds an older symbol than the newest it tries (doctor/abi_features.h).
#include <gtest/gtest.h>

#include "doctor/abi_binding.h"
#include "doctor/abi_features.h"
#include "doctor/check.h"
#include "tests/unit/doctor/doctor_elf_builder.h"

namespace railtune::doctor {
namespace {

using emu::PluginKind;
using V = std::vector<int>;

ElfInfo libraryDefining(PluginKind kind, int oldest, int newest) {
  test::ElfSpec spec;
  for (int v = oldest; v <= newest; ++v) spec.symbols.push_back(emu::symbolName(kind, v));
  return parseElf(test::ElfBuilder::build(spec));
}

TEST(DoctorNccl231, LoadersOf231And232) {
  // profiler.cc:26-32@v2.31.2 declares getNcclProfiler_v1..v7; tuner.cc@v2.32.3 still getNcclTuner_v2..v6.
  EXPECT_EQ(emu::symbolVersionsForNccl(23102, PluginKind::Profiler), (V{7, 6, 5, 4, 3, 2, 1}));
  EXPECT_EQ(emu::symbolVersionsForNccl(23102, PluginKind::Tuner), (V{6, 5, 4, 3, 2}));
  EXPECT_EQ(emu::symbolVersionsForNccl(23102, PluginKind::Net), (V{12, 11, 10, 9, 8, 7, 6}));
  EXPECT_EQ(emu::symbolVersionsForNccl(23102, PluginKind::Env), (V{2, 1}));
  EXPECT_EQ(emu::symbolVersionsForNccl(23203, PluginKind::Tuner), (V{6, 5, 4, 3, 2}));
  EXPECT_EQ(emu::symbolVersionsForNccl(23205, PluginKind::Tuner), (V{6, 5, 4, 3, 2}));
  EXPECT_EQ(emu::symbolVersionsForNccl(23206, PluginKind::Tuner), (V{7, 6, 5, 4, 3, 2}));  // v7 from 2.32.6
  EXPECT_EQ(emu::symbolVersionsForNccl(23206, PluginKind::Profiler), (V{7, 6, 5, 4, 3, 2, 1}));
  EXPECT_TRUE(emu::ncclVersionCovered(23102));
  EXPECT_TRUE(emu::ncclVersionCovered(23199));
  EXPECT_FALSE(emu::ncclVersionCovered(23206));
}

TEST(DoctorNccl231, WhichSymbol231BindsFromEachLibrary) {
  const ElfInfo tuner = libraryDefining(PluginKind::Tuner, 2, 7);
  EXPECT_EQ(boundVersion(23102, PluginKind::Tuner, tuner), 6) << "2.31 never tries v7";
  EXPECT_EQ(boundVersion(23206, PluginKind::Tuner, tuner), 7);
  EXPECT_EQ(boundVersion(23102, PluginKind::Profiler, libraryDefining(PluginKind::Profiler, 1, 7)), 7);
  EXPECT_EQ(boundVersion(23102, PluginKind::Profiler, libraryDefining(PluginKind::Profiler, 1, 6)), 6);
  const Check abi = abiCheck(PluginKind::Tuner, "t.so", tuner, std::nullopt);
  EXPECT_NE(abi.message.find("NCCL 2.31.2 binds ncclTunerPlugin_v6"), std::string::npos) << abi.message;
  EXPECT_EQ(abiCheck(PluginKind::Tuner, "t.so", tuner, 23102).status, Status::Ok);
  EXPECT_EQ(abiCheck(PluginKind::Tuner, "t.so", tuner, 23206).status, Status::Warn) << "2.32 is not covered";
}

TEST(DoctorNccl231, WhatA231JobMissesOnAnOlderProfiler) {
  const ElfInfo v6 = libraryDefining(PluginKind::Profiler, 1, 6);
  const Check c = newestCheck(PluginKind::Profiler, "p.so", v6, 23102);
  EXPECT_EQ(c.id, "plugin.profiler.newest");
  EXPECT_EQ(c.status, Status::Warn);
  for (const char* missed : {"ncclProfiler_v7", "binds ncclProfiler_v6", "userTag", "KernelPhase", "isSymColl"})
    EXPECT_NE(c.message.find(missed), std::string::npos) << missed << ": " << c.message;
  EXPECT_EQ(c.message.find("copy-engine"), std::string::npos) << "v6's own additions are not missed: " << c.message;
  const Check none = newestCheck(PluginKind::Profiler, "p.so", v6, std::nullopt);
  EXPECT_EQ(none.status, Status::Warn) << "without NCCL here: the newest reference release, 2.31.2";
  EXPECT_NE(none.message.find("2.31.2 (no NCCL here)"), std::string::npos) << none.message;
  EXPECT_EQ(newestCheck(PluginKind::Profiler, "p.so", libraryDefining(PluginKind::Profiler, 1, 7), 23102).status,
            Status::Ok);
  EXPECT_EQ(newestCheck(PluginKind::Profiler, "p.so", v6, 23007).status, Status::Ok) << "2.30 tries v6 first";
}

TEST(DoctorNccl231, WhatATunerJobMisses) {
  const ElfInfo v6 = libraryDefining(PluginKind::Tuner, 2, 6);
  EXPECT_EQ(newestCheck(PluginKind::Tuner, "t.so", v6, 23102).status, Status::Ok) << "2.31 tries v6 first";
  const Check c = newestCheck(PluginKind::Tuner, "t.so", v6, 23206);
  EXPECT_EQ(c.status, Status::Warn);
  EXPECT_NE(c.message.find("fifth compute-capability row"), std::string::npos) << c.message;
  const Check v4 = newestCheck(PluginKind::Tuner, "t.so", libraryDefining(PluginKind::Tuner, 2, 4), 23102);
  EXPECT_NE(v4.message.find("tuner v5: "), std::string::npos) << v4.message;
  EXPECT_NE(v4.message.find("; tuner v6: getChunkSize"), std::string::npos) << v4.message;
  EXPECT_EQ(newestCheck(PluginKind::Profiler, "p.so", v6, 22709).status, Status::Warn) << "binds nothing";
  EXPECT_EQ(newestCheck(PluginKind::Profiler, "p.so", v6, 21903).status, Status::Skip) << "2.19: no profiler";
}

TEST(DoctorNccl231, MissedTextSteps) {
  EXPECT_EQ(missedText(PluginKind::Tuner, 7, 7), "");
  EXPECT_EQ(missedText(PluginKind::Tuner, 6, 7), versionAdds(PluginKind::Tuner, 7));
  EXPECT_EQ(missedText(PluginKind::Net, 12, 12), "");
  EXPECT_EQ(versionAdds(PluginKind::Net, 3), nullptr);
  const std::string profiler = missedText(PluginKind::Profiler, 5, 7);
  EXPECT_LT(profiler.find("profiler v6"), profiler.find("profiler v7")) << profiler;
}

}  // namespace
}  // namespace railtune::doctor
