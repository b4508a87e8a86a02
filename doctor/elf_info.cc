#include "doctor/elf_info.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace railtune::doctor {
namespace {

constexpr uint32_t kShtDynsym = 11;
constexpr uint32_t kShtDynamic = 6;
constexpr uint32_t kShtGnuVerneed = 0x6ffffffe;
constexpr int64_t kDtNull = 0, kDtNeeded = 1, kDtSoname = 14;

// Reads fixed-size integers of the file's byte order at checked offsets.
class Bytes {
 public:
  Bytes(std::string_view data, bool bigEndian) : data_(data), bigEndian_(bigEndian) {}
  size_t size() const { return data_.size(); }
  bool has(uint64_t offset, uint64_t length) const { return offset <= size() && length <= size() - offset; }
  std::optional<uint64_t> uint(uint64_t offset, int width) const {
    if (!has(offset, static_cast<uint64_t>(width))) return std::nullopt;
    uint64_t value = 0;
    for (int i = 0; i < width; ++i) {
      const int index = bigEndian_ ? i : width - 1 - i;
      value = (value << 8) | static_cast<unsigned char>(data_[offset + static_cast<uint64_t>(index)]);
    }
    return value;
  }
  std::string_view view(uint64_t offset, uint64_t length) const { return data_.substr(offset, length); }

 private:
  std::string_view data_;
  bool bigEndian_;
};

struct Section {
  uint32_t type = 0;
  uint64_t offset = 0, size = 0, entsize = 0;
  uint32_t link = 0, info = 0;
};

// Field offsets that differ between ELF32 and ELF64.
struct Layout {
  int word;  // 4 or 8: Elf_Addr, Elf_Off, Elf_Xword
  uint64_t shoff, shentsize, shnum;
  uint64_t minShentsize, dynEntry, symEntry;
};
constexpr Layout kLayout32{4, 32, 46, 48, 40, 8, 16};
constexpr Layout kLayout64{8, 40, 58, 60, 64, 16, 24};

class Parser {
 public:
  Parser(std::string_view data, ElfInfo& out) : bytes_(data, false), out_(out) {}
  void run();

 private:
  bool fail(std::string message) {
    if (out_.error.empty()) out_.error = std::move(message);
    return false;
  }
  bool readHeader();
  bool readSections();
  std::optional<Section> sectionAt(uint64_t index);
  std::optional<std::string> stringAt(uint32_t strtabIndex, uint64_t offset, const char* what);
  bool readDynamic(const Section& s);
  bool readSymbols(const Section& s);
  bool readVersionNeeds(const Section& s);
  bool readAux(const Section& s, uint64_t at, uint64_t count, const std::string& file);

