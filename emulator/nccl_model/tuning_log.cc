// Reader of NCCL's NCCL_DEBUG_SUBSYS=TUNING model table (see tuning_log.h for the format).
#include "emulator/nccl_model/tuning_log.h"
#include "common/regular_file.h"
#include "common/text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace railtune::ncclmodel {
namespace {

constexpr int kAlgosPerBlock = 3;
constexpr int kAllFunctions = (1 << kNumCollectives) - 1;

// The text NCCL formatted, without the logger's "host:pid:tid [dev] NCCL INFO " prefix.
std::string messageOf(const std::string& line) {
  static const std::string kInfo = "NCCL INFO ";
  const size_t pos = line.find(kInfo);
  return pos == std::string::npos ? line : line.substr(pos + kInfo.size());
}

// The '|'-separated cells of a table line, trimmed; the empty cell after the last '|' is dropped.
std::vector<std::string> cellsOf(const std::string& message) {
  std::vector<std::string> cells;
  std::stringstream in(message);
  std::string cell;
  while (std::getline(in, cell, '|')) cells.emplace_back(trimmed(cell));
  if (!cells.empty() && cells.back().empty()) cells.pop_back();
  return cells;
}

int indexOf(const std::string& name, const char* (*nameOf)(int), int n) {
  for (int i = 0; i < n; i++)
    if (name == nameOf(i)) return i;
  return -1;
}
const char* algoNameAt(int i) {
  return ncclAlgorithmName(static_cast<Algorithm>(i));
}
const char* protoNameAt(int i) {
  return ncclProtocolName(static_cast<Protocol>(i));
}
const char* funcNameAt(int i) {
  return ncclCollectiveName(static_cast<Collective>(i));
}

class Parser {
 public:
  explicit Parser(const std::string& origin) : origin_(origin) {}

  void line(int number, const std::string& raw) {
    lineNo_ = number;
    const std::vector<std::string> cells = cellsOf(messageOf(raw));
    if (cells.size() < 2) return;  // not a table line
    if (cells[0] == "Algorithm") return algorithmHeader(cells);
    if (cells[0] == "Protocol") return protocolHeader(cells);
    if (cells[0] == "Max NThreads") return threadsHeader(cells);
    const int f = indexOf(cells[0], funcNameAt, kNumCollectives);
    // Function rows outside a block belong to other tables (NCCL's "Enabled ... Matrix"): skipped.
    if (f >= 0 && stage_ != Stage::None) functionRow(f, cells);
  }

  std::vector<TuningTable> finish() {
    if (inTable_) fail(tableStart_, "the TUNING table starting here is incomplete at the end of the log");
    return std::move(tables_);
  }

 private:
  enum class Stage { None, Algorithms, Protocols, Rows };

  [[noreturn]] void fail(int line, const std::string& what) const {
    throw TuningLogError(origin_ + ":" + std::to_string(line) + ": " + what);
  }
  [[noreturn]] void fail(const std::string& what) const { fail(lineNo_, what); }

  void algorithmHeader(const std::vector<std::string>& cells);
  void protocolHeader(const std::vector<std::string>& cells);
  void threadsHeader(const std::vector<std::string>& cells);
  void functionRow(int f, const std::vector<std::string>& cells);
  void valuePair(const std::string& cell, float* latency, float* bandwidth);
  void expectCells(const std::vector<std::string>& cells, size_t atLeast, const char* what);

