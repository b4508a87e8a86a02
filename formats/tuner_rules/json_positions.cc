#include "formats/tuner_rules/json_positions.h"
#include "formats/json_read_tracker.h"

#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>

namespace railtune::formats::tuner_rules {
namespace {

using nlohmann::json;

class PositionedSax {
 public:
  PositionedSax(std::string_view text, PosParseResult& result)
      : text_(text), result_(result), readUpTo_(text.data()), previousEnd_(bomLength(text)) {}
  const char** readUpTo() { return &readUpTo_; }

  bool null() { return scalar(PosNode::Kind::Null); }
  bool boolean(bool v) {
    PosNode* n = add(PosNode::Kind::Boolean);
    if (n != nullptr) n->boolean = v;
    return n != nullptr;
  }
  bool number_integer(json::number_integer_t v) {
    PosNode* n = add(PosNode::Kind::Integer);
    if (n != nullptr) n->integer = v;
    return n != nullptr;
  }
  bool number_unsigned(json::number_unsigned_t v) {
    PosNode* n = add(PosNode::Kind::Unsigned);
    if (n != nullptr) n->unsignedValue = v;
    return n != nullptr;
  }
  bool number_float(json::number_float_t v, const json::string_t&) {
    PosNode* n = add(PosNode::Kind::Float);
    if (n != nullptr) n->real = v;
    return n != nullptr;
  }
  bool string(json::string_t& v) {
    PosNode* n = add(PosNode::Kind::String);
    if (n != nullptr) n->text = std::move(v);
    return n != nullptr;
  }
  bool binary(json::binary_t&) { return stop("binary values are not JSON"); }
  bool start_object(std::size_t) { return open(PosNode::Kind::Object); }
  bool start_array(std::size_t) { return open(PosNode::Kind::Array); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(json::string_t& k);
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e);

 private:
  static size_t bomLength(std::string_view t) { return t.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0; }
  size_t tokenStart();
  PosNode* add(PosNode::Kind kind);
  bool scalar(PosNode::Kind kind) { return add(kind) != nullptr; }
  bool open(PosNode::Kind kind);
  bool close() {
    stack_.pop_back();
    previousEnd_ = consumed();
    return true;
  }
  bool stop(std::string message) {
    result_.error = std::move(message);
    result_.errorOffset = tokenStart();
    stopped_ = true;
    return false;
  }
  size_t consumed() const { return static_cast<size_t>(readUpTo_ - text_.data()); }

  std::string_view text_;
  PosParseResult& result_;
  const char* readUpTo_;
  size_t previousEnd_;
  std::vector<PosNode*> stack_;
  size_t values_ = 0;
  bool stopped_ = false;
};

// The current token begins after the previous one, past blanks and the separators ':' and ','.
size_t PositionedSax::tokenStart() {
  size_t p = previousEnd_;
  const size_t end = consumed();
  while (p < end && p < text_.size()) {
    const char c = text_[p];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != ':' && c != ',') break;
    ++p;
  }
  return p;
}

// nullptr (and the parse stops) once the document has more values than kMaxJsonValues.
PosNode* PositionedSax::add(PosNode::Kind kind) {
  if (++values_ > kMaxJsonValues) {
    stop("more than " + std::to_string(kMaxJsonValues) + " JSON values");
    return nullptr;
  }
  const size_t start = tokenStart();
  previousEnd_ = consumed();
  PosNode* node = &result_.root;
  if (!stack_.empty()) {
    PosNode* parent = stack_.back();
    parent->items.emplace_back();
    node = &parent->items.back();
  }
  node->kind = kind;
  node->offset = start;
  return node;
}

bool PositionedSax::open(PosNode::Kind kind) {
  if (stack_.size() >= kMaxJsonDepth) return stop("nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  PosNode* node = add(kind);
  if (node == nullptr) return false;
  stack_.push_back(node);
  return true;
}

bool PositionedSax::key(json::string_t& k) {
  const size_t start = tokenStart();
  previousEnd_ = consumed();
  PosNode* object = stack_.back();
  if (object->keys.size() == kMaxJsonObjectKeys) {
    result_.errorOffset = start;
    result_.error = "an object with more than " + std::to_string(kMaxJsonObjectKeys) + " keys";
    stopped_ = true;
    return false;
  }
  for (const std::string& existing : object->keys)
    if (existing == k) {
      result_.errorOffset = start;
      result_.error = "duplicate key \"" + k + "\"";
      stopped_ = true;
      return false;
    }
  object->keys.push_back(std::move(k));
  object->keyOffsets.push_back(start);
  return true;
}

bool PositionedSax::parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
  if (stopped_) return false;
  // nlohmann counts the characters read, the offending one included.
  result_.errorOffset = position == 0 ? 0 : position - 1;
  const std::string what = e.what();
  const size_t syntax = what.find("syntax error");
  result_.error = syntax == std::string::npos ? what : what.substr(syntax);
  stopped_ = true;
  return false;
}

}  // namespace

PosParseResult parsePositioned(std::string_view text) {
  PosParseResult result;
  PositionedSax sax(text, result);
  const formats::JsonReadTracker first(text.data(), sax.readUpTo());
  const formats::JsonReadTracker last(text.data() + text.size(), sax.readUpTo());
  try {
    result.ok = json::sax_parse(first, last, &sax);
  } catch (const std::exception& e) {  // nlohmann reports through parse_error; this is a safety net
    result.ok = false;
    result.error = e.what();
  }
  if (!result.ok) result.root = PosNode{};
  return result;
}

LineColumn lineColumnAt(std::string_view text, size_t offset) {
  LineColumn at;
  const size_t end = offset < text.size() ? offset : text.size();
  for (size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++at.line;
      at.column = 1;
    } else {
      ++at.column;
    }
  }
  return at;
}

LineMap::LineMap(std::string_view text) {
  lineStarts_.push_back(0);
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') lineStarts_.push_back(i + 1);
}

LineColumn LineMap::at(size_t offset) const {
  const auto next = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset);
  const size_t line = static_cast<size_t>(next - lineStarts_.begin());  // >= 1: lineStarts_[0] is 0
  return {line, offset - lineStarts_[line - 1] + 1};
}

const char* kindName(PosNode::Kind kind) {
  switch (kind) {
    case PosNode::Kind::Null:
      return "null";
    case PosNode::Kind::Boolean:
      return "a boolean";
    case PosNode::Kind::Integer:
    case PosNode::Kind::Unsigned:
      return "an integer";
    case PosNode::Kind::Float:
      return "a fractional number";
    case PosNode::Kind::String:
      return "a string";
    case PosNode::Kind::Array:
      return "an array";
    case PosNode::Kind::Object:
      return "an object";
  }
  return "a value";
}

}  // namespace railtune::formats::tuner_rules