  Bytes bytes_;
  ElfInfo& out_;
  const Layout* layout_ = &kLayout64;
  uint64_t shoff_ = 0, shentsize_ = 0, shnum_ = 0;
};

bool Parser::readHeader() {
  if (bytes_.size() < 16) return fail("too short for an ELF header (" + std::to_string(bytes_.size()) + " bytes)");
  const std::string_view ident = bytes_.view(0, 16);
  if (ident.substr(0, 4) != std::string_view("\x7f"
                                             "ELF",
                                             4))
    return fail("not an ELF file (no \\x7fELF magic)");
  if (ident[4] != 1 && ident[4] != 2) return fail("unknown ELF class " + std::to_string(ident[4]));
  if (ident[5] != 1 && ident[5] != 2) return fail("unknown ELF byte order " + std::to_string(ident[5]));
  out_.elfClass = ident[4] == 1 ? 32 : 64;
  out_.bigEndian = ident[5] == 2;
  bytes_ = Bytes(bytes_.view(0, bytes_.size()), out_.bigEndian);
  layout_ = out_.elfClass == 32 ? &kLayout32 : &kLayout64;
  const uint64_t headerSize = out_.elfClass == 32 ? 52 : 64;
  if (!bytes_.has(0, headerSize)) return fail("truncated ELF header (" + std::to_string(bytes_.size()) + " bytes)");
  out_.type = static_cast<uint16_t>(*bytes_.uint(16, 2));
  out_.machine = static_cast<uint16_t>(*bytes_.uint(18, 2));
  shoff_ = *bytes_.uint(layout_->shoff, layout_->word);
  shentsize_ = *bytes_.uint(layout_->shentsize, 2);
  shnum_ = *bytes_.uint(layout_->shnum, 2);
  out_.headerRead = true;
  return true;
}

std::optional<Section> Parser::sectionAt(uint64_t index) {
  const uint64_t at = shoff_ + index * shentsize_;  // no overflow: shoff_ was checked against the file size
  if (!bytes_.has(at, layout_->minShentsize)) return std::nullopt;
  const int w = layout_->word;
  const uint64_t fields = at + 8 + static_cast<uint64_t>(w) * 2;  // past sh_name, sh_type, sh_flags, sh_addr
  Section s;
  s.type = static_cast<uint32_t>(*bytes_.uint(at + 4, 4));
  s.offset = *bytes_.uint(fields, w);
  s.size = *bytes_.uint(fields + static_cast<uint64_t>(w), w);
  s.link = static_cast<uint32_t>(*bytes_.uint(fields + 2 * static_cast<uint64_t>(w), 4));
  s.info = static_cast<uint32_t>(*bytes_.uint(fields + 2 * static_cast<uint64_t>(w) + 4, 4));
  s.entsize = *bytes_.uint(fields + 2 * static_cast<uint64_t>(w) + 8 + static_cast<uint64_t>(w), w);
  return s;
}

std::optional<std::string> Parser::stringAt(uint32_t strtabIndex, uint64_t offset, const char* what) {
  const std::optional<Section> strtab = strtabIndex < shnum_ ? sectionAt(strtabIndex) : std::nullopt;
  if (!strtab || !bytes_.has(strtab->offset, strtab->size)) {
    fail(std::string(what) + ": string table section " + std::to_string(strtabIndex) + " is outside the file");
    return std::nullopt;
  }
  const std::string_view table = bytes_.view(strtab->offset, strtab->size);
  const size_t end = offset < table.size() ? table.find('\0', offset) : std::string_view::npos;
  if (end == std::string_view::npos) {
    fail(std::string(what) + ": name at offset " + std::to_string(offset) + " runs past its string table");
    return std::nullopt;
  }
  return std::string(table.substr(offset, end - offset));
}

bool Parser::readDynamic(const Section& s) {
  const uint64_t entry = layout_->dynEntry;
  const int w = layout_->word;
  for (uint64_t at = s.offset; at + entry <= s.offset + s.size; at += entry) {
    const uint64_t rawTag = *bytes_.uint(at, w);
    const int64_t tag = w == 4 ? static_cast<int32_t>(rawTag) : static_cast<int64_t>(rawTag);
    if (tag == kDtNull) break;
    if (tag != kDtNeeded && tag != kDtSoname) continue;
    const std::optional<std::string> name = stringAt(s.link, *bytes_.uint(at + static_cast<uint64_t>(w), w), "dynamic");
    if (!name) return false;
    if (tag == kDtNeeded) out_.needed.push_back(*name);
    if (tag == kDtSoname) out_.soname = *name;
  }
  return true;
}

bool Parser::readSymbols(const Section& s) {
  const uint64_t entry = layout_->symEntry;
  if (s.size / entry > kElfMaxSymbols)
    return fail("dynamic symbol table claims " + std::to_string(s.size / entry) + " symbols");
  const bool is64 = out_.elfClass == 64;
  for (uint64_t at = s.offset + entry; at + entry <= s.offset + s.size; at += entry) {  // entry 0 is the null symbol
    const auto info = static_cast<uint8_t>(*bytes_.uint(at + (is64 ? 4 : 12), 1));
    const auto other = static_cast<uint8_t>(*bytes_.uint(at + (is64 ? 5 : 13), 1));
    const uint64_t shndx = *bytes_.uint(at + (is64 ? 6 : 14), 2);
    const int bind = info >> 4, visibility = other & 3;
    const bool exported = (bind == 1 || bind == 2 || bind == 10) && (visibility == 0 || visibility == 3);
    if (!exported || shndx == 0) continue;
    const std::optional<std::string> name = stringAt(s.link, *bytes_.uint(at, 4), "dynamic symbol");
    if (!name) return false;
    out_.definedSymbols.push_back(*name);
  }
  return true;
}

bool Parser::readAux(const Section& s, uint64_t at, uint64_t count, const std::string& file) {
  for (uint64_t i = 0; i < count; ++i) {
    if (out_.versionNeeds.size() >= kElfMaxVersionNeeds) return fail(".gnu.version_r: more than 4096 version needs");
    if (i >= kElfMaxVersionNeeds || at < s.offset || !bytes_.has(at, 16) || at + 16 > s.offset + s.size)
      return fail("version needs of " + file + ": entry " + std::to_string(i) + " is outside .gnu.version_r");
    const std::optional<std::string> name = stringAt(s.link, *bytes_.uint(at + 8, 4), "version need");
    if (!name) return false;
    out_.versionNeeds.push_back({file, *name});
    const uint64_t next = *bytes_.uint(at + 12, 4);
    if (next == 0) break;
    at += next;
  }
  return true;
}

bool Parser::readVersionNeeds(const Section& s) {
  uint64_t at = s.offset;
  for (uint64_t i = 0; i < s.info; ++i) {
    if (i >= kElfMaxVersionNeeds || !bytes_.has(at, 16) || at + 16 > s.offset + s.size)
      return fail(".gnu.version_r: entry " + std::to_string(i) + " is outside the section");
    const std::optional<std::string> file = stringAt(s.link, *bytes_.uint(at + 4, 4), "version need");
    if (!file || !readAux(s, at + *bytes_.uint(at + 8, 4), *bytes_.uint(at + 2, 2), *file)) return false;
    const uint64_t next = *bytes_.uint(at + 12, 4);
    if (next == 0) break;
    at += next;
  }
  return true;
}

bool Parser::readSections() {
  if (shnum_ == 0) return fail("no section headers: cannot list NEEDED libraries and symbols");
  if (shnum_ > kElfMaxSections || shentsize_ < layout_->minShentsize)
    return fail("implausible section header table (" + std::to_string(shnum_) + " entries of " +
                std::to_string(shentsize_) + " bytes)");
  if (!bytes_.has(shoff_, shnum_ * shentsize_))
    return fail("truncated: the section header table at offset " + std::to_string(shoff_) + " ends past the file (" +
                std::to_string(bytes_.size()) + " bytes)");
  for (uint64_t i = 0; i < shnum_; ++i) {
    const Section s = *sectionAt(i);
    const bool wanted = s.type == kShtDynamic || s.type == kShtDynsym || s.type == kShtGnuVerneed;
    if (!wanted) continue;
    if (!bytes_.has(s.offset, s.size))
      return fail("truncated: section " + std::to_string(i) + " (offset " + std::to_string(s.offset) + ", " +
                  std::to_string(s.size) + " bytes) ends past the file (" + std::to_string(bytes_.size()) + " bytes)");
    const bool ok = s.type == kShtDynamic  ? readDynamic(s)
                    : s.type == kShtDynsym ? readSymbols(s)
                                           : readVersionNeeds(s);
    if (!ok) return false;
  }
  out_.sectionsRead = true;
  return true;
}

void Parser::run() {
  if (readHeader()) readSections();
}

}  // namespace