  const std::string& origin_;
  int lineNo_ = 0;
  std::vector<TuningTable> tables_;
  TuningTable table_;
  bool inTable_ = false;
  int tableStart_ = 0;
  bool seen_[kNumAlgorithms] = {};
  Stage stage_ = Stage::None;
  std::vector<int> blockAlgos_;
  int rowsSeen_ = 0;  // bit per function
};

void Parser::expectCells(const std::vector<std::string>& cells, size_t atLeast, const char* what) {
  if (cells.size() - 1 < atLeast)
    fail(std::string("expected ") + std::to_string(atLeast) + " " + what + " cells, found " +
         std::to_string(cells.size() - 1));
}

void Parser::algorithmHeader(const std::vector<std::string>& cells) {
  if (stage_ != Stage::None) fail("\"Algorithm\" header before the previous block's five function rows");
  blockAlgos_.clear();
  for (size_t i = 1; i < cells.size(); i++) {
    const int a = indexOf(cells[i], algoNameAt, kNumAlgorithms);
    if (a < 0) fail("unknown algorithm \"" + cells[i] + "\"");
    blockAlgos_.push_back(a);
  }
  if (blockAlgos_.empty() || blockAlgos_.size() > kAlgosPerBlock) fail("expected 1 to 3 algorithms in the header");
  if (blockAlgos_[0] == 0) {  // Tree opens a table
    if (inTable_)
      fail(tableStart_,
           "the TUNING table starting here is incomplete: a new one starts at line " + std::to_string(lineNo_));
    inTable_ = true;
    tableStart_ = lineNo_;
    table_ = TuningTable{};
    table_.firstLine = lineNo_;
    for (bool& s : seen_) s = false;
  } else if (!inTable_) {
    fail("algorithm block without the table's first block (Tree, Ring, CollNetDirect)");
  }
  for (int a : blockAlgos_)
    if (seen_[a]) fail(std::string("algorithm ") + algoNameAt(a) + " appears twice in one table");
  stage_ = Stage::Algorithms;
  rowsSeen_ = 0;
}

void Parser::protocolHeader(const std::vector<std::string>& cells) {
  if (stage_ != Stage::Algorithms) fail("\"Protocol\" header without an \"Algorithm\" header before it");
  expectCells(cells, kNumProtocols * blockAlgos_.size(), "protocol");
  for (size_t i = 1; i < cells.size(); i++)  // NCCL prints all nine even for a block of one algorithm
    if (cells[i] != protoNameAt(static_cast<int>((i - 1) % kNumProtocols)))
      fail("unexpected protocol \"" + cells[i] + "\" (expected LL, LL128, Simple in turn)");
  stage_ = Stage::Protocols;
}

void Parser::threadsHeader(const std::vector<std::string>& cells) {
  if (stage_ != Stage::Protocols) fail("\"Max NThreads\" header without a \"Protocol\" header before it");
  expectCells(cells, kNumProtocols * blockAlgos_.size(), "thread count");
  for (size_t i = 0; i < kNumProtocols * blockAlgos_.size(); i++) {
    char* end = nullptr;
    const long v = std::strtol(cells[i + 1].c_str(), &end, 10);
    if (cells[i + 1].empty() || *end != '\0' || v < 0 || v > 4096)
      fail("thread count \"" + cells[i + 1] + "\" is not an integer in [0, 4096]");
    table_.maxThreads[blockAlgos_[i / kNumProtocols]][i % kNumProtocols] = static_cast<int>(v);
  }
  stage_ = Stage::Rows;
}

void Parser::valuePair(const std::string& cell, float* latency, float* bandwidth) {
  const size_t slash = cell.find('/');
  if (slash == std::string::npos) fail("cell \"" + cell + "\" is not latency/bandwidth");
  const std::string parts[2] = {std::string(trimmed(cell.substr(0, slash))),
                                std::string(trimmed(cell.substr(slash + 1)))};
  float* out[2] = {latency, bandwidth};
  for (int i = 0; i < 2; i++) {
    char* end = nullptr;
    const double v = std::strtod(parts[i].c_str(), &end);
    if (parts[i].empty() || *end != '\0' || !std::isfinite(v) || v < 0 || v > 1e9)
      fail("cell \"" + cell + "\": \"" + parts[i] + "\" is not a non-negative number");
    *out[i] = static_cast<float>(v);
  }
}

void Parser::functionRow(int f, const std::vector<std::string>& cells) {
  if (stage_ != Stage::Rows) fail(std::string(funcNameAt(f)) + " row before the \"Max NThreads\" header");
  if (rowsSeen_ & (1 << f)) fail(std::string(funcNameAt(f)) + " row appears twice in one block");
  expectCells(cells, kNumProtocols * blockAlgos_.size(), "latency/bandwidth");
  if (cells.size() - 1 != kNumProtocols * blockAlgos_.size()) fail("too many latency/bandwidth cells");
  for (size_t i = 0; i < kNumProtocols * blockAlgos_.size(); i++) {
    const int a = blockAlgos_[i / kNumProtocols], p = static_cast<int>(i % kNumProtocols);
    valuePair(cells[i + 1], &table_.latencies[f][a][p], &table_.bandwidths[f][a][p]);
  }
  rowsSeen_ |= 1 << f;
  if (rowsSeen_ != kAllFunctions) return;
  stage_ = Stage::None;
  for (int a : blockAlgos_) seen_[a] = true;
  for (bool s : seen_)
    if (!s) return;
  tables_.push_back(table_);
  inTable_ = false;
}

}  // namespace

