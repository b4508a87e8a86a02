// libFuzzer target for the RAILTUNE_* parameter parsers (common/params.h): the text parsers on the
// whole input, then every declared variable read through an EnvLookup whose values are cut from
// the input. Besides crashes and sanitizer reports it checks the parsers' promises.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "common/params.h"

namespace {

// The variables' values for the current input: piece i (split at '\0') belongs to the i-th declared
// variable; a missing piece means unset. EnvLookup is a plain function pointer, hence the global.
std::vector<std::string> gValues;

std::optional<std::string> fuzzEnv(const char* name) {
  const auto params = railtune::allParams();
  for (size_t i = 0; i < params.size() && i < gValues.size(); ++i)
    if (std::string(params[i].name) == name) return gValues[i];
  return std::nullopt;
}

void require(bool promise) {
  if (!promise) std::abort();
}

void checkTextParsers(const std::string& text) {
  bool b = false;
  if (railtune::parseBoolText(text, &b)) {
    bool again = !b;
    require(railtune::parseBoolText(b ? "1" : "0", &again) && again == b);
  }
  int64_t i = 0;
  if (railtune::parseIntText(text, &i)) {
    int64_t again = 0;
    require(railtune::parseIntText(std::to_string(i), &again) && again == i);
  }
  for (const std::string& item : railtune::splitList(text)) {
    require(!item.empty() && item.find(',') == std::string::npos);
    require(!std::isspace(static_cast<unsigned char>(item.front())) &&
            !std::isspace(static_cast<unsigned char>(item.back())));
  }
}

// A rejected value names its variable; an accepted one is not reported as the default.
template <typename T>
void checkReading(const railtune::ParamSpec& spec, const railtune::ParamValue<T>& v, bool set) {
  if (!v.ok()) require(v.error.find(spec.name) != std::string::npos && v.fromDefault);
  if (v.ok()) require(v.fromDefault == !set);
}

void readEveryParam() {
  const auto params = railtune::allParams();
  for (size_t i = 0; i < params.size(); ++i) {
    const railtune::ParamSpec& spec = params[i];
    // A value of only blanks counts as unset (docs/config.md).
    const bool set = i < gValues.size() && gValues[i].find_first_not_of(" \t") != std::string::npos;
    switch (spec.type) {
      case railtune::ParamType::Bool:
        checkReading(spec, railtune::readBool(spec.name, fuzzEnv), set);
        break;
      case railtune::ParamType::Int:
        checkReading(spec, railtune::readInt(spec.name, fuzzEnv), set);
        break;
      case railtune::ParamType::String:
      case railtune::ParamType::Enum:
        checkReading(spec, railtune::readString(spec.name, fuzzEnv), set);
        break;
      case railtune::ParamType::List:
        checkReading(spec, railtune::readList(spec.name, fuzzEnv), set);
        break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  checkTextParsers(text);
  gValues.clear();
  size_t start = 0;
  for (size_t nul = text.find('\0'); start <= text.size(); nul = text.find('\0', start)) {
    gValues.push_back(text.substr(start, nul == std::string::npos ? std::string::npos : nul - start));
    if (nul == std::string::npos) break;
    start = nul + 1;
  }
  readEveryParam();
  return 0;
}
