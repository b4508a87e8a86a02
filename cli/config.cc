// `railtune config`: every RAILTUNE_* variable with the value this process would use, or the reason
// its value is rejected. `railtune config --markdown` prints docs/config.md from the same table.
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "common/params.h"

namespace railtune::cli {
namespace {

std::string joinList(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

// Reads one variable through the parser of its type; the result is printed, never interpreted.
struct Reading {
  std::string value;
  bool fromDefault = true;
  std::string error;
};

template <typename T, typename Show>
Reading toReading(const ParamValue<T>& v, Show show) {
  return Reading{show(v.value), v.fromDefault, v.error};
}

Reading readParam(const ParamSpec& spec) {
  switch (spec.type) {
    case ParamType::Bool:
      return toReading(readBool(spec.name), [](bool b) { return std::string(b ? "1" : "0"); });
    case ParamType::Int:
      return toReading(readInt(spec.name), [](int64_t i) { return std::to_string(i); });
    case ParamType::String:
    case ParamType::Enum:
      return toReading(readString(spec.name), [](const std::string& s) { return s; });
    case ParamType::List:
      return toReading(readList(spec.name), joinList);
  }
  return Reading{"", true, "unknown parameter type"};
}

int listParams() {
  int rejected = 0;
  for (const ParamSpec& spec : allParams()) {
    const Reading r = readParam(spec);
    std::cout << spec.name << "=" << r.value;
    if (!r.error.empty()) {
      std::cout << "  (default; the value given is rejected)\n  error: " << r.error << "\n";
      ++rejected;
    } else {
      std::cout << (r.fromDefault ? "  (default)" : "") << "\n";
    }
  }
  if (rejected > 0) std::cerr << "railtune config: " << rejected << " variable(s) rejected\n";
  return rejected > 0 ? 1 : 0;
}

}  // namespace

Command addConfigCommand(CLI::App& parent) {
  CLI::App* sub = parent.add_subcommand(
      "config", "List every RAILTUNE_* variable with its current value (exit 1 if any value is rejected)");
  auto markdown = std::make_shared<bool>(false);
  sub->add_flag("--markdown", *markdown, "Print the configuration reference (docs/config.md) instead");
  return Command{sub, [markdown] {
                   if (*markdown) {
                     std::cout << renderConfigMarkdown();
                     return 0;
                   }
                   return listParams();
                 }};
}

}  // namespace railtune::cli
