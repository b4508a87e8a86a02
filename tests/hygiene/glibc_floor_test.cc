// The arc4random that every plugin carries in place of glibc's (common/glibc_floor.cc): linked into
// this test program, it takes the place of glibc's here too, so its answers can be checked.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>

extern "C" uint32_t arc4random(void);

namespace {

void anchorInThisProgram() {}

TEST(GlibcFloor, TheRuntimeCallsTheLinkedArc4random) {
  Dl_info info{};
  ASSERT_NE(dladdr(reinterpret_cast<void*>(&arc4random), &info), 0);
  Dl_info self{};
  ASSERT_NE(dladdr(reinterpret_cast<void*>(&anchorInThisProgram), &self), 0);
  EXPECT_STREQ(info.dli_fname, self.dli_fname) << "arc4random comes from " << info.dli_fname;
}

TEST(GlibcFloor, Arc4randomGivesDifferentValues) {
  std::set<uint32_t> seen;
  for (int i = 0; i < 64; ++i) seen.insert(arc4random());
  EXPECT_GT(seen.size(), 60u);  // 64 draws of 32 bits: a repeat is a 1-in-a-million event
}

TEST(GlibcFloor, RandomDeviceWorksOnTopOfIt) {
  std::random_device device;
  std::set<unsigned> seen;
  for (int i = 0; i < 16; ++i) seen.insert(device());
  EXPECT_GT(seen.size(), 14u);
}

}  // namespace
