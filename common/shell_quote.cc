// Shell quoting (shell_quote.h).
#include "common/shell_quote.h"

namespace railtune {
namespace {

bool bareCharacter(char c, const ShellQuoteRules& rules) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  if (c == '%') return rules.percentBare;
  return std::string_view("_@+=:,./-").find(c) != std::string_view::npos;
}

}  // namespace

std::string shellQuote(std::string_view word, ShellQuoteRules rules) {
  bool bare = !word.empty() && !(rules.quoteLeadingEquals && word.front() == '=');
  for (const char c : word) bare = bare && bareCharacter(c, rules);
  if (bare) return std::string(word);
  std::string out = "'";
  for (const char c : word) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

}  // namespace railtune
