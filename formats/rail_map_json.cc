// The rail map's JSON pass (rail_map_json.h), with nlohmann-json's SAX interface (header only, so the
// plugins can link it): one handler both builds the document and records where the values and keys of the
// JSON pointers asked for start.
#include "formats/rail_map_json.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "formats/json_read_tracker.h"
#include "formats/names.h"
#include "formats/rail_map.h"

namespace railtune::formats::rail_map_json {
namespace {

using nlohmann::json;

// SAX events forwarded to nlohmann's DOM builder (when `doc` is given), a duplicated key rejected at its
// offset, and the offsets of the values and keys whose JSON pointers are in `wanted` recorded.
class RailMapSax {
 public:
  RailMapSax(std::string_view text, json* doc, const std::set<std::string>* wanted)
      : text_(text),
        readUpTo_(text.data()),
        dom_(doc ? *doc : scratch_, false),
        useDom_(doc != nullptr),
        wanted_(wanted) {}
  const char** readUpTo() { return &readUpTo_; }

  bool null() { return value() && (!useDom_ || dom_.null()); }
  bool boolean(bool v) { return value() && (!useDom_ || dom_.boolean(v)); }
  bool number_integer(json::number_integer_t v) { return value() && (!useDom_ || dom_.number_integer(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return value() && (!useDom_ || dom_.number_unsigned(v)); }
  bool number_float(json::number_float_t v, const json::string_t& s) {
    return value() && (!useDom_ || dom_.number_float(v, s));
  }
  bool string(json::string_t& v) { return value() && (!useDom_ || dom_.string(v)); }
  bool binary(json::binary_t&) { return stop(tokenStart(), "binary values are not JSON"); }
  bool start_object(std::size_t n) { return open(true) && (!useDom_ || dom_.start_object(n)); }
  bool start_array(std::size_t n) { return open(false) && (!useDom_ || dom_.start_array(n)); }
  bool end_object() { return close() && (!useDom_ || dom_.end_object()); }
  bool end_array() { return close() && (!useDom_ || dom_.end_array()); }
  bool key(json::string_t& k);
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
    if (error_.empty()) {
      const std::string what = e.what();
      const size_t syntax = what.find("syntax error");
      error_ = "not JSON: " + (syntax == std::string::npos ? what : what.substr(syntax));
      errorOffset_ = position == 0 ? 0 : position - 1;  // nlohmann counts the offending character
    }
    return false;
  }

  const std::string& error() const { return error_; }
  size_t errorOffset() const { return errorOffset_; }
  const std::unordered_map<std::string, size_t>& values() const { return values_; }
  const std::unordered_map<std::string, size_t>& keys() const { return keys_; }

 private:
  struct Frame {
    bool object = false;
    size_t next = 0;      // arrays: the next element's index
    std::string key;      // objects: the member being read
    std::string pointer;  // only while recording
    std::set<std::string> seen;
  };

  size_t consumed() const { return static_cast<size_t>(readUpTo_ - text_.data()); }
  size_t tokenStart() const {
    size_t p = previousEnd_;
    while (p < consumed() && p < text_.size() && std::string_view(" \t\r\n:,").find(text_[p]) != std::string_view::npos)
      ++p;
    return p;
  }
  bool stop(size_t offset, std::string message) {
    errorOffset_ = offset;
    error_ = std::move(message);
    return false;
  }
  std::string childPointer() {
    if (stack_.empty()) return "";
    Frame& top = stack_.back();
    if (top.object) return top.pointer + "/" + top.key;
    return top.pointer + "/" + std::to_string(top.next++);
  }
  bool value() {
    const size_t start = tokenStart();
    previousEnd_ = consumed();
    if (wanted_ != nullptr) {
      const std::string pointer = childPointer();
      if (wanted_->count(pointer)) values_[pointer] = start;
    }
    return true;
  }
  bool open(bool object) {
    if (stack_.size() >= 64) return stop(tokenStart(), "nesting deeper than 64 levels");
    const size_t start = tokenStart();
    previousEnd_ = consumed();
    Frame frame;
    frame.object = object;
    if (wanted_ != nullptr) {
      frame.pointer = childPointer();
      if (wanted_->count(frame.pointer)) values_[frame.pointer] = start;
    }
    stack_.push_back(std::move(frame));
    return true;
  }
  bool close() {
    stack_.pop_back();
    previousEnd_ = consumed();
    return true;
  }

  std::string_view text_;
  const char* readUpTo_;
  size_t previousEnd_ = 0;
  json scratch_;
  nlohmann::detail::json_sax_dom_parser<json> dom_;
  bool useDom_;
  const std::set<std::string>* wanted_;
  std::vector<Frame> stack_;
  std::unordered_map<std::string, size_t> values_, keys_;
  std::string error_;
  size_t errorOffset_ = 0;
};

bool RailMapSax::key(json::string_t& k) {
  const size_t start = tokenStart();
  previousEnd_ = consumed();
  Frame& top = stack_.back();
  if (!top.seen.insert(k).second) return stop(start, "duplicate key \"" + printableName(k) + "\"");
  top.key = k;
  if (wanted_ != nullptr && wanted_->count(top.pointer + "/" + k)) keys_[top.pointer + "/" + k] = start;
  return !useDom_ || dom_.key(k);
}

// "file:line:column" for a byte offset of `text`.
std::string positionOf(const std::string& source, std::string_view text, size_t offset) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return source + ":" + std::to_string(line) + ":" + std::to_string(column);
}

}  // namespace

json readDocument(const std::string& text, const std::string& source) {
  json doc;
  RailMapSax sax(text, &doc, nullptr);
  bool ok = false;
  try {
    ok = json::sax_parse(JsonReadTracker(text.data(), sax.readUpTo()),
                         JsonReadTracker(text.data() + text.size(), sax.readUpTo()), &sax);
  } catch (const std::exception& e) {  // nlohmann reports through parse_error; this is a safety net
    throw RailMapError(source + ": not JSON: " + e.what());
  }
  if (!ok) throw RailMapError(positionOf(source, text, sax.errorOffset()) + ": " + sax.error());
  return doc;
}

// Each problem as "source:line:column: message" (the position found by a second pass over the text).
std::vector<std::string> locate(const std::vector<Problem>& problems, std::string_view text,
                                const std::string& source) {
  const auto parentOf = [](const std::string& pointer) { return pointer.substr(0, pointer.rfind('/')); };
  std::set<std::string> wanted;
  for (const Problem& p : problems) {
    wanted.insert(p.pointer);
    wanted.insert(parentOf(p.pointer));  // where a member is missing, the enclosing object
  }
  RailMapSax sax(text, nullptr, &wanted);
  (void)json::sax_parse(JsonReadTracker(text.data(), sax.readUpTo()),
                        JsonReadTracker(text.data() + text.size(), sax.readUpTo()), &sax);
  std::vector<size_t> lineStarts{0};  // a big map can have thousands of problems: find lines by bisection
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') lineStarts.push_back(i + 1);
  const auto at = [&](size_t offset) {
    const size_t line = static_cast<size_t>(std::upper_bound(lineStarts.begin(), lineStarts.end(), offset) -
                                            lineStarts.begin());  // >= 1: lineStarts[0] is 0
    return source + ":" + std::to_string(line) + ":" + std::to_string(offset - lineStarts[line - 1] + 1);
  };
  std::vector<std::string> out;
  for (const Problem& p : problems) {
    const auto& found = p.atKey ? sax.keys() : sax.values();
    const auto it = found.find(p.pointer);
    const auto parent = sax.values().find(parentOf(p.pointer));
    const std::string where = it != found.end()              ? at(it->second)
                              : parent != sax.values().end() ? at(parent->second)
                                                             : source;
    out.push_back(where + ": " + p.message);
  }
  return out;
}

}  // namespace railtune::formats::rail_map_json
