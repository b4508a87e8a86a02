// libFuzzer target for RAILTUNE_PROFILE_MASK's parser (profiler_plugin/capture/mask.h). The input is
// the variable's list, split at ',' as the parameter registry does. Besides crashes and sanitizer
// reports it checks the parser's promises: a rejected list gives the default mask, an accepted one asks
// only for events the capture uses, and the names a mask is logged with parse back to that mask.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "profiler_plugin/capture/mask.h"

namespace {

void require(bool promise) {
  if (!promise) std::abort();
}

std::vector<std::string> splitAtCommas(std::string_view text) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  for (;;) {
    const size_t comma = text.find(',');
    out.emplace_back(text.substr(0, comma));
    if (comma == std::string_view::npos) return out;
    text.remove_prefix(comma + 1);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace railtune::profiler;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const ParsedMask parsed = parseProfileMask(splitAtCommas(text));
  if (!parsed.error.empty()) {
    require(parsed.mask == kDefaultProfileMask);
    return 0;
  }
  require((parsed.mask & ~kAllProfileMask) == 0);
  const std::string names = profileMaskNames(parsed.mask);
  const ParsedMask again = parseProfileMask(splitAtCommas(names));
  require(again.error.empty());
  require(again.mask == parsed.mask);
  return 0;
}
