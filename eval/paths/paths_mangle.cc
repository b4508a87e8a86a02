// See paths_mangle.h.
#include "eval/paths/paths_mangle.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "formats/path_log.h"

namespace railtune::eval::paths {
namespace {

OutLine whole(const LogLine& line) {
  return OutLine{line.text, true, line.writer, line.end};
}

std::string fileOf(const Writer& w) {
  return formats::path_log::pathLogFileName(w.identity, "1780000000");
}

std::vector<OutFile> onePerProcess(const GeneratedJob& job) {
  std::vector<OutFile> files;
  for (const Writer& w : job.writers) {
    OutFile f{fileOf(w), {}, true};
    for (const LogLine& line : w.lines) f.lines.push_back(whole(line));
    files.push_back(std::move(f));
  }
  return files;
}

// Rotation: each log's first part in the folder, the rest under rotated/ (its records in any order across files).
std::vector<OutFile> split(const GeneratedJob& job, Rng& rng) {
  std::vector<OutFile> files;
  for (const Writer& w : job.writers) {
    const size_t cut = static_cast<size_t>(rng.below(static_cast<int>(w.lines.size()) + 1));
    OutFile first{fileOf(w), {}, true}, second{"rotated/" + fileOf(w) + ".1", {}, true};
    for (size_t i = 0; i < w.lines.size(); ++i) (i < cut ? first : second).lines.push_back(whole(w.lines[i]));
    if (!first.lines.empty()) files.push_back(std::move(first));
    if (!second.lines.empty()) files.push_back(std::move(second));
  }
  return files;
}

// A copy of some logs in another folder: whole (collected twice), or its first lines only (collected mid-run).
std::vector<OutFile> duplicate(const GeneratedJob& job, Rng& rng, bool partial) {
  std::vector<OutFile> files = onePerProcess(job);
  const size_t originals = files.size();
  for (size_t i = 0; i < originals; ++i) {
    if (rng.below(2) != 0) continue;
    OutFile copy = files[i];
    copy.path = (partial ? "collected-early/" : "copy/") + copy.path;
    if (partial) copy.lines.resize(static_cast<size_t>(rng.below(static_cast<int>(copy.lines.size())) + 1));
    files.push_back(std::move(copy));
  }
  return files;
}

// Two processes of one host writing one file: their lines interleaved, each writer's in its own order; with
// `splices`, that many lines cut by the other writer's next line (the cut line's rest follows on a line of its own).
OutFile interleavePair(const Writer& a, const Writer& b, Rng& rng, int splices) {
  OutFile f{"shared/" + fileOf(a), {}, true};
  size_t i = 0, j = 0;
  while (i < a.lines.size() || j < b.lines.size()) {
    const bool fromA = j == b.lines.size() || (i < a.lines.size() && rng.below(2) == 0);
    const LogLine& line = fromA ? a.lines[i++] : b.lines[j++];
    const std::vector<LogLine>& other = fromA ? b.lines : a.lines;
    size_t& otherAt = fromA ? j : i;
    if (splices > 0 && otherAt < other.size() && rng.below(4) == 0 && line.text.size() > 2) {
      --splices;
      const size_t cut = 1 + static_cast<size_t>(rng.below(static_cast<int>(line.text.size()) - 1));
      const LogLine& cutter = other[otherAt++];
      f.lines.push_back(OutLine{line.text.substr(0, cut) + cutter.text, false, line.writer, line.end});
      f.lines.push_back(OutLine{line.text.substr(cut), false, cutter.writer, cutter.end});
      continue;
    }
    f.lines.push_back(whole(line));
  }
  return f;
}

std::vector<OutFile> interleave(const GeneratedJob& job, Rng& rng, bool splice) {
  std::vector<OutFile> files;
  std::vector<bool> done(job.writers.size(), false);
  for (size_t a = 0; a < job.writers.size(); ++a) {
    if (done[a]) continue;
    size_t b = a + 1;
    while (b < job.writers.size() && (done[b] || job.writers[b].identity.host != job.writers[a].identity.host)) ++b;
    if (b == job.writers.size()) {  // alone on its host: its own file
      OutFile f{fileOf(job.writers[a]), {}, true};
      for (const LogLine& line : job.writers[a].lines) f.lines.push_back(whole(line));
      files.push_back(std::move(f));
      done[a] = true;
      continue;
    }
    files.push_back(interleavePair(job.writers[a], job.writers[b], rng, splice ? 1 + rng.below(3) : 0));
    done[a] = done[b] = true;
  }
  return files;
}

// One file cut at a byte inside one of its lines (a writer killed mid-write, a full disk): that line is damaged,
// the lines after it lost; and another file's last line cut.
void cutInLine(OutFile& f, size_t line, Rng& rng) {
  OutLine& l = f.lines[line];
  if (l.text.size() < 2) return;
  l.text.resize(1 + static_cast<size_t>(rng.below(static_cast<int>(l.text.size()) - 1)));
  l.intact = false;
  f.lines.resize(line + 1);
  f.finalNewline = false;
}

std::vector<OutFile> truncate(const GeneratedJob& job, Rng& rng) {
  std::vector<OutFile> files = onePerProcess(job);
  OutFile& anywhere = files[static_cast<size_t>(rng.below(static_cast<int>(files.size())))];
  cutInLine(anywhere, static_cast<size_t>(rng.below(static_cast<int>(anywhere.lines.size()))), rng);
  OutFile& last = files[static_cast<size_t>(rng.below(static_cast<int>(files.size())))];
  if (last.finalNewline) cutInLine(last, last.lines.size() - 1, rng);
  return files;
}

// Every line of the job in random order, dealt over a few files.
std::vector<OutFile> shuffle(const GeneratedJob& job, Rng& rng) {
  std::vector<OutLine> all;
  for (const Writer& w : job.writers)
    for (const LogLine& line : w.lines) all.push_back(whole(line));
  for (size_t i = all.size(); i > 1; --i)
    std::swap(all[i - 1], all[static_cast<size_t>(rng.below(static_cast<int>(i)))]);
  const int count = 1 + rng.below(4);
  std::vector<OutFile> files;
  for (int i = 0; i < count; ++i) files.push_back(OutFile{"shuffled-" + std::to_string(i) + ".jsonl", {}, true});
  for (OutLine& line : all) files[static_cast<size_t>(rng.below(count))].lines.push_back(std::move(line));
  std::erase_if(files, [](const OutFile& f) { return f.lines.empty(); });
  return files;
}

}  // namespace

const std::vector<std::string>& mangleKinds() {
  static const std::vector<std::string> kinds{"split",  "duplicate-copy", "duplicate-early", "interleave",
                                              "splice", "truncate",       "shuffle"};
  return kinds;
}

std::vector<OutFile> mangle(const GeneratedJob& job, const std::string& kind, Rng& rng) {
  if (kind == "none") return onePerProcess(job);
  if (kind == "split") return split(job, rng);
  if (kind == "duplicate-copy") return duplicate(job, rng, false);
  if (kind == "duplicate-early") return duplicate(job, rng, true);
  if (kind == "interleave") return interleave(job, rng, false);
  if (kind == "splice") return interleave(job, rng, true);
  if (kind == "truncate") return truncate(job, rng);
  if (kind == "shuffle") return shuffle(job, rng);
  throw std::invalid_argument("unknown mangle " + kind);
}

void writeFiles(const std::vector<OutFile>& files, const std::string& dir) {
  for (const OutFile& f : files) {
    const std::filesystem::path path = std::filesystem::path(dir) / f.path;
    std::filesystem::create_directories(path.parent_path());
    std::string text;
    for (size_t i = 0; i < f.lines.size(); ++i) {
      text += f.lines[i].text;
      if (i + 1 < f.lines.size() || f.finalNewline) text += '\n';
    }
    std::ofstream out(path, std::ios::binary);
    if (!out.write(text.data(), static_cast<std::streamsize>(text.size())) || !out.flush())
      throw std::runtime_error("cannot write " + path.string());
  }
}

}  // namespace railtune::eval::paths