bool ElfInfo::defines(std::string_view symbol) const {
  return std::find(definedSymbols.begin(), definedSymbols.end(), symbol) != definedSymbols.end();
}

ElfInfo parseElf(std::string_view bytes) {
  ElfInfo info;
  Parser(bytes, info).run();
  return info;
}

ElfInfo readElfFile(const std::string& path) {
  ElfInfo info;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    info.error = "cannot read " + path + ": " + std::strerror(errno);
    return info;
  }
  if (!S_ISREG(st.st_mode)) {
    info.error = path + " is not a regular file";
    return info;
  }
  if (static_cast<uint64_t>(st.st_size) > kElfMaxFileBytes) {
    info.error = path + " is larger than " + std::to_string(kElfMaxFileBytes >> 20) + " MiB";
    return info;
  }
  std::ifstream file(path, std::ios::binary);
  std::string bytes(static_cast<size_t>(st.st_size), '\0');
  file.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!file) {
    info.error = "cannot read " + path + " (" + std::to_string(file.gcount()) + " of " + std::to_string(bytes.size()) +
                 " bytes)";
    return info;
  }
  return parseElf(bytes);
}

std::string elfMachineName(uint16_t machine) {
  switch (machine) {
    case 3:
      return "i386";
    case 8:
      return "mips";
    case 20:
      return "ppc";
    case 21:
      return "ppc64";
    case 22:
      return "s390";
    case 40:
      return "arm";
    case kElfMachineX86_64:
      return "x86-64";
    case kElfMachineAarch64:
      return "aarch64";
    case 243:
      return "riscv";
  }
  return "machine " + std::to_string(machine);
}

std::optional<uint16_t> elfMachineOfUname(std::string_view m) {
  if (m == "x86_64") return kElfMachineX86_64;
  if (m == "aarch64" || m == "arm64") return kElfMachineAarch64;
  if (m == "ppc64le" || m == "ppc64") return uint16_t{21};
  if (m == "s390x") return uint16_t{22};
  if (m == "riscv64") return uint16_t{243};
  if (m == "i386" || m == "i686") return uint16_t{3};
  return std::nullopt;
}

std::optional<std::pair<int, int>> parseGlibcVersion(std::string_view text) {
  if (text.starts_with("GLIBC_")) text.remove_prefix(6);
  const size_t dot = text.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot > 3) return std::nullopt;
  int major = 0, minor = 0;
  size_t i = 0;
  for (; i < dot; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    major = major * 10 + (text[i] - '0');
  }
  size_t digits = 0;
  for (i = dot + 1; i < text.size() && text[i] >= '0' && text[i] <= '9' && digits < 4; ++i, ++digits)
    minor = minor * 10 + (text[i] - '0');
  if (digits == 0 || (i < text.size() && text[i] != '.')) return std::nullopt;  // "2.2.5" is fine
  return std::make_pair(major, minor);
}

std::string highestGlibcNeeded(const std::vector<ElfVersionNeed>& needs) {
  std::optional<std::pair<int, int>> best;
  for (const ElfVersionNeed& need : needs) {
    if (!need.version.starts_with("GLIBC_")) continue;
    const auto v = parseGlibcVersion(need.version);
    if (v && (!best || *v > *best)) best = v;
  }
  return best ? std::to_string(best->first) + "." + std::to_string(best->second) : "";
}

}  // namespace railtune::doctor
