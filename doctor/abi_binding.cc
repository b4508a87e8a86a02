#include "doctor/abi_binding.h"

#include "doctor/context.h"

namespace railtune::doctor {
namespace {

std::string bindingText(int code, emu::PluginKind kind, const ElfInfo& lib) {
  const int v = boundVersion(code, kind, lib);
  return "NCCL " + ncclVersionText(code) + " binds " + (v > 0 ? emu::symbolName(kind, v) : std::string("nothing"));
}

std::string triedText(int code, emu::PluginKind kind) {
  std::string out;
  for (int v : emu::symbolVersionsForNccl(code, kind)) out += (out.empty() ? "" : ", ") + emu::symbolName(kind, v);
  return out.empty() ? "no " + std::string(emu::kindName(kind)) + " plugin symbol at all" : out;
}

}  // namespace

int boundVersion(int ncclVersionCode, emu::PluginKind kind, const ElfInfo& lib) {
  for (int v : emu::symbolVersionsForNccl(ncclVersionCode, kind))
    if (lib.defines(emu::symbolName(kind, v))) return v;
  return 0;
}

std::string definedVersionsText(emu::PluginKind kind, const ElfInfo& lib) {
  std::vector<int> versions;
  for (int v = 1; v <= 64; ++v)
    if (lib.defines(emu::symbolName(kind, v))) versions.push_back(v);
  if (versions.empty()) return "none";
  bool contiguous = versions.back() - versions.front() + 1 == static_cast<int>(versions.size());
  if (contiguous && versions.size() > 2)
    return emu::symbolName(kind, versions.front()) + ".._v" + std::to_string(versions.back());
  std::string out;
  for (int v : versions) out += (out.empty() ? "" : ", ") + emu::symbolName(kind, v);
  return out;
}

Check abiCheck(emu::PluginKind kind, const std::string& fileName, const ElfInfo& lib, std::optional<int> code) {
  const std::string id = std::string("plugin.") + emu::kindName(kind) + ".abi";
  const std::string defines = fileName + " defines " + definedVersionsText(kind, lib);
  if (code) {
    const std::string line = bindingText(*code, kind, lib) + " (" + defines + ")";
    if (!emu::ncclVersionCovered(*code))
      return {id, Status::Warn,
              line + "; NCCL " + ncclVersionText(*code) + " is outside the releases railtune has read (2.19 to 2.31)",
              "check NCCL's src/plugin/" + std::string(emu::kindName(kind)) +
                  ".cc of that release for the versions it tries"};
    if (boundVersion(*code, kind, lib) == 0)
      return {id, Status::Fail, line + "; NCCL " + ncclVersionText(*code) + " tries " + triedText(*code, kind),
              "use a railtune build whose plugins export a version this NCCL tries, or a newer NCCL"};
    return {id, Status::Ok, line, ""};
  }
  std::string lines;
  bool any = false;
  for (int release : kReferenceNcclReleases) {
    lines += (lines.empty() ? "" : ", ") + bindingText(release, kind, lib);
    any = any || boundVersion(release, kind, lib) > 0;
  }
  const std::string message = "no NCCL here; " + lines + " (" + defines + ")";
  if (!any) return {id, Status::Fail, message, "rebuild the plugins: the library exports no symbol NCCL looks for"};
  return {id, Status::Ok, message, ""};
}

}  // namespace railtune::doctor
