// Quoting for the shell text railtune writes for users to run (sweep commands, launcher env scripts,
// kubectl label scripts): one word is one shell word whatever its bytes (quotes, newlines, '$', '\'),
// so that pasting what railtune prints runs exactly the command it means.
#pragma once

#include <string>
#include <string_view>

namespace railtune {

// Which words may stay bare; the rest are single-quoted. Each writer keeps the spelling its users
// already have in their scripts.
struct ShellQuoteRules {
  bool percentBare = true;          // '%' needs no quotes in POSIX sh
  bool quoteLeadingEquals = false;  // "export X==a" is valid but reads as a typo: quote "=a"
};

// A POSIX shell word: bare when it is not empty and made only of letters, digits and _@+=:,./- (and '%'
// where the rules allow); otherwise in single quotes, each ' written as '\'' (no byte is special inside
// single quotes, newlines included).
std::string shellQuote(std::string_view word, ShellQuoteRules rules = {});

}  // namespace railtune
