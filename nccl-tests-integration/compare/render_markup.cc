// Escaping and shortening of user text for the compare report's markup (render_markup.h).
#include "nccl-tests-integration/compare/render_markup.h"

#include <cmath>
#include <cstdio>

#include "formats/markup_escape.h"
#include "nccl-tests-integration/rules/derive.h"

namespace railtune::sweep::render {

std::string markup(std::string_view text) {
  return formats::markupEscape(text);
}

std::string shortened(std::string_view text, size_t maxChars) {
  size_t chars = 0, i = 0, cut = 0;
  for (; i < text.size(); ++chars) {
    if (chars + 1 == maxChars) cut = i;  // where the "…" goes if the text is longer than maxChars
    i += formats::utf8SequenceLength(text, i);
  }
  if (chars <= maxChars) return std::string(text);
  return std::string(text.substr(0, maxChars == 0 ? 0 : cut)) + "\xE2\x80\xA6";
}

std::string attr(std::string_view name, std::string_view value) {
  return " " + std::string(name) + "=\"" + markup(value) + "\"";
}

std::string px(double value) {
  if (!std::isfinite(value)) value = 0;
  return fixedText(value, 1);
}

}  // namespace railtune::sweep::render
