// Does a shared object fit this machine: its architecture and class, its type, the newest glibc
// symbol version it needs, and its NEEDED libraries (railtune's plugins need glibc only).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "doctor/check.h"
#include "doctor/elf_info.h"

namespace railtune::doctor {

struct Platform {
  std::string machine;                 // uname -m: "x86_64"
  std::optional<uint16_t> elfMachine;  // its ELF e_machine, nullopt when railtune does not know it
  std::string glibc;                   // gnu_get_libc_version(): "2.35"
};

Platform thisPlatform();

// The platform line (host.platform): machine and glibc.
Check platformCheck(const Platform& platform);

// Why `fileName` cannot be loaded here, from its ELF header alone: not ELF (or unreadable), built for
// another machine or class, not a shared object. nullopt when the header fits; the rest of the file
// may still be damaged (ElfInfo::error). glibc's dlopen says "No such file or directory" or "wrong ELF
// class" for most of these; this names the file's machine and this one's.
std::optional<std::string> elfHeaderMismatch(const std::string& fileName, const ElfInfo& lib, const Platform& platform);

// The plugin.<kind>.elf line for `fileName` as read into `lib`.
Check elfFitCheck(const std::string& id, const std::string& fileName, const ElfInfo& lib, const Platform& platform);

}  // namespace railtune::doctor
