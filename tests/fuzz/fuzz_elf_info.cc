// libFuzzer target for the ELF reader of `railtune doctor` (doctor/elf_info.h). Besides crashes
// and sanitizer reports it checks the reader's promises: sections are only reported read when the
// whole file was readable, header fields only when the header was, and every name it returns lies
// inside the input (so is at most as long as it).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "doctor/elf_info.h"

namespace {

void require(bool promise) {
  if (!promise) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace railtune::doctor;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const ElfInfo info = parseElf(bytes);
  require(info.headerRead || info.error.size() > 0);
  require(!info.sectionsRead || (info.headerRead && info.error.empty()));
  require(!info.headerRead || info.elfClass == 32 || info.elfClass == 64);
  require(info.versionNeeds.size() <= kElfMaxVersionNeeds);
  for (const std::string& name : info.definedSymbols) require(name.size() < size);
  for (const std::string& name : info.needed) require(name.size() < size);
  for (const ElfVersionNeed& need : info.versionNeeds) require(need.file.size() < size && need.version.size() < size);
  (void)highestGlibcNeeded(info.versionNeeds);
  (void)elfMachineName(info.machine);
  return 0;
}
