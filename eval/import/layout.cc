// Laying a job's logs out as launchers and shared files do (layout.h).
#include "eval/import/layout.h"

#include <algorithm>
#include <string_view>

namespace railtune::eval::import_suite {
namespace {

int pick(std::mt19937_64& rng, int low, int high) {
  return std::uniform_int_distribution<int>(low, high)(rng);
}

std::string fileOf(const Process& p) {
  return p.host + "." + std::to_string(p.pid) + ".nccl.log";  // NCCL_DEBUG_FILE=%h.%p.nccl.log
}

struct Tagged {
  std::string text;
  int process = -1;
  int end = -1;
};

// The processes' lines interleaved as one stdout: each process's order kept, a launcher's prefix before each.
// Shared files (one NCCL_DEBUG_FILE for several processes) have no prefix: `bare` makes that likelier.
std::vector<Tagged> interleave(const NcclJob& job, std::mt19937_64& rng, bool bare = false) {
  const int style = bare && pick(rng, 0, 9) < 7 ? 0 : pick(rng, 0, 3);
  std::vector<size_t> next(job.processes.size());
  std::vector<Tagged> out;
  size_t left = 0;
  for (const Process& p : job.processes) left += p.lines.size();
  while (left > 0) {
    const auto p = static_cast<size_t>(pick(rng, 0, static_cast<int>(job.processes.size()) - 1));
    if (next[p] >= job.processes[p].lines.size()) continue;
    const Line& line = job.processes[p].lines[next[p]++];
    --left;
    std::string prefix;
    if (style == 1) prefix = "[1," + std::to_string(p) + "]<stdout>:";                            // mpirun --tag-output
    if (style == 2) prefix = std::to_string(p) + ": ";                                            // srun --label
    if (style == 3) prefix = "(pid=" + std::to_string(job.processes[p].pid) + ", ip=10.0.0.1) ";  // Ray
    out.push_back(Tagged{prefix + line.text, static_cast<int>(p), line.end});
  }
  return out;
}

LogFile plain(const std::string& name, const std::vector<Tagged>& lines) {
  LogFile file{name, {}, true};
  for (const Tagged& t : lines) file.lines.push_back(t.text);
  return file;
}

void perProcess(const NcclJob& job, Layout* layout) {
  for (const Process& p : job.processes) {
    LogFile file{fileOf(p), {}, true};
    for (const Line& line : p.lines) file.lines.push_back(line.text);
    layout->given.push_back(file.name);
    layout->files.push_back(std::move(file));
  }
}

// Rotated logs: each process's lines in 2-3 files, given as the folder.
void split(const NcclJob& job, std::mt19937_64& rng, Layout* layout) {
  for (const Process& p : job.processes) {
    const int parts = pick(rng, 2, 3);
    size_t at = 0;
    for (int part = 1; part <= parts; ++part) {
      const size_t stop = part == parts ? p.lines.size() : std::min(p.lines.size(), at + p.lines.size() / parts);
      LogFile file{fileOf(p) + "." + std::to_string(part), {}, true};
      for (; at < stop; ++at) file.lines.push_back(p.lines[at].text);
      layout->files.push_back(std::move(file));
    }
  }
  layout->given.push_back(".");
}

// Where a header's host starts: after a space, ':', '>' or ']' (docs/paths.md, "What each record says"). Text
// that ends with one of them before a header leaves the header whole.
bool endsWithDelimiter(const std::string& text) {
  return text.empty() || std::string_view(" \t:>]").find(text.back()) != std::string_view::npos;
}

// Two writers on one file: one process's line cut by another's, or another program's text glued before it.
// The spliced line must be named as bad unless the second line's header is still whole (behind its own
// launcher prefix, or after a delimiter), in which case that line is intact and must be read rightly. The
// rest of a first line cut inside its header must be named too when it was a Channel line.
// A damaged line that stated a process's HCAs (its device list) or its communicator (an Init line) leaves them
// unstated.
void damaged(const NcclJob& job, const Tagged& line, Layout* layout) {
  if (line.process < 0) return;
  const Process& p = job.processes[static_cast<size_t>(line.process)];
  const std::string key = p.host + ":" + std::to_string(p.pid);
  if (line.text.find(" : Using") != std::string::npos) layout->hcaUnstated.insert(key);
  if (line.text.find(" - Init ") != std::string::npos) layout->commUnstated.insert(key);
}

// Where the line's "HOST:PID:" starts: after a launcher's prefix or NCCL's timestamp, if any.
size_t hostAt(const NcclJob& job, const Tagged& line) {
  const Process& p = job.processes[static_cast<size_t>(line.process)];
  return line.text.find(p.host + ":" + std::to_string(p.pid) + ":");
}

void splice(const NcclJob& job, std::vector<Tagged>& lines, std::mt19937_64& rng, Layout* layout) {
  const int splices = pick(rng, 1, 5);
  for (int s = 0; s < splices; ++s) {
    // The second line a Channel line in half the splices, any other NCCL line (an Init line, a device list:
    // lines that make a process) in the rest.
    const bool channel = pick(rng, 0, 1) == 0;
    size_t i = 0;
    for (int tries = 0; tries < 200; ++tries) {
      i = static_cast<size_t>(pick(rng, 0, static_cast<int>(lines.size()) - 2));
      if (lines[i].process != lines[i + 1].process && lines[i].process >= 0 && lines[i + 1].process >= 0 &&
          lines[i].text.find(" NCCL INFO ") != std::string::npos &&
          lines[i + 1].text.find(" NCCL INFO ") != std::string::npos && ((lines[i + 1].end >= 0) == channel))
        break;
    }
    const Tagged a = lines[i], b = lines[i + 1];
    const int kind = pick(rng, 0, 2);
    const size_t marker = a.text.find(" NCCL INFO ");
    std::string head;
    size_t cut = 0;
    if (kind == 2) {  // another program's text without its newline
      head = "Epoch 3 loss 0.2513";
    } else {
      cut = static_cast<size_t>(kind == 0
                                    ? pick(rng, 1, static_cast<int>(marker))
                                    : pick(rng, static_cast<int>(marker) + 11, static_cast<int>(a.text.size()) - 1));
      head = a.text.substr(0, cut);
    }
    const bool bWhole = kind != 1 && (hostAt(job, b) > 0 || endsWithDelimiter(head));
    if (!bWhole) {
      damaged(job, b, layout);
      if (b.end >= 0) layout->lost.insert(b.end);
      layout->mustName.push_back(MustName{"job.log", static_cast<int>(i + 1), b.end});
    }
    lines[i] = Tagged{head + b.text, -2, -1};
    if (kind == 2) {
      lines[i + 1] = a;
      continue;
    }
    damaged(job, a, layout);
    if (a.end >= 0) layout->lost.insert(a.end);
    lines[i + 1] = Tagged{a.text.substr(cut), -3, -1};
    if (kind == 0 && a.end >= 0 && cut > hostAt(job, a))  // the rest of a Channel line cut inside its header
      layout->mustName.push_back(MustName{"job.log", static_cast<int>(i + 2), -1});
  }
}

// Jobs killed while writing: some processes' files end inside a Channel line.
void cutLastLines(const NcclJob& job, std::mt19937_64& rng, Layout* layout) {
  perProcess(job, layout);
  for (size_t p = 0; p < job.processes.size(); ++p) {
    if (pick(rng, 0, 2) != 0) continue;
    const Process& process = job.processes[p];
    std::vector<size_t> channels;
    for (size_t i = 0; i < process.lines.size(); ++i)
      if (process.lines[i].channel) channels.push_back(i);
    if (channels.empty()) continue;
    const size_t last = channels[static_cast<size_t>(pick(rng, 0, static_cast<int>(channels.size()) - 1))];
    LogFile& file = layout->files[p];
    file.lines.resize(last + 1);
    std::string& text = file.lines.back();
    text.resize(static_cast<size_t>(
        pick(rng, static_cast<int>(text.find(" NCCL INFO ")) + 11, static_cast<int>(text.size()) - 1)));
    file.lastNewline = false;
    for (size_t i = last; i < process.lines.size(); ++i)
      if (process.lines[i].end >= 0) layout->lost.insert(process.lines[i].end);
    layout->commUnstated.insert(process.host + ":" + std::to_string(process.pid));
    layout->mustName.push_back(MustName{file.name, static_cast<int>(last + 1), -1});
  }
}

// Other programs' lines among NCCL's: the training script's, nccl-tests' table, torch's, a shell's.
void otherOutput(std::vector<Tagged>& lines, std::mt19937_64& rng) {
  static const char* kOther[] = {
      "#  size         count      type   redop    root     time   algbw   busbw #wrong",
      "     1048576        262144     float     sum      -1    51.42   20.39   38.23      0",
      "INFO:torch.distributed.run:Using nproc_per_node=8. NCCL_DEBUG=INFO",
      "[rank3]:[W reducer.cpp:1389] Warning: find_unused_parameters=True was specified in DDP constructor",
      "Epoch 1/10: 100%|##########| 500/500 [01:12<00:00, 6.91it/s, loss=2.31]",
      "Traceback (most recent call last): NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:219",
      "node7:3344:3344 [0] some_other_lib INFO Channel 00 open",
      "NCCL_IB_HCA=mlx5_0,mlx5_3 NCCL_SOCKET_IFNAME=eth0 -> 2 devices [send] configured",
      ""};
  const int count = pick(rng, 5, 40);
  for (int i = 0; i < count; ++i) {
    const auto at = static_cast<size_t>(pick(rng, 0, static_cast<int>(lines.size())));
    lines.insert(lines.begin() + static_cast<long>(at), Tagged{kOther[pick(rng, 0, 8)], -1, -1});
  }
}

// Bad input: each file's lines shuffled, and the file cut at any byte.
void cutShuffled(const NcclJob& job, std::mt19937_64& rng, Layout* layout) {
  perProcess(job, layout);
  for (LogFile& file : layout->files) {
    std::shuffle(file.lines.begin(), file.lines.end(), rng);
    size_t bytes = 0;
    for (const std::string& l : file.lines) bytes += l.size() + 1;
    size_t keep = static_cast<size_t>(pick(rng, 0, static_cast<int>(bytes)));
    std::vector<std::string> kept;
    for (const std::string& l : file.lines) {
      if (keep == 0) break;
      kept.push_back(l.substr(0, std::min(keep, l.size())));
      file.lastNewline = keep > l.size();
      keep -= std::min(keep, l.size() + 1);
    }
    file.lines = std::move(kept);
  }
}

}  // namespace

Layout layOut(const NcclJob& job, Mangling mangling, std::mt19937_64& rng) {
  Layout layout;
  switch (mangling) {
    case Mangling::None:
      perProcess(job, &layout);
      break;
    case Mangling::Split:
      split(job, rng, &layout);
      break;
    case Mangling::CutLastLines:
      cutLastLines(job, rng, &layout);
      break;
    case Mangling::CutShuffled:
      cutShuffled(job, rng, &layout);
      break;
    case Mangling::Duplicated: {
      perProcess(job, &layout);
      layout.files.push_back(plain("job.log", interleave(job, rng)));
      layout.given.push_back("job.log");
      layout.given.push_back(layout.given.front());  // one path given twice
      break;
    }
    case Mangling::Interleaved:
    case Mangling::Spliced:
    case Mangling::OtherOutput: {
      std::vector<Tagged> lines = interleave(job, rng, mangling == Mangling::Spliced);
      if (mangling == Mangling::Spliced) splice(job, lines, rng, &layout);
      if (mangling == Mangling::OtherOutput) otherOutput(lines, rng);
      layout.files.push_back(plain("job.log", lines));
      layout.given.push_back("job.log");
      break;
    }
  }
  return layout;
}

}  // namespace railtune::eval::import_suite