std::vector<TuningTable> parseTuningLog(const std::string& text, const std::string& origin) {
  Parser parser(origin);
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); number++) parser.line(number, line);
  return parser.finish();
}

TuningTable readTuningLogFile(const std::string& path) {
  const RegularFile file = readRegularFile(path, kMaxInputFileBytes);
  if (!file.ok()) throw TuningLogError(file.describe() + " (the NCCL TUNING log)");
  std::vector<TuningTable> tables = parseTuningLog(file.bytes, path);
  if (tables.empty())
    throw TuningLogError(path + ": no NCCL TUNING table (run with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING)");
  return tables.front();
}

std::string formatTuningLog(const TunedModel& model, const std::string& prefix) {
  std::string out;
  char cell[64];
  auto add = [&](const char* text) { out += text; };
  for (int block = 0; block * kAlgosPerBlock < kNumAlgorithms; block++) {
    const int first = block * kAlgosPerBlock, last = std::min(first + kAlgosPerBlock, kNumAlgorithms);
    out += prefix + "  Algorithm   |";
    for (int a = first; a < last; a++) {
      std::snprintf(cell, sizeof(cell), " %14s   %14s   %14s |", "", algoNameAt(a), "");
      add(cell);
    }
    out += "\n" + prefix + "  Protocol    |";
    for (int i = 0; i < kAlgosPerBlock * kNumProtocols; i++) {  // NCCL prints nine even for the last block
      std::snprintf(cell, sizeof(cell), " %14s |", protoNameAt(i % kNumProtocols));
      add(cell);
    }
    out += "\n" + prefix + " Max NThreads |";
    for (int a = first; a < last; a++)
      for (int p = 0; p < kNumProtocols; p++) {
        std::snprintf(cell, sizeof(cell), " %14d |", model.maxThreads[a][p]);
        add(cell);
      }
    for (int c = 0; c < kNumCollectives; c++) {
      std::snprintf(cell, sizeof(cell), "%13s |", funcNameAt(c));
      out += "\n" + prefix + cell;
      for (int a = first; a < last; a++)
        for (int p = 0; p < kNumProtocols; p++) {
          std::snprintf(cell, sizeof(cell), "%8.1f/%6.1f |", static_cast<double>(model.latencies[c][a][p]),
                        static_cast<double>(model.bandwidths[c][a][p]));
          add(cell);
        }
    }
    out += "\n";
  }
  return out;
}

void applyTuningTable(TunedModel& model, const TuningTable& table) {
  for (int c = 0; c < kNumCollectives; c++)
    for (int a = 0; a < kNumAlgorithms; a++)
      for (int p = 0; p < kNumProtocols; p++) {
        model.latencies[c][a][p] = table.latencies[c][a][p];
        model.bandwidths[c][a][p] = table.bandwidths[c][a][p];
      }
  for (int a = 0; a < kNumAlgorithms; a++)
    for (int p = 0; p < kNumProtocols; p++) model.maxThreads[a][p] = table.maxThreads[a][p];
}

}  // namespace railtune::ncclmodel
