#include "doctor/elf_fit.h"
#include "doctor/check.h"

#include <gnu/libc-version.h>
#include <sys/utsname.h>

namespace railtune::doctor {
namespace {

std::string joinedOrNone(const std::vector<std::string>& items) {
  return items.empty() ? "none" : joined(items);
}

// The C++ runtime a release build links statically (architecture rule 5); a plugin that needs it
// at load time depends on the training image's libstdc++ being new enough. (libgcc_s.so.1 is
// allowed: it ships with glibc-based images, and tests/hygiene caps the GCC_ version needed.)
bool isCxxRuntime(const std::string& lib) {
  return lib.rfind("libstdc++", 0) == 0 || lib.rfind("libc++", 0) == 0;
}

// The fix for what elfHeaderMismatch found in one of railtune's own plugins.
std::string pluginHeaderFix(const ElfInfo& lib, const Platform& platform) {
  if (!lib.headerRead) return "the file is damaged or not a shared library: reinstall or rebuild railtune's plugins";
  if (platform.elfMachine && lib.machine != *platform.elfMachine)
    return "install the " + platform.machine + " build of railtune (build on, or cross-compile for, this architecture)";
  if (lib.elfClass != static_cast<int>(sizeof(void*) * 8)) return "install the 64-bit build of railtune";
  return "point at the plugin .so itself";
}

std::optional<Check> headerProblem(const std::string& id, const std::string& fileName, const ElfInfo& lib,
                                   const Platform& platform) {
  if (const auto mismatch = elfHeaderMismatch(fileName, lib, platform))
    return Check{id, Status::Fail, *mismatch, pluginHeaderFix(lib, platform)};
  if (!lib.error.empty())
    return Check{id, Status::Fail, fileName + ": " + lib.error, "the file is damaged (truncated copy?): reinstall it"};
  return std::nullopt;
}

}  // namespace

Platform thisPlatform() {
  Platform p;
  utsname u{};
  if (::uname(&u) == 0) p.machine = u.machine;
  p.elfMachine = elfMachineOfUname(p.machine);
  p.glibc = gnu_get_libc_version();
  return p;
}

std::optional<std::string> elfHeaderMismatch(const std::string& fileName, const ElfInfo& lib,
                                             const Platform& platform) {
  if (!lib.headerRead) return fileName + ": " + lib.error;
  const std::string built = elfMachineName(lib.machine) + " ELF" + std::to_string(lib.elfClass);
  if (platform.elfMachine && lib.machine != *platform.elfMachine)
    return fileName + " is built for " + built + ", this machine is " + platform.machine;
  if (lib.elfClass != static_cast<int>(sizeof(void*) * 8))
    return fileName + " is " + built + ", this machine runs " + std::to_string(sizeof(void*) * 8) + "-bit code";
  if (lib.type != kElfTypeShared)
    return fileName + " is not a shared object (ELF type " + std::to_string(lib.type) + ")";
  return std::nullopt;
}

Check platformCheck(const Platform& platform) {
  const std::string message = platform.machine + ", glibc " + platform.glibc;
  if (!platform.elfMachine)
    return {"host.platform", Status::Warn, message + " (an architecture railtune does not know)",
            "railtune is built and tested for x86_64 and aarch64"};
  return {"host.platform", Status::Ok, message, ""};
}

Check elfFitCheck(const std::string& id, const std::string& fileName, const ElfInfo& lib, const Platform& platform) {
  if (auto problem = headerProblem(id, fileName, lib, platform)) return *problem;
  const std::string glibcNeeded = highestGlibcNeeded(lib.versionNeeds);
  const auto need = parseGlibcVersion(glibcNeeded);
  const auto have = parseGlibcVersion(platform.glibc);
  const std::string needText = glibcNeeded.empty() ? "no versioned glibc symbol" : "glibc >= " + glibcNeeded;
  const std::string base = fileName + ": " + elfMachineName(lib.machine) + " ELF" + std::to_string(lib.elfClass) +
                           ", needs " + needText + " (have " + platform.glibc + "), NEEDED " + joinedOrNone(lib.needed);
  if (need && have && *need > *have)
    return {id, Status::Fail, base,
            "build railtune on (or for) the oldest glibc you deploy to: this image's glibc " + platform.glibc +
                " lacks GLIBC_" + glibcNeeded};
  for (const std::string& lib_ : lib.needed)
    if (isCxxRuntime(lib_))
      return {id, Status::Warn, base,
              "a release build links the C++ runtime statically; with " + lib_ +
                  " NEEDED the image's C++ runtime must be at least the build's (a sanitizer build?)"};
  return {id, Status::Ok, base, ""};
}

}  // namespace railtune::doctor
