// A JSON writer that appends to a caller's std::string, for the profiler's writer thread: no
// allocation once the string has grown to its working size (architecture rule 3), yet the very
// bytes nlohmann::json::dump(-1, ' ', false, error_handler_t::replace) gives for the same values, so
// the formats' golden examples and every earlier file stay byte for byte what they were:
//   - strings: '"' and '\\' escaped, \b \f \n \r \t by name, other control characters as \u00xx,
//     valid UTF-8 copied, each invalid sequence replaced by U+FFFD exactly where nlohmann puts one;
//   - doubles: nlohmann's own shortest round-trip spelling (nlohmann::detail::to_chars), null when not
//     finite;
//   - integers in decimal.
// Keys are the caller's to order: nlohmann sorts them, so callers write them in byte order.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace railtune::formats {

void appendJsonString(std::string* out, std::string_view text);  // with the quotes
void appendJsonDouble(std::string* out, double value);
void appendJsonInt(std::string* out, int64_t value);
void appendJsonUint(std::string* out, uint64_t value);
void appendHex16(std::string* out, uint64_t value);  // "%016llx" with the quotes, as digestHex

// Commas and keys of one line; nested objects and arrays through begin/end.
class JsonAppender {
 public:
  explicit JsonAppender(std::string* out) : out_(out) {}

  JsonAppender& key(std::string_view name) {  // name: plain ASCII, nothing to escape
    // One append of ,"name": (keys are short): the writer renders dozens of keys per record.
    char text[48];
    if (name.size() > sizeof text - 4) {
      separate();
      out_->push_back('"');
      out_->append(name);
      out_->append("\":", 2);
    } else {
      size_t n = 0;
      if (pending_) text[n++] = ',';
      text[n++] = '"';
      name.copy(text + n, name.size());
      n += name.size();
      text[n++] = '"';
      text[n++] = ':';
      out_->append(text, n);
    }
    pending_ = false;
    return *this;
  }
  void beginObject() { open('{'); }
  void endObject() { close('}'); }
  void beginArray() { open('['); }
  void endArray() { close(']'); }
  void string(std::string_view text) {
    value();
    appendJsonString(out_, text);
  }
  void number(double v) {
    value();
    appendJsonDouble(out_, v);
  }
  void integer(int64_t v) {
    value();
    appendJsonInt(out_, v);
  }
  void count(uint64_t v) {
    value();
    appendJsonUint(out_, v);
  }
  void hex(uint64_t v) {
    value();
    appendHex16(out_, v);
  }
  void null() {
    value();
    out_->append("null", 4);
  }
  void boolean(bool v) {
    value();
    out_->append(v ? "true" : "false");
  }

 private:
  void separate() {
    if (pending_) out_->push_back(',');
  }
  void value() {
    separate();
    pending_ = true;
  }
  void open(char c) {
    separate();
    out_->push_back(c);
    pending_ = false;
  }
  void close(char c) {
    out_->push_back(c);
    pending_ = true;
  }

  std::string* out_;
  bool pending_ = false;  // a value was written at this level: the next one needs a comma
};

}  // namespace railtune::formats
