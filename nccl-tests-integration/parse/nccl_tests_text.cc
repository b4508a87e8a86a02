// Reading nccl-tests' text output (nccl_tests_text.h).
#include "nccl-tests-integration/parse/nccl_tests_text.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <utility>

#include "nccl-tests-integration/parse/row_bounds.h"
#include "nccl-tests-integration/parse/text_columns.h"

namespace railtune::sweep {

using namespace text_columns;  // the words and columns of a line, this reader's vocabulary

class TextLineReader {
 public:
  explicit TextLineReader(TextSink& sink) : sink_(sink) {}

  void finish() { closeRun(); }

  void line(string_view raw, int number) {
    const string_view text = stripLauncher(raw);
    // One scan for NCCL's name (a letter no table row holds) before the searches for what it says.
    const bool nccl = text.find('N') != string_view::npos && text.find("NCCL") != string_view::npos;
    if (const size_t at = nccl ? text.find(" NCCL INFO ") : string_view::npos; at != string_view::npos) {
      // An INFO line that lost its newline runs into the row after it: the row is read from inside the line.
      if (const std::optional<string_view> glued = gluedRow(text.substr(at + 11))) {
        if (pendingRow_) dropPending();
        return row(trim(*glued), number);
      }
      // A row that lost its newline runs into the INFO line after it: its last value is glued to NCCL's host name
      // and cannot be told from it, so the row is a bad row, said, never dropped silently.
      tokens(text.substr(0, at), words_);
      if (words_.size() > 3 && integerWord(words_[0]) && integerWord(words_[1]) && wordStartsWithLetter(words_[2]))
        badRow(number, "a result row runs into an NCCL INFO line (its newline lost): its last value is unreadable");
      return ncclInfo(text.substr(at + 11));
    }
    if (nccl && text.find("Test NCCL failure") != string_view::npos) {
      current(number).ncclFailures.emplace_back(trim(text));
      return;
    }
    const string_view t = trim(text);
    if (t.empty()) return;
    if (t.front() == '#') return comment(trim(t.substr(1)), number);
    if (t.starts_with("nThread ")) return parameters(t, number);  // E0: no '#'
    if (pendingRow_ && continuation(t, number)) return;
    row(t, number);
  }

 private:
  TestRun& current(int number) {
    if (!run_) {
      run_ = TestRun{};
      run_->firstLine = number;
      run_->nccl = std::exchange(earlyFacts_, NcclFacts{});
      rowsInRun_ = 0;
      ++columnsVersion_;
    }
    return *run_;
  }

  const std::vector<std::string>& columns() const {
    return run_ && !run_->columns.empty() ? run_->columns : defaultColumns();
  }

  // A row whose numbers never came: said, not lost silently.
  void dropPending() {
    if (!pendingRow_) return;
    pendingRow_ = false;
    badRow(pending_.line, "a result row without its numbers (cut short)");
  }

  void closeRun() {
    dropPending();
    if (run_ && (rowsInRun_ > 0 || !run_->ncclFailures.empty() || !run_->devices.empty()))
      sink_.runEnd(std::move(*run_));
    run_.reset();
    rowsInRun_ = 0;
  }

  void bad(int number, std::string message) { sink_.diagnostic({number, std::move(message), false}); }
  void badRow(int number, std::string message) { sink_.diagnostic({number, std::move(message), true}); }

  // A new run starts at its first header line when the current one already has rows.
  void startIfDone(int number) {
    if (run_ && (rowsInRun_ > 0 || run_->averageBusbw)) closeRun();
    current(number);
  }

  void ncclInfo(string_view message) {
    // NCCL's lines before a run's first header line (another rank's init) belong to the run that follows.
    if (readNcclInfo(message, run_ ? run_->nccl : earlyFacts_)) return;
    static constexpr string_view kSet = " set by environment to ";
    const size_t at = message.find(kSet);
    if (at == string_view::npos || !run_) return;
    const string_view name = trim(message.substr(0, at));
    // A variable's name (NCCL_ALGO): anything else is some other text that happens to hold the words.
    if (!name.starts_with("NCCL_") ||
        name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != string_view::npos)
      return;
    string_view value = trim(message.substr(at + kSet.size()));
    if (value.ends_with('.')) value.remove_suffix(1);
    run_->forced[std::string(name)] = std::string(value);
  }

