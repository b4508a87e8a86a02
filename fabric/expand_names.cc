// Name patterns of the compact cluster spec (fabric/expand_names.h).
#include "fabric/expand_names.h"

#include <stdexcept>

namespace railtune::fabric {
namespace {

std::string hexDigits(int value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  auto rest = static_cast<unsigned>(value);
  do {
    out.insert(out.begin(), kDigits[rest % 16]);
    rest /= 16;
  } while (rest != 0);
  return out;
}

// format: "", "0N" (N digits, zero-padded), "0Nx" or "x" (hexadecimal).
std::string padded(int value, std::string format, const std::string& field) {
  const bool hex = !format.empty() && format.back() == 'x';
  if (hex) format.pop_back();
  std::string digits = hex ? hexDigits(value) : std::to_string(value);
  if (format.empty()) return digits;
  if (format.size() < 2 || format.size() > 3 || format[0] != '0' ||
      format.find_first_not_of("0123456789") != std::string::npos)
    throw std::invalid_argument(field + ": bad width ':" + format + (hex ? "x" : "") +
                                "' (use e.g. {d:02}, or {d:02x} for hexadecimal)");
  const size_t width = std::stoul(format.substr(1));
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

// "+N" after an index ({d+1}, {t+1:02}): clusters number racks and trays from 1 (rack01-tray01) where the spec's
// indices count from 0. N is 0 to 99,999, so no name can overflow an int.
int offsetOf(const std::string& text, const std::string& inside, const std::string& field) {
  if (text.empty()) return 0;
  if (text[0] != '+' || text.size() < 2 || text.size() > 6 ||
      text.find_first_not_of("0123456789", 1) != std::string::npos)
    throw std::invalid_argument(field + ": bad offset in {" + inside +
                                "} (use e.g. {d+1} or {t+1:02} to count from 1)");
  return std::stoi(text.substr(1));
}

std::string expandPlaceholder(const std::string& inside, const NameFields& fields, const std::string& field) {
  const size_t colon = inside.find(':');
  const std::string head = inside.substr(0, colon);
  const std::string format = colon == std::string::npos ? "" : inside.substr(colon + 1);
  const size_t plus = head.find('+');
  const std::string key = head.substr(0, plus);
  const int offset = plus == std::string::npos ? 0 : offsetOf(head.substr(plus), inside, field);
  if (key == "d") return padded(fields.d + offset, format, field);
  if (key == "t") return padded(fields.t + offset, format, field);
  if (key == "h" && fields.h >= 0) return padded(fields.h + offset, format, field);
  if (key == "r" && fields.r >= 0) return padded(fields.r + offset, format, field);
  if (key == "domain" && plus == std::string::npos && format.empty() && !fields.domain.empty()) return fields.domain;
  const std::string known = fields.r >= 0 ? "{d}, {t}, {h}, {r}, {domain}" : "{d}, {t}, {domain}";
  throw std::invalid_argument(field + ": unknown placeholder {" + inside + "} (known: " + known + ")");
}

}  // namespace

std::string formatName(const std::string& pattern, const NameFields& fields, const std::string& field) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '}') throw std::invalid_argument(field + ": unmatched '}' in '" + pattern + "'");
    if (pattern[i] != '{') {
      out += pattern[i];
      continue;
    }
    const size_t close = pattern.find('}', i);
    if (close == std::string::npos) throw std::invalid_argument(field + ": unmatched '{' in '" + pattern + "'");
    out += expandPlaceholder(pattern.substr(i + 1, close - i - 1), fields, field);
    i = close;
  }
  if (out.empty()) throw std::invalid_argument(field + ": pattern '" + pattern + "' gives an empty name");
  return out;
}

}  // namespace railtune::fabric
