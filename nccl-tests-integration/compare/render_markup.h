// Text into SVG and HTML markup for `railtune sweep compare` (render_markup.cc). Labels, file names and
// notes come from user files: every one goes through markup() so that a label such as "<script>" stays
// text, and so that the SVG stays well-formed XML whatever bytes the label held.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace railtune::sweep::render {

// The text escaped for an element's content or a quoted attribute value (& < > " '). Bytes that are not
// UTF-8, and characters XML does not allow (control characters other than tab and line ends), become
// U+FFFD, so the result is always well-formed.
std::string markup(std::string_view text);

// At most maxChars characters (UTF-8 code points, never cut inside one), ending in "…" when shortened.
std::string shortened(std::string_view text, size_t maxChars);

// `name="value"` with the value escaped, preceded by a space.
std::string attr(std::string_view name, std::string_view value);

// A number with one decimal ("412.5"), for coordinates.
std::string px(double value);

}  // namespace railtune::sweep::render
