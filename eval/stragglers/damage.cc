// See damage.h.
#include "eval/stragglers/damage.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/synth/random.h"

namespace railtune::eval::stragglers {
namespace {

namespace fs = std::filesystem;
namespace sy = analysis::synth;

uint64_t draw(uint64_t seed, uint64_t what, uint64_t index, uint64_t span) {
  return sy::randomBits(seed, sy::Stream::Identity, 5000 + what, index) % span;
}

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Cut inside line `keep` (never at its end, so a partial line is left): one bad line.
std::string truncated(const std::vector<std::string>& lines, uint64_t seed, uint64_t index) {
  const size_t keep = draw(seed, 1, index, lines.size());
  std::string out;
  for (size_t i = 0; i < keep; ++i) out += lines[i] + "\n";
  const std::string& cut = lines[keep];
  return out + cut.substr(0, 1 + draw(seed, 2, index, std::max<size_t>(cut.size() - 1, 1)));
}

std::string shuffled(std::vector<std::string> lines, uint64_t seed, uint64_t index) {
  for (size_t i = lines.size(); i > 1; --i) std::swap(lines[i - 1], lines[draw(seed, 3, index * 1000003 + i, i)]);
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

}  // namespace

Damage damageLogs(const std::string& dir, uint64_t seed) {
  std::vector<std::string> files;
  for (const fs::directory_entry& e : fs::directory_iterator(dir))
    if (e.path().string().ends_with(".collectives.jsonl")) files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  Damage damage;
  for (size_t f = 0; f < files.size(); ++f) {
    const std::vector<std::string> lines = splitLines(readAll(files[f]));
    if (lines.empty()) continue;
    std::string text;
    switch (draw(seed, 0, f, 5)) {  // a fifth of the files cut, a fifth shuffled, a fifth given a foreign line
      case 0:
        text = truncated(lines, seed, f), ++damage.truncated;
        break;
      case 1:
        text = shuffled(lines, seed, f), ++damage.shuffled;
        break;
      case 2: {
        std::vector<std::string> with = lines;
        with.insert(with.begin() + static_cast<std::ptrdiff_t>(draw(seed, 4, f, with.size() + 1)),
                    "Traceback (most recent call last): a launcher's line in the profiler's file");
        text = shuffled(with, seed, f + 7919), ++damage.foreign, ++damage.shuffled;
        break;
      }
      default:
        continue;
    }
    std::ofstream(files[f], std::ios::binary | std::ios::trunc) << text;
  }
  return damage;
}

}  // namespace railtune::eval::stragglers
