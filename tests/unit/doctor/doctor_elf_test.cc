// doctor/elf_info.h and elf_fit.h: the ELF reader on built objects, truncated and foreign ones,
// and on railtune's own plugin libraries; the fit rules that turn what it read into a doctor line.
#include <gtest/gtest.h>

#include <fstream>

#include "doctor/elf_fit.h"
#include "doctor/elf_info.h"
#include "tests/unit/doctor/doctor_elf_builder.h"

namespace railtune::doctor {
namespace {

using test::ElfBuilder;
using test::ElfSpec;

ElfSpec pluginSpec() {
  ElfSpec spec;
  spec.symbols = {"ncclNetPlugin_v11", "ncclNetPlugin_v12"};
  spec.hiddenSymbols = {"railtuneInternal"};
  spec.undefinedSymbols = {"malloc"};
  spec.needed = {"libc.so.6", "libm.so.6"};
  spec.soname = "libnccl-net-railtune.so";
  spec.versionNeeds = {{"libm.so.6", {"GLIBC_2.29"}}, {"libc.so.6", {"GLIBC_2.2.5", "GLIBC_2.34", "GLIBC_2.17"}}};
  return spec;
}

const Platform kX86{"x86_64", kElfMachineX86_64, "2.35"};

TEST(DoctorElf, ReadsWhatTheBuilderWrote) {
  const ElfInfo info = parseElf(ElfBuilder::build(pluginSpec()));
  ASSERT_TRUE(info.headerRead);
  EXPECT_EQ(info.error, "");
  EXPECT_TRUE(info.sectionsRead);
  EXPECT_EQ(info.elfClass, 64);
  EXPECT_FALSE(info.bigEndian);
  EXPECT_EQ(info.machine, kElfMachineX86_64);
  EXPECT_EQ(info.type, kElfTypeShared);
  EXPECT_EQ(info.soname, "libnccl-net-railtune.so");
  EXPECT_EQ(info.needed, (std::vector<std::string>{"libc.so.6", "libm.so.6"}));
  EXPECT_EQ(info.definedSymbols, (std::vector<std::string>{"ncclNetPlugin_v11", "ncclNetPlugin_v12"}));
  EXPECT_FALSE(info.defines("railtuneInternal"));  // hidden
  EXPECT_FALSE(info.defines("malloc"));            // undefined
  ASSERT_EQ(info.versionNeeds.size(), 4u);
  EXPECT_EQ(info.versionNeeds[0].file, "libm.so.6");
  EXPECT_EQ(info.versionNeeds[3].version, "GLIBC_2.17");
  EXPECT_EQ(highestGlibcNeeded(info.versionNeeds), "2.34");
}

TEST(DoctorElf, EveryTruncationGivesAnErrorNeverACrash) {
  const std::string whole = ElfBuilder::build(pluginSpec());
  for (size_t n = 0; n < whole.size(); ++n) {
    const ElfInfo info = parseElf(std::string_view(whole).substr(0, n));
    EXPECT_FALSE(info.error.empty()) << "cut at " << n;
    EXPECT_FALSE(info.sectionsRead) << "cut at " << n;
  }
  EXPECT_NE(parseElf(whole.substr(0, 10)).error.find("too short"), std::string::npos);
  EXPECT_NE(parseElf(whole.substr(0, 40)).error.find("truncated ELF header"), std::string::npos);
  EXPECT_NE(parseElf(whole.substr(0, whole.size() - 1)).error.find("truncated"), std::string::npos);
}

TEST(DoctorElf, NotElfAndHeaderOnly) {
  EXPECT_NE(parseElf("#!/bin/sh\necho hello\n").error.find("not an ELF file"), std::string::npos);
  ElfSpec spec;
  spec.machine = kElfMachineAarch64;
  std::string headerOnly = ElfBuilder::build(spec).substr(0, 64);
  headerOnly[60] = headerOnly[61] = '\0';  // e_shnum = 0
  const ElfInfo info = parseElf(headerOnly);
  EXPECT_TRUE(info.headerRead);
  EXPECT_EQ(info.machine, kElfMachineAarch64);
  EXPECT_NE(info.error.find("no section headers"), std::string::npos);
}

TEST(DoctorElf, HostileOffsetsAreRejected) {
  std::string bytes = ElfBuilder::build(pluginSpec());
  std::string badName = bytes;
  // The first string table's size shrinks to 1: every name offset now runs past it.
  const size_t shoff =
      static_cast<unsigned char>(bytes[40]) | static_cast<size_t>(static_cast<unsigned char>(bytes[41])) << 8;
  badName[shoff + 64 + 32] = 1;
  badName[shoff + 64 + 33] = 0;
  EXPECT_NE(parseElf(badName).error.find("runs past its string table"), std::string::npos);
  std::string hugeCount = bytes;
  hugeCount[60] = static_cast<char>(0xff);
  hugeCount[61] = static_cast<char>(0xff);
  EXPECT_FALSE(parseElf(hugeCount).error.empty());
}

TEST(DoctorElf, GlibcVersionText) {
  EXPECT_EQ(parseGlibcVersion("GLIBC_2.34"), std::make_pair(2, 34));
  EXPECT_EQ(parseGlibcVersion("2.17"), std::make_pair(2, 17));
  EXPECT_EQ(parseGlibcVersion("GLIBC_2.2.5"), std::make_pair(2, 2));
  EXPECT_FALSE(parseGlibcVersion("GLIBC_PRIVATE"));
  EXPECT_FALSE(parseGlibcVersion("2."));
  EXPECT_EQ(highestGlibcNeeded({{"libgcc_s.so.1", "GCC_3.0"}}), "");
  EXPECT_EQ(elfMachineOfUname("aarch64"), kElfMachineAarch64);
  EXPECT_FALSE(elfMachineOfUname("vax"));
  EXPECT_EQ(elfMachineName(kElfMachineAarch64), "aarch64");
}

TEST(DoctorElf, ReadsRailtunesOwnPlugins) {
  const ElfInfo net = readElfFile(RAILTUNE_DOCTOR_PLUGIN_DIR "/libnccl-net-railtune.so");
  ASSERT_EQ(net.error, "");
  EXPECT_TRUE(net.defines("ncclNetPlugin_v12"));
  EXPECT_TRUE(net.defines("ncclTunerPlugin_v6"));  // the net library carries the tuner
  EXPECT_FALSE(net.defines("ncclProfiler_v6"));
  EXPECT_FALSE(highestGlibcNeeded(net.versionNeeds).empty());
  EXPECT_NE(readElfFile(RAILTUNE_DOCTOR_PLUGIN_DIR).error.find("not a regular file"), std::string::npos);
  EXPECT_NE(readElfFile("/no/such/lib.so").error.find("cannot read"), std::string::npos);
}

TEST(DoctorElfFit, OkForAMatchingLibrary) {
  const Check c = elfFitCheck("plugin.net.elf", "net.so", parseElf(ElfBuilder::build(pluginSpec())), kX86);
  EXPECT_EQ(c.status, Status::Ok) << c.message;
  EXPECT_NE(c.message.find("needs glibc >= 2.34 (have 2.35)"), std::string::npos) << c.message;
}

TEST(DoctorElfFit, ForeignArchitectureFails) {
  ElfSpec spec = pluginSpec();
  spec.machine = kElfMachineAarch64;
  const Check c = elfFitCheck("plugin.net.elf", "net.so", parseElf(ElfBuilder::build(spec)), kX86);
  EXPECT_EQ(c.status, Status::Fail);
  EXPECT_NE(c.message.find("built for aarch64 ELF64, this machine is x86_64"), std::string::npos) << c.message;
}

TEST(DoctorElfFit, TooNewGlibcFailsAndCxxRuntimeWarns) {
  const Platform oldGlibc{"x86_64", kElfMachineX86_64, "2.31"};
  const std::string bytes = ElfBuilder::build(pluginSpec());
  const Check glibc = elfFitCheck("id", "net.so", parseElf(bytes), oldGlibc);
  EXPECT_EQ(glibc.status, Status::Fail);
  EXPECT_NE(glibc.fix.find("lacks GLIBC_2.34"), std::string::npos) << glibc.fix;
  ElfSpec spec = pluginSpec();
  spec.needed.push_back("libstdc++.so.6");
  EXPECT_EQ(elfFitCheck("id", "net.so", parseElf(ElfBuilder::build(spec)), kX86).status, Status::Warn);
}

TEST(DoctorElfFit, TruncatedAndNotSharedFail) {
  const std::string bytes = ElfBuilder::build(pluginSpec());
  const Check cut = elfFitCheck("id", "net.so", parseElf(bytes.substr(0, 200)), kX86);
  EXPECT_EQ(cut.status, Status::Fail);
  EXPECT_NE(cut.message.find("truncated"), std::string::npos) << cut.message;
  ElfSpec exec = pluginSpec();
  exec.type = 2;
  EXPECT_EQ(elfFitCheck("id", "net.so", parseElf(ElfBuilder::build(exec)), kX86).status, Status::Fail);
  EXPECT_EQ(elfFitCheck("id", "x.so", parseElf("junk"), kX86).status, Status::Fail);
}

// What doctor says of a library the user names (NVML) before loading it: only the header counts; a
// damaged body is left to the loader in a child.
TEST(DoctorElfFit, HeaderMismatchNamesMachineAndLeavesDamageToTheLoader) {
  ElfSpec arm = pluginSpec();
  arm.machine = kElfMachineAarch64;
  EXPECT_EQ(elfHeaderMismatch("nvml.so", parseElf(ElfBuilder::build(arm)), kX86),
            "nvml.so is built for aarch64 ELF64, this machine is x86_64");
  const std::string bytes = ElfBuilder::build(pluginSpec());
  EXPECT_EQ(elfHeaderMismatch("nvml.so", parseElf(bytes), kX86), std::nullopt);
  const ElfInfo cut = parseElf(bytes.substr(0, 200));
  EXPECT_EQ(elfHeaderMismatch("nvml.so", cut, kX86), std::nullopt) << "a body cut short is not a header mismatch";
  EXPECT_FALSE(cut.error.empty());
  ElfSpec exec = pluginSpec();
  exec.type = 2;
  EXPECT_EQ(elfHeaderMismatch("nvml.so", parseElf(ElfBuilder::build(exec)), kX86),
            "nvml.so is not a shared object (ELF type 2)");
  const auto junk = elfHeaderMismatch("nvml.so", parseElf("junk"), kX86);
  ASSERT_TRUE(junk.has_value());
  EXPECT_EQ(junk->rfind("nvml.so: ", 0), 0u) << *junk;
}

}  // namespace
}  // namespace railtune::doctor
