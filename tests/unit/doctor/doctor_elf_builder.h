// Builds small ELF64 little-endian shared objects in memory for the doctor tests: a header, .dynstr,
// .dynsym, .dynamic (NEEDED, SONAME) and .gnu.version_r, laid out as the linker does. Written from the
// ELF specification (not from doctor/elf_info.cc), so a misreading shows up as a failed test.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace railtune::test {

struct ElfSpec {
  uint16_t machine = 62;             // EM_X86_64
  uint16_t type = 3;                 // ET_DYN
  std::vector<std::string> symbols;  // defined, global, default visibility
  std::vector<std::string> hiddenSymbols;
  std::vector<std::string> undefinedSymbols;
  std::vector<std::string> needed;
  std::string soname;
  std::vector<std::pair<std::string, std::vector<std::string>>> versionNeeds;  // file -> versions
};

class ElfBuilder {
 public:
  static std::string build(const ElfSpec& spec) { return ElfBuilder(spec).bytes_; }

 private:
  explicit ElfBuilder(const ElfSpec& spec) {
    bytes_.assign(64, '\0');
    const uint64_t strOff = bytes_.size();
    const std::string dynsym = dynsymOf(spec), dynamic = dynamicOf(spec), verneed = verneedOf(spec);
    bytes_ += strtab_;  // every name the three tables added
    const uint64_t symOff = align();
    bytes_ += dynsym;
    const uint64_t dynOff = align();
    bytes_ += dynamic;
    const uint64_t verOff = align();
    bytes_ += verneed;
    const uint64_t shOff = align();
    section(0, 0, 0, 0, 0, 0);
    section(3, strOff, strtab_.size(), 0, 0, 0);                                  // 1: .dynstr (STRTAB)
    section(11, symOff, dynsym.size(), 1, 1, 24);                                 // 2: .dynsym
    section(6, dynOff, dynamic.size(), 1, 0, 16);                                 // 3: .dynamic
    section(0x6ffffffe, verOff, verneed.size(), 1, spec.versionNeeds.size(), 0);  // 4: .gnu.version_r
    header(spec, shOff, 5);
  }

  // NAME's offset in .dynstr, added there.
  uint32_t str(const std::string& name) {
    const auto at = static_cast<uint32_t>(strtab_.size());
    strtab_ += name + '\0';
    return at;
  }

  std::string dynsymOf(const ElfSpec& spec) {
    std::string dynsym(24, '\0');
    auto symbol = [&](const std::string& name, uint8_t info, uint8_t other, uint16_t shndx) {
      std::string e(24, '\0');
      put(e, 0, str(name), 4);
      e[4] = static_cast<char>(info);
      e[5] = static_cast<char>(other);
      put(e, 6, shndx, 2);
      dynsym += e;
    };
    for (const std::string& s : spec.symbols) symbol(s, 0x11, 0, 7);  // GLOBAL OBJECT, default, section 7
    for (const std::string& s : spec.hiddenSymbols) symbol(s, 0x11, 2, 7);
    for (const std::string& s : spec.undefinedSymbols) symbol(s, 0x12, 0, 0);
    return dynsym;
  }

  std::string dynamicOf(const ElfSpec& spec) {
    std::string dynamic;
    auto dyn = [&](uint64_t tag, uint64_t value) {
      std::string e(16, '\0');
      put(e, 0, tag, 8);
      put(e, 8, value, 8);
      dynamic += e;
    };
    for (const std::string& n : spec.needed) dyn(1, str(n));
    if (!spec.soname.empty()) dyn(14, str(spec.soname));
    dyn(0, 0);
    return dynamic;
  }

  std::string verneedOf(const ElfSpec& spec) {
    std::string verneed;
    for (size_t f = 0; f < spec.versionNeeds.size(); ++f) {
      const auto& [file, versions] = spec.versionNeeds[f];
      std::string vn(16, '\0');
      put(vn, 0, 1, 2);
      put(vn, 2, versions.size(), 2);
      put(vn, 4, str(file), 4);
      put(vn, 8, 16, 4);
      const bool last = f + 1 == spec.versionNeeds.size();
      put(vn, 12, last ? 0 : 16 + 16 * versions.size(), 4);
      verneed += vn;
      for (size_t v = 0; v < versions.size(); ++v) {
        std::string aux(16, '\0');
        put(aux, 8, str(versions[v]), 4);
        put(aux, 12, v + 1 == versions.size() ? 0 : 16, 4);
        verneed += aux;
      }
    }
    return verneed;
  }

  static void put(std::string& at, size_t offset, uint64_t value, int width) {
    for (int i = 0; i < width; ++i) at[offset + static_cast<size_t>(i)] = static_cast<char>((value >> (8 * i)) & 0xff);
  }
  uint64_t align() {
    while (bytes_.size() % 8 != 0) bytes_ += '\0';
    return bytes_.size();
  }
  void section(uint32_t type, uint64_t offset, uint64_t size, uint32_t link, uint64_t info, uint64_t entsize) {
    std::string s(64, '\0');
    put(s, 4, type, 4);
    put(s, 24, offset, 8);
    put(s, 32, size, 8);
    put(s, 40, link, 4);
    put(s, 44, info, 4);
    put(s, 56, entsize, 8);
    bytes_ += s;
  }
  void header(const ElfSpec& spec, uint64_t shoff, uint16_t shnum) {
    const char ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    bytes_.replace(0, sizeof ident, ident, sizeof ident);
    put(bytes_, 16, spec.type, 2);
    put(bytes_, 18, spec.machine, 2);
    put(bytes_, 20, 1, 4);
    put(bytes_, 40, shoff, 8);
    put(bytes_, 52, 64, 2);
    put(bytes_, 58, 64, 2);
    put(bytes_, 60, shnum, 2);
  }

  std::string bytes_;
  std::string strtab_ = std::string(1, '\0');  // .dynstr: starts with the empty name
};

}  // namespace railtune::test
