// What `railtune doctor` needs to know about a shared object without loading it: the ELF header
// (class, byte order, type, machine), the NEEDED libraries, the symbol versions it needs from them
// (.gnu.version_r: GLIBC_2.34, ...) and the dynamic symbols it defines (ncclNetPlugin_v12, ...).
//
// The reader is bounds-checked throughout: every offset, size and count read from the file is
// checked against the bytes actually there (and against caps that no real library reaches), so a
// truncated file, a file of another architecture or hostile bytes give an error message, never a
// read outside the buffer. It reads both classes and byte orders; it never maps or executes anything.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace railtune::doctor {

inline constexpr size_t kElfMaxFileBytes = size_t{512} << 20;  // a plugin is a few MiB
inline constexpr size_t kElfMaxSections = 1u << 16;
inline constexpr size_t kElfMaxSymbols = 1u << 20;
inline constexpr size_t kElfMaxVersionNeeds = 4096;  // verneed entries, and aux entries per file

inline constexpr uint16_t kElfTypeShared = 3;  // ET_DYN
inline constexpr uint16_t kElfMachineX86_64 = 62;
inline constexpr uint16_t kElfMachineAarch64 = 183;

struct ElfVersionNeed {
  std::string file;     // "libc.so.6"
  std::string version;  // "GLIBC_2.34"
};

struct ElfInfo {
  bool headerRead = false;  // the fields below the line were read; false: not ELF or truncated header
  int elfClass = 0;         // 32 or 64
  bool bigEndian = false;
  uint16_t type = 0;  // ET_DYN for a shared object
  uint16_t machine = 0;
  // ---- from the section headers (empty when error is set or the file has none) ----
  bool sectionsRead = false;
  std::string soname;
  std::vector<std::string> needed;  // DT_NEEDED, in order
  std::vector<ElfVersionNeed> versionNeeds;
  std::vector<std::string> definedSymbols;  // global or weak, default or protected visibility, defined
  std::string error;                        // the first problem found; "" = the whole file was readable

  bool defines(std::string_view symbol) const;
};

// Parses the bytes of an ELF file. Never throws for bad input; see ElfInfo::error.
ElfInfo parseElf(std::string_view bytes);

// Reads a regular file (at most kElfMaxFileBytes) and parses it; a file that cannot be read, is not
// regular or is too large gives an ElfInfo with headerRead false and the reason in error.
ElfInfo readElfFile(const std::string& path);

// "x86-64", "aarch64", "ppc64", ...; "machine 1234" for others.
std::string elfMachineName(uint16_t machine);

// The ELF machine of a `uname -m` answer ("x86_64" -> 62, "aarch64" -> 183); nullopt when unknown.
std::optional<uint16_t> elfMachineOfUname(std::string_view unameMachine);

// "GLIBC_2.34" -> {2, 34}; "2.17" -> {2, 17}; nullopt for "GLIBC_PRIVATE" and anything else.
std::optional<std::pair<int, int>> parseGlibcVersion(std::string_view text);

// The highest GLIBC_x.y any version need names ("2.34"), "" when there is none.
std::string highestGlibcNeeded(const std::vector<ElfVersionNeed>& needs);

}  // namespace railtune::doctor
