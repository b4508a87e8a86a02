// The fitted-model reader's helpers (internal to formats/tuner_model): one object's fields read by key over the
// positioned JSON tree of formats/tuner_rules/json_positions.h, so that every problem is thrown with the byte
// where it is (a missing field: its object's opening brace; an unknown one: its key) and the field's path
// ("fits[0].constants.base_latency_us.ring/ll128.value"), in strict_json.h's words.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "formats/tuner_model/tuner_model.h"
#include "formats/tuner_rules/json_positions.h"

namespace railtune::formats::tuner_model::detail {

using tuner_rules::PosNode;

// Thrown inside the reader; parseTunerModel turns it into "SOURCE:LINE:COLUMN: message".
struct ReadFailure {
  size_t offset = 0;
  std::string message;
};

[[noreturn]] inline void failAt(size_t offset, const std::string& path, const std::string& reason) {
  throw ReadFailure{offset, (path.empty() ? std::string("the document") : "field '" + path + "'") + ": " + reason};
}
[[noreturn]] inline void fail(const PosNode& at, const std::string& path, const std::string& reason) {
  failAt(at.offset, path, reason);
}

inline std::string member(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}
inline std::string item(const std::string& path, size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

class Fields {
 public:
  Fields(const PosNode& node, std::string path) : node_(node), path_(std::move(path)) {
    if (node.kind != PosNode::Kind::Object)
      fail(node, path_, std::string("expected an object, not ") + tuner_rules::kindName(node.kind));
  }
  const PosNode* optional(const std::string& key) {
    for (size_t i = 0; i < node_.keys.size(); ++i)
      if (node_.keys[i] == key) {
        used_.insert(key);
        return &node_.items[i];
      }
    return nullptr;
  }
  const PosNode& required(const std::string& key) {
    const PosNode* found = optional(key);
    if (found == nullptr) fail(node_, member(path_, key), "missing");
    return *found;
  }
  std::string path(const std::string& key) const { return member(path_, key); }
  const PosNode& node() const { return node_; }
  // Every key not read is unknown: call after reading every known field.
  void finish() const {
    for (size_t i = 0; i < node_.keys.size(); ++i)
      if (!used_.contains(node_.keys[i])) failAt(node_.keyOffsets[i], member(path_, node_.keys[i]), "unknown field");
  }

 private:
  const PosNode& node_;
  std::string path_;
  std::set<std::string> used_;
};

inline std::string text(const PosNode& v, const std::string& path, size_t maxBytes = kMaxTextBytes) {
  if (v.kind != PosNode::Kind::String) fail(v, path, std::string("expected a string, not ") + kindName(v.kind));
  if (v.text.empty()) fail(v, path, "empty");
  if (v.text.size() > maxBytes) fail(v, path, "longer than " + std::to_string(maxBytes) + " bytes");
  return v.text;
}

inline bool boolean(const PosNode& v, const std::string& path) {
  if (v.kind != PosNode::Kind::Boolean) fail(v, path, std::string("expected true or false, not ") + kindName(v.kind));
  return v.boolean;
}

inline double number(const PosNode& v, const std::string& path) {
  double x = 0;
  if (v.kind == PosNode::Kind::Float)
    x = v.real;
  else if (v.kind == PosNode::Kind::Integer)
    x = static_cast<double>(v.integer);
  else if (v.kind == PosNode::Kind::Unsigned)
    x = static_cast<double>(v.unsignedValue);
  else
    fail(v, path, std::string("expected a number, not ") + kindName(v.kind));
  if (!std::isfinite(x)) fail(v, path, "not a finite number");
  return x;
}

inline double nonNegative(const PosNode& v, const std::string& path) {
  const double x = number(v, path);
  if (x < 0) fail(v, path, "expected a number >= 0");
  return x;
}

inline double positive(const PosNode& v, const std::string& path) {
  const double x = number(v, path);
  if (x <= 0) fail(v, path, "expected a number > 0");
  return x;
}

inline uint64_t count(const PosNode& v, const std::string& path, uint64_t min = 0, uint64_t max = UINT64_MAX) {
  if (v.kind != PosNode::Kind::Unsigned || v.unsignedValue < min || v.unsignedValue > max)
    fail(v, path, "expected an integer from " + std::to_string(min) + " to " + std::to_string(max));
  return v.unsignedValue;
}

inline const std::vector<PosNode>& array(const PosNode& v, const std::string& path, size_t maxItems = kMaxListItems) {
  if (v.kind != PosNode::Kind::Array) fail(v, path, std::string("expected an array, not ") + kindName(v.kind));
  if (v.items.size() > maxItems) fail(v.items[maxItems], path, "more than " + std::to_string(maxItems) + " items");
  return v.items;
}

// A name from one of the file's vocabularies, through its lookup ("unknown scale \"3nodes\" (known: ...)").
template <typename Enum>
Enum named(const PosNode& v, const std::string& path, bool (*lookup)(std::string_view, Enum*), const char* known) {
  const std::string name = text(v, path);
  Enum out{};
  if (!lookup(name, &out)) fail(v, path, "unknown name \"" + name + "\" (known: " + known + ")");
  return out;
}

// The parts of a fit (tuner_model_read_fit.cc), read after applies_to and basis (their rows and defaults).
Constants readConstants(Fields& fit, const AppliesTo& to, const Basis& basis);
std::vector<Correction> readCorrections(const PosNode& v, const std::string& path);
std::vector<CellAffine> readTableTransform(const PosNode& v, const std::string& path);
Validation readValidation(const PosNode& v, const std::string& path);
std::array<Verdict, kNumScales> readVerdicts(const PosNode& v, const std::string& path, const Validation& validation);

}  // namespace railtune::formats::tuner_model::detail
