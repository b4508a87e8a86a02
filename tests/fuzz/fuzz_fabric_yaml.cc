// libFuzzer target for the cluster description reader: arbitrary bytes through the YAML reader
// (both forms, the profiles, expand() and overrides), then validate() on whatever it accepted.
// Besides crashes and sanitizer reports it checks the reader's promise: the only failure is a
// FabricError, and that error names the file and a position inside the input.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fabric/diagnostics.h"
#include "fabric/validate.h"
#include "fabric/yaml_reader.h"

namespace {

void require(bool promise) {
  if (!promise) std::abort();
}

int lineCount(const std::string& text) {
  int lines = 1;
  for (char c : text) lines += c == '\n';
  return lines;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  using namespace railtune::fabric;
  try {
    const Fabric fabric = readFabricYaml(text, "fuzz.yaml");
    Diagnostics diagnostics;
    validate(fabric, diagnostics);
    for (const Diagnostic& d : diagnostics.all()) require(!d.message.empty());
  } catch (const FabricError& e) {
    const SourceLoc& loc = e.diagnostic().loc;
    require(loc.file == "fuzz.yaml" || loc.file.rfind("profiles/", 0) == 0);
    require(loc.line >= 0 && loc.line <= lineCount(text) + 1);
    require(!e.diagnostic().message.empty());
  }
  return 0;
}
