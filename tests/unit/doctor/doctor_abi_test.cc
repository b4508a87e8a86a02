// emulator/loader.h's symbolVersionsForNccl (which symbol versions each NCCL release tries, read from
// NCCL's src/plugin/*.cc per tag) and doctor/abi_binding.h (which one it binds from a library).
#include <gtest/gtest.h>

#include "doctor/abi_binding.h"
#include "doctor/check.h"
#include "doctor/context.h"
#include "tests/unit/doctor/doctor_elf_builder.h"

namespace railtune::doctor {
namespace {

using emu::PluginKind;
using V = std::vector<int>;

TEST(DoctorNcclVersions, AgreesWithTheEmulatorsTwoBehaviours) {
  for (PluginKind k : {PluginKind::Net, PluginKind::Tuner, PluginKind::Profiler, PluginKind::Env}) {
    EXPECT_EQ(emu::symbolVersionsForNccl(22809, k), emu::symbolVersions(emu::NcclBehaviour::V2_28, k))
        << emu::kindName(k);
    EXPECT_EQ(emu::symbolVersionsForNccl(23007, k), emu::symbolVersions(emu::NcclBehaviour::V2_30, k))
        << emu::kindName(k);
  }
}

TEST(DoctorNcclVersions, ReleasesAsTheirSourcesTryThem) {
  EXPECT_EQ(emu::symbolVersionsForNccl(21903, PluginKind::Net), (V{7, 6, 5}));
  EXPECT_EQ(emu::symbolVersionsForNccl(21903, PluginKind::Tuner), (V{1}));
  EXPECT_EQ(emu::symbolVersionsForNccl(21903, PluginKind::Profiler), V{});
  EXPECT_EQ(emu::symbolVersionsForNccl(22304, PluginKind::Profiler), (V{1}));
  EXPECT_EQ(emu::symbolVersionsForNccl(22403, PluginKind::Net), (V{9, 8, 7, 6, 5}));
  EXPECT_EQ(emu::symbolVersionsForNccl(22606, PluginKind::Net), (V{10, 9, 8, 7, 6}));
  EXPECT_EQ(emu::symbolVersionsForNccl(22707, PluginKind::Profiler), (V{4, 3, 2, 1}));
  EXPECT_EQ(emu::symbolVersionsForNccl(22907, PluginKind::Tuner), (V{5, 4, 3, 2}));
  EXPECT_EQ(emu::symbolVersionsForNccl(22907, PluginKind::Profiler), (V{6, 5, 4, 3, 2, 1}));  // 2.29 added v6
  EXPECT_EQ(emu::symbolVersionsForNccl(22803, PluginKind::Env), V{});
  EXPECT_EQ(emu::symbolVersionsForNccl(22807, PluginKind::Env), (V{1}));
}

TEST(DoctorNcclVersions, OutsideTheTable) {
  EXPECT_EQ(emu::symbolVersionsForNccl(21812, PluginKind::Net), V{});
  EXPECT_EQ(emu::symbolVersionsForNccl(2708, PluginKind::Net), V{});
  EXPECT_FALSE(emu::ncclVersionCovered(23200));  // 2.32: only its tuner loader was read
  EXPECT_EQ(emu::symbolVersionsForNccl(23300, PluginKind::Net), emu::symbolVersionsForNccl(23206, PluginKind::Net));
  EXPECT_EQ(emu::symbolVersionsForNccl(23300, PluginKind::Tuner), (V{7, 6, 5, 4, 3, 2}));
  EXPECT_TRUE(emu::ncclVersionCovered(21900));
  EXPECT_TRUE(emu::ncclVersionCovered(23007));
}

TEST(DoctorNcclVersions, VersionText) {
  EXPECT_EQ(ncclVersionText(22809), "2.28.9");
  EXPECT_EQ(ncclVersionText(23007), "2.30.7");
  EXPECT_EQ(ncclVersionText(2708), "2.7.8");
  EXPECT_EQ(underRoot("/", "/dev/x"), "/dev/x");
  EXPECT_EQ(underRoot("fixture/", "/dev/x"), "fixture/dev/x");
}

ElfInfo library(std::vector<std::string> symbols) {
  test::ElfSpec spec;
  spec.symbols = std::move(symbols);
  return parseElf(test::ElfBuilder::build(spec));
}

TEST(DoctorAbi, NewestTriedVersionTheLibraryDefines) {
  const ElfInfo net = library({"ncclNetPlugin_v6", "ncclNetPlugin_v10", "ncclNetPlugin_v11", "ncclNetPlugin_v12"});
  EXPECT_EQ(boundVersion(22809, PluginKind::Net, net), 11);
  EXPECT_EQ(boundVersion(23007, PluginKind::Net, net), 12);
  EXPECT_EQ(boundVersion(22606, PluginKind::Net, net), 10);
  EXPECT_EQ(boundVersion(21903, PluginKind::Net, net), 6);
  EXPECT_EQ(definedVersionsText(PluginKind::Net, net),
            "ncclNetPlugin_v6, ncclNetPlugin_v10, ncclNetPlugin_v11, ncclNetPlugin_v12");
  EXPECT_EQ(definedVersionsText(PluginKind::Net, library({"ncclNetPlugin_v6", "ncclNetPlugin_v7", "ncclNetPlugin_v8"})),
            "ncclNetPlugin_v6.._v8");
}

TEST(DoctorAbi, Lines) {
  const ElfInfo tuner = library({"ncclTunerPlugin_v6"});
  const Check with228 = abiCheck(PluginKind::Tuner, "t.so", tuner, 22809);
  EXPECT_EQ(with228.status, Status::Fail);
  EXPECT_NE(with228.message.find("NCCL 2.28.9 binds nothing"), std::string::npos) << with228.message;
  EXPECT_NE(with228.message.find("tries ncclTunerPlugin_v5, ncclTunerPlugin_v4"), std::string::npos) << with228.message;
  EXPECT_EQ(abiCheck(PluginKind::Tuner, "t.so", tuner, 23007).status, Status::Ok);
  const Check absent = abiCheck(PluginKind::Tuner, "t.so", tuner, std::nullopt);
  EXPECT_EQ(absent.status, Status::Ok);
  EXPECT_NE(absent.message.find("NCCL 2.28.9 binds nothing, NCCL 2.30.7 binds ncclTunerPlugin_v6"), std::string::npos)
      << absent.message;
  EXPECT_EQ(abiCheck(PluginKind::Tuner, "t.so", library({}), std::nullopt).status, Status::Fail);
  EXPECT_EQ(abiCheck(PluginKind::Tuner, "t.so", tuner, 23200).status, Status::Warn);
}

TEST(DoctorReport, TextAndExitStatus) {
  Report report;
  report.add("a.b", Status::Ok, "fine", "never shown");
  report.add("c", Status::Skip, "absent");
  EXPECT_EQ(report.exitStatus(), 0);
  report.add("d.e", Status::Fail, "broken\nline", "do this");
  EXPECT_EQ(report.exitStatus(), 1);
  EXPECT_EQ(renderText(report),
            "ok   a.b  fine\n"
            "skip c    absent\n"
            "fail d.e  broken line -- fix: do this\n"
            "railtune doctor: 1 ok, 0 warn, 1 fail, 1 skip\n");
  const std::string json = renderJson(report, "h", "0.1.0");
  EXPECT_NE(json.find("\"schema\": \"railtune.doctor.v1\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"exit_status\": 1"), std::string::npos) << json;
}

}  // namespace
}  // namespace railtune::doctor
