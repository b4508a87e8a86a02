// printf into a std::string (printed.h).
#include "common/printed.h"

#include <cstdarg>
#include <cstdio>

namespace railtune {

std::string printed(const char* format, ...) {
  va_list values, again;
  va_start(values, format);
  va_copy(again, values);
  const int length = std::vsnprintf(nullptr, 0, format, values);
  va_end(values);
  std::string text(static_cast<size_t>(length > 0 ? length : 0) + 1, '\0');
  std::vsnprintf(text.data(), text.size(), format, again);
  va_end(again);
  text.pop_back();
  return text;
}

}  // namespace railtune