  // The row at the end of an INFO message whose newline was lost: the last tokens, as many as the table has
  // columns (one fewer for hypercube's empty redop), shaped like a row (an integer size and count, a type that
  // is a word: never a ring's list of ranks). The size may be glued to the message's last word.
  std::optional<string_view> gluedRow(string_view message) const {
    const std::vector<std::string>& cols = columns();
    const size_t keys = keyCount(cols);
    if (keys < 3 || cols[2] != "type") return std::nullopt;
    const auto words = tokens(message);
    for (const size_t n : {cols.size(), cols.size() - 1}) {
      if (n < keys || words.size() <= n) continue;
      const size_t first = words.size() - n;
      const string_view size = words[first];
      size_t digits = 0;
      while (digits < size.size() && size[size.size() - 1 - digits] >= '0' && size[size.size() - 1 - digits] <= '9')
        ++digits;
      if (digits == 0 || !integerWord(words[first + 1]) || !wordStartsWithLetter(words[first + 2])) continue;
      const char* start = size.data() + size.size() - digits;
      return string_view(start, static_cast<size_t>(message.data() + message.size() - start));
    }
    return std::nullopt;
  }

  void comment(string_view c, int number) {
    if (c.starts_with("nccl-tests version ")) {
      startIfDone(number);
      const auto words = tokens(c.substr(19));
      if (!words.empty()) run_->testsVersion = std::string(words[0]);
      for (string_view w : words) {
        if (w.starts_with("nccl-headers=")) parseNumber(w.substr(13), &run_->ncclHeaders);
        if (w.starts_with("nccl-library=")) parseNumber(w.substr(13), &run_->ncclLibrary);
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
      if (!words.empty() && parseNumber(words[0], &value)) current(number).outOfBounds = value;
      return;
    }
    if (c.starts_with("Avg bus bandwidth")) {
      const size_t colon = c.find(':');
      const auto words = tokens(colon == string_view::npos ? "" : c.substr(colon + 1));
      if (!words.empty()) current(number).averageBusbw = measure(words[0]).number;
      dropPending();
      return;
    }
  }

  void parameters(string_view line, int number) {
    if (run_ && (rowsInRun_ > 0 || !run_->parameters.empty())) closeRun();
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
    if (rowsInRun_ > 0) {  // a second table in one run (E1: one per collective) or a new run without header lines
      TestRun next;
      next.firstLine = number;
      next.testsVersion = run.testsVersion;
      next.devices = run.devices;
      next.nccl = run.nccl;
      closeRun();
      run_ = std::move(next);
    }
    run_->columns.clear();
    for (string_view w : tokens(c)) run_->columns.emplace_back(w);
    ++columnsVersion_;
  }

  // The row's first five (or fewer, before 2.13) columns are its key; then two halves of time, algbw, busbw,
  // #wrong (or error). Columns come from the header; without one, the 2.13+ layout is assumed. A row has exactly
  // the header's columns (hypercube: one fewer), every value a number or N/A within the bounds of row_bounds.h;
  // any other row starting with an integer is a bad row, said with its reason.
  void row(string_view t, int number) {
    std::vector<string_view>& words = words_;
    tokens(t, words);
    if (words.empty() || !integerWord(words[0])) return;  // a line of some other program
    if (words[0].starts_with('-')) return badRow(number, "size " + std::string(words[0]) + " is negative");
    uint64_t size = 0;
    if (!parseNumber(words[0], &size)) return badRow(number, "size " + quoted(words[0]) + " is over 2^48 bytes");
    current(number);
    const std::vector<std::string>& cols = columns();
    const Layout& shape = layout();
    const size_t given = words.size();
    // hypercube prints an empty redop: one token fewer, the root where redop would be
    if (given + 1 == cols.size() && shape.keys == 5 && integerWord(words[3]))
      words.insert(words.begin() + 3, string_view());
    if (words.size() < shape.keys) return badRow(number, "a result row cut short");
    Row r;
    r.line = number;
    r.size = size;
    if (const std::string why = readKeys(shape, words, r); !why.empty()) return badRow(number, why);
    if (words.size() == shape.keys) {  // NCCL INFO lines split the row: the numbers follow on a later line
      pending_ = r;
      pendingKeys_ = shape.keys;
      pendingRow_ = true;
      return;
    }
    if (words.size() < cols.size())
      return badRow(number, "a result row cut short (" + std::to_string(given) + " of " + std::to_string(cols.size()) +
                                " columns)");
    if (words.size() > cols.size())
      return badRow(number, std::to_string(given) + " columns where the header has " + std::to_string(cols.size()));
    if (const std::string why = fillHalves(&r, cols, shape, words); !why.empty()) return badRow(number, why);
    emit(std::move(r), number);
  }

  static std::string readKeys(const Layout& shape, const std::vector<string_view>& values, Row& r) {
    for (size_t k = 1; k < shape.keys; ++k) {
      switch (shape.kinds[k]) {
        case Column::Count:
          if (!parseNumber(values[k], &r.count))
            return "count " + quoted(values[k]) + " is not a whole number within 2^64";
          break;
        case Column::Type:
          r.type.assign(values[k]);
          break;
        case Column::Redop:
          r.redop.assign(values[k]);
          break;
        case Column::Root: {
          int root = 0;
          if (!parseNumber(values[k], &root)) return "root " + quoted(values[k]) + " is not a rank";
          r.root = root;
          break;
        }
        default:
          break;
      }
    }
    return "";
  }

  // "" when every measurement column holds a number or N/A; else the first that does not.
  static std::string fillHalves(Row* r, const std::vector<std::string>& cols, const Layout& shape,
                                const std::vector<string_view>& values) {
    Measurement* half = nullptr;
    int halves = 0;
    for (size_t k = shape.keys; k < cols.size() && k < values.size(); ++k) {
      const Column kind = shape.kinds[k];
      if (kind == Column::Time) half = halves++ == 0 ? &r->outOfPlace : &r->inPlace;
      if (half == nullptr) continue;
      std::optional<double>* slot = nullptr;
      if (kind == Column::Time) slot = &half->timeUs;
      if (kind == Column::Algbw) slot = &half->algbwGBps;
      if (kind == Column::Busbw) slot = &half->busbwGBps;
      if (kind == Column::Wrong) slot = &half->wrong;
      if (slot == nullptr) continue;
      const Value v = measure(values[k]);
      if (!v.readable) return cols[k] + " " + quoted(values[k]) + " is not a number";
      *slot = v.number;
    }
    return "";
  }

  // The layout of the current columns, worked out again only when they change.
  const Layout& layout() {
    const std::vector<std::string>& cols = columns();
    if (layoutVersion_ != columnsVersion_ || layout_.kinds.size() != cols.size()) {
      layout_ = layoutOf(cols);
      layoutVersion_ = columnsVersion_;
    }
    return layout_;
  }

  // A row read whole: handed over when its values are physically possible, else a bad row.
  void emit(Row&& r, int number) {
    if (const std::string why = rowProblem(r, layout().countColumn); !why.empty()) return badRow(number, why);
    ++rowsInRun_;
    sink_.row(current(number), std::move(r));
  }

  // The numbers of a row whose preamble an NCCL INFO line interrupted: exactly the measurement columns.
  bool continuation(string_view t, int number) {
    const auto words = tokens(t);
    const std::vector<std::string>& cols = columns();
    double first = 0;
    if (words.size() != cols.size() - pendingKeys_ || (!parseNumber(words[0], &first) && words[0] != "N/A")) {
      dropPending();
      return false;
    }
    std::vector<string_view> values(pendingKeys_, string_view());
    values.insert(values.end(), words.begin(), words.end());
    pendingRow_ = false;
    if (const std::string why = fillHalves(&pending_, cols, layout(), values); !why.empty()) {
      badRow(pending_.line, why);
      return true;
    }
    emit(std::move(pending_), number);
    return true;
  }

  TextSink& sink_;
  std::vector<string_view> words_;  // the current row's words, reused
  Layout layout_;
  size_t columnsVersion_ = 0, layoutVersion_ = SIZE_MAX;  // the columns changed since the layout was worked out
  std::optional<TestRun> run_;
  NcclFacts earlyFacts_;  // NCCL's lines read before any run began
  size_t rowsInRun_ = 0;
  bool pendingRow_ = false;
  Row pending_;
  size_t pendingKeys_ = 0;
};

namespace {

// Every row kept, attached to its run when the run ends.
class CollectingSink : public TextSink {
 public:
  void row(const TestRun&, Row&& row) override { rows_.push_back(std::move(row)); }
  void runEnd(TestRun&& run) override {
    run.rows = std::move(rows_);
    rows_.clear();
    out.runs.push_back(std::move(run));
  }
  void diagnostic(Diagnostic&& d) override {
    out.badRows += d.badRow ? 1 : 0;
    out.diagnostics.push_back(std::move(d));
  }
  ParsedText out;

 private:
  std::vector<Row> rows_;
};

}  // namespace

NcclTestsTextReader::NcclTestsTextReader(TextSink& sink) : reader_(std::make_unique<TextLineReader>(sink)) {}
NcclTestsTextReader::~NcclTestsTextReader() = default;
void NcclTestsTextReader::line(std::string_view line, int number) {
  reader_->line(line, number);
}
void NcclTestsTextReader::finish() {
  reader_->finish();
}

ParsedText parseNcclTestsText(string_view text) {
  CollectingSink sink;
  NcclTestsTextReader reader(sink);
  int number = 0;
  for (size_t start = 0; start <= text.size();) {
    const size_t end = text.find('\n', start);
    const string_view line = text.substr(start, end == string_view::npos ? text.size() - start : end - start);
    reader.line(line, ++number);
    if (end == string_view::npos) break;
    start = end + 1;
  }
  reader.finish();
  return std::move(sink.out);
}

}  // namespace railtune::sweep
