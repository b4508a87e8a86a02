// Reading nccl-tests' text output (nccl_tests_text.h).
#include "nccl-tests-integration/parse/nccl_tests_text.h"

#include <charconv>
#include <cstdlib>

namespace railtune::sweep {
namespace {

using std::string_view;

string_view trim(string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<string_view> tokens(string_view s) {
  std::vector<string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
    const size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t' && s[i] != '\r') ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

template <typename T>
bool parseNumber(string_view s, T* out) {
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return error == std::errc() && end == s.data() + s.size();
}

// mpirun --tag-output "[1,0]<stdout>:", srun --label "3: ": a launcher's prefix before nccl-tests' text.
string_view stripLauncher(string_view line) {
  if (line.starts_with("[")) {
    const size_t close = line.find("]<std");
    if (close != string_view::npos) {
      const size_t colon = line.find(">:", close);
      if (colon != string_view::npos) return line.substr(colon + 2);
    }
  }
  size_t digits = 0;
  while (digits < line.size() && line[digits] >= '0' && line[digits] <= '9') ++digits;
  if (digits > 0 && line.substr(digits).starts_with(": ")) return line.substr(digits + 2);
  return line;
}

std::optional<double> measure(string_view token) {
  if (token == "N/A") return std::nullopt;
  double value = 0;
  // from_chars for double: available in gcc 11+.
  if (!parseNumber(token, &value)) return std::nullopt;
  return value;
}

class Reader {
 public:
  ParsedText finish() {
    closeRun();
    return std::move(out_);
  }

  void line(string_view raw, int number) {
    const string_view text = stripLauncher(raw);
    if (const size_t at = text.find(" NCCL INFO "); at != string_view::npos) return ncclInfo(text.substr(at + 11));
    if (text.find("Test NCCL failure") != string_view::npos) {
      current(number).ncclFailures.emplace_back(trim(text));
      return;
    }
    const string_view t = trim(text);
    if (t.empty()) return;
    if (t.front() == '#') return comment(trim(t.substr(1)), number);
    if (t.starts_with("nThread ")) return parameters(t, number);  // E0: no '#'
    if (pendingRow_ && continuation(t)) return;
    row(t, number);
  }

 private:
  TestRun& current(int number) {
    if (!run_) {
      run_ = TestRun{};
      run_->firstLine = number;
    }
    return *run_;
  }

  // A row whose numbers never came: said, not lost silently.
  void dropPending() {
    if (!pendingRow_) return;
    pendingRow_ = false;
    bad(pending_.line, "a result row without its numbers (cut short)");
  }

  void closeRun() {
    dropPending();
    if (run_ && (!run_->rows.empty() || !run_->ncclFailures.empty() || !run_->devices.empty())) {
      out_.runs.push_back(std::move(*run_));
    }
    run_.reset();
  }

  void bad(int number, std::string message) { out_.diagnostics.push_back({number, std::move(message)}); }

  // A new run starts at its first header line when the current one already has rows.
  void startIfDone(int number) {
    if (run_ && (!run_->rows.empty() || run_->averageBusbw)) closeRun();
    current(number);
  }

  void ncclInfo(string_view message) {
    static constexpr string_view kSet = " set by environment to ";
    const size_t at = message.find(kSet);
    if (at == string_view::npos || !run_) return;
    const string_view name = trim(message.substr(0, at));
    if (!name.starts_with("NCCL_")) return;
    string_view value = trim(message.substr(at + kSet.size()));
    if (value.ends_with('.')) value.remove_suffix(1);
    run_->forced[std::string(name)] = std::string(value);
  }

  void comment(string_view c, int number) {
    if (c.starts_with("nccl-tests version ")) {
      startIfDone(number);
      const auto words = tokens(c.substr(19));
      if (!words.empty()) run_->testsVersion = std::string(words[0]);
      for (string_view w : words) {
        if (w.starts_with("nccl-headers=")) number_(w.substr(13), &run_->ncclHeaders);
        if (w.starts_with("nccl-library=")) number_(w.substr(13), &run_->ncclLibrary);
      }
      return;
    }
    if (c.starts_with("Collective test starting: ")) {
      if (!run_ || run_->testsVersion.empty()) startIfDone(number);
      current(number).collective = std::string(trim(c.substr(26)));
      return;
    }
    if (c.starts_with("nThread ")) return parameters(c, number);
    if (c.starts_with("Rank ")) {
      startIfDone(number);  // device lines after a table: the next run (a fragment without its other header lines)
      return device(c, number);
    }
    if (c.starts_with("size ")) return header(c, number);
    if (c.starts_with("Out of bounds values")) {
      const size_t colon = c.find(':');
      int value = 0;
      const auto words = tokens(colon == string_view::npos ? "" : c.substr(colon + 1));
      if (!words.empty() && number_(words[0], &value)) current(number).outOfBounds = value;
      return;
    }
    if (c.starts_with("Avg bus bandwidth")) {
      const size_t colon = c.find(':');
      const auto words = tokens(colon == string_view::npos ? "" : c.substr(colon + 1));
      if (!words.empty()) current(number).averageBusbw = measure(words[0]);
      dropPending();
      return;
    }
  }

  template <typename T>
  static bool number_(string_view s, T* out) {
    return parseNumber(s, out);
  }

  void parameters(string_view line, int number) {
    if (run_ && (!run_->rows.empty() || !run_->parameters.empty())) closeRun();
    TestRun& run = current(number);
    // "nThread 1 nGpus 1 minBytes 8 ... step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0"
    const auto words = tokens(line);
    std::string key;
    for (string_view w : words) {
      const bool isValue = !w.empty() && (std::isdigit(static_cast<unsigned char>(w.front())) || w.front() == '-');
      if (isValue && !key.empty()) {
        if (key.ends_with(':')) key.pop_back();
        run.parameters[key] = std::string(w);
        key.clear();
      } else {
        key += (key.empty() ? "" : " ") + std::string(w);
      }
    }
  }

  void device(string_view c, int number) {
    // "Rank  0 Group  0 Pid   6899 on ztan-mig-235z device  0 [0000:04:00] NVIDIA H100 80GB HBM3" (all eras:
    // Group from v2.13.4, Pid from v2.0.0)
    DeviceLine d;
    const auto words = tokens(c);
    size_t i = 0;
    const auto take = [&](string_view key, int* value) {
      if (i + 1 < words.size() && words[i] == key && parseNumber(words[i + 1], value)) {
        i += 2;
        return true;
      }
      return false;
    };
    if (!take("Rank", &d.rank)) return bad(number, "unreadable device line");
    take("Group", &d.group);
    take("Pid", &d.pid);
    if (i + 1 >= words.size() || words[i] != "on") return bad(number, "unreadable device line: no 'on HOST'");
    d.host = std::string(words[i + 1]);
    i += 2;
    if (!take("device", &d.device)) return bad(number, "unreadable device line: no 'device N'");
    if (i < words.size() && words[i].starts_with('[') && words[i].ends_with(']')) {
      d.busId = std::string(words[i].substr(1, words[i].size() - 2));
      ++i;
    }
    const size_t nameAt = i < words.size() ? static_cast<size_t>(words[i].data() - c.data()) : c.size();
    d.gpu = std::string(trim(c.substr(nameAt)));
    current(number).devices.push_back(std::move(d));
  }

  void header(string_view c, int number) {
    TestRun& run = current(number);
    if (!run.rows.empty()) {  // a second table in one run (E1: one per collective) or a new run without header lines
      TestRun next;
      next.firstLine = number;
      next.testsVersion = run.testsVersion;
      next.devices = run.devices;
      closeRun();
      run_ = std::move(next);
    }
    run_->columns.clear();
    for (string_view w : tokens(c)) run_->columns.emplace_back(w);
  }

  // The row's first five (or fewer, before 2.13) columns are its key; then two halves of time, algbw, busbw,
  // #wrong (or error). Columns come from the header; without one, the 2.13+ layout is assumed.
  void row(string_view t, int number) {
    const auto words = tokens(t);
    uint64_t size = 0;
    if (words.empty() || !parseNumber(words[0], &size)) return;  // a line of some other program
    TestRun& run = current(number);
    std::vector<std::string> columns = run.columns;
    if (columns.empty())
      columns = {"size",  "count",  "type", "redop", "root",  "time",  "algbw",
                 "busbw", "#wrong", "time", "algbw", "busbw", "#wrong"};
    const size_t keyColumns = keyCount(columns);
    std::vector<string_view> values(words.begin(), words.end());
    // hypercube prints an empty redop: one token fewer, the root where redop would be
    if (values.size() + 1 == columns.size() && keyColumns == 5) values.insert(values.begin() + 3, string_view());
    if (values.size() < keyColumns) return bad(number, "a result row cut short");
    Row r;
    r.line = number;
    r.size = size;
    for (size_t k = 1; k < keyColumns; ++k) {
      const std::string& name = columns[k];
      if (name == "count") parseNumber(values[k], &r.count);
      if (name == "type") r.type = std::string(values[k]);
      if (name == "redop" || name == "op") r.redop = std::string(values[k]);
      if (name == "root") {
        int root = 0;
        if (parseNumber(values[k], &root)) r.root = root;
      }
    }
    if (values.size() == keyColumns) {  // NCCL INFO lines split the row: the numbers follow on a later line
      pending_ = r;
      pendingKeys_ = keyColumns;
      pendingRow_ = true;
      pendingColumns_ = columns;
      return;
    }
    if (!fillHalves(&r, columns, values, keyColumns)) return bad(number, "a result row cut short");
    run.rows.push_back(std::move(r));
  }

  static size_t keyCount(const std::vector<std::string>& columns) {
    for (size_t i = 0; i < columns.size(); ++i)
      if (columns[i] == "time" || columns[i] == "cputime") return i;
    return columns.size();
  }

  static bool fillHalves(Row* r, const std::vector<std::string>& columns, const std::vector<string_view>& values,
                         size_t keyColumns) {
    Measurement* half = nullptr;
    int halves = 0;
    for (size_t k = keyColumns; k < columns.size() && k < values.size(); ++k) {
      const std::string& name = columns[k];
      if (name == "time" || name == "cputime") half = halves++ == 0 ? &r->outOfPlace : &r->inPlace;
      if (half == nullptr) continue;
      if (name == "time" || name == "cputime") half->timeUs = measure(values[k]);
      if (name == "algbw") half->algbwGBps = measure(values[k]);
      if (name == "busbw") half->busbwGBps = measure(values[k]);
      if (name == "#wrong" || name == "error") half->wrong = measure(values[k]);
    }
    return values.size() >= keyColumns + 4;
  }

  // The numbers of a row whose preamble an NCCL INFO line interrupted: exactly the measurement columns.
  bool continuation(string_view t) {
    const auto words = tokens(t);
    double first = 0;
    if (words.size() != pendingColumns_.size() - pendingKeys_ ||
        (!parseNumber(words[0], &first) && words[0] != "N/A")) {
      dropPending();
      return false;
    }
    std::vector<string_view> values(pendingKeys_, string_view());
    values.insert(values.end(), words.begin(), words.end());
    pendingRow_ = false;
    if (!fillHalves(&pending_, pendingColumns_, values, pendingKeys_)) return false;
    run_->rows.push_back(pending_);
    return true;
  }

  ParsedText out_;
  std::optional<TestRun> run_;
  bool pendingRow_ = false;
  Row pending_;
  size_t pendingKeys_ = 0;
  std::vector<std::string> pendingColumns_;
};

}  // namespace

ParsedText parseNcclTestsText(string_view text) {
  Reader reader;
  int number = 0;
  for (size_t start = 0; start <= text.size();) {
    const size_t end = text.find('\n', start);
    const string_view line = text.substr(start, end == string_view::npos ? text.size() - start : end - start);
    reader.line(line, ++number);
    if (end == string_view::npos) break;
    start = end + 1;
  }
  return reader.finish();
}

}  // namespace railtune::sweep
