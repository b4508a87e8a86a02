// The bad-input check of the stragglers suite: a synthetic job's logs damaged as a crashed writer, a
// full disk or a careless copy leaves them (files cut in the middle of a line, lines shuffled, a line
// of something else), then `railtune profile stragglers` run on them as a user would, with a time
// limit (eval/common/command.h). It must finish (no crash, no hang), say how many lines it could not read (exactly
// those damaged), and still analyse the rest.
#pragma once

#include <cstdint>
#include <string>

namespace railtune::eval::stragglers {

struct Damage {
  int truncated = 0, shuffled = 0, foreign = 0;  // files cut mid-line, files shuffled, lines of garbage added
  int badLines() const { return truncated + foreign; }
};

// Damages the *.collectives.jsonl files under `dir`, choices from the seed.
Damage damageLogs(const std::string& dir, uint64_t seed);

}  // namespace railtune::eval::stragglers
