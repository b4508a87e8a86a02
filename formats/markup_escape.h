// Text escaped for XML and HTML markup (an element's content or a quoted attribute value), for every page and
// picture railtune draws from user files (`railtune paths render`, `railtune sweep compare`): & < > " ' as
// entities, and bytes that are not UTF-8 or characters XML does not allow (control characters other than tab
// and line ends) as U+FFFD, so that the result is always well-formed whatever a host or label name held.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace railtune::formats {

std::string markupEscape(std::string_view text);

// The bytes of the UTF-8 sequence at text[i] (1 for a byte that starts no valid sequence): for cutting text
// between characters.
size_t utf8SequenceLength(std::string_view text, size_t i);

}  // namespace railtune::formats
