// Reader for the rules file of NCCL's example tuner (plugins/tuner/example in NCCL 2.30,
// ext-tuner/example before): one rule per line,
//   collective,minBytes,maxBytes,algorithm,protocol,channels,nNodes,nRanks[,numPipeOps[,regBuff]]
// Every file NCCL's example applies as its author meant is read to the same rules; where the
// example silently guesses (unknown names, bad numbers, wrong field counts, min > max) this reader
// reports an error naming source:line:column instead. docs/tuning.md lists each deviation.
#pragma once

#include <string>
#include <string_view>

#include "formats/tuner_rules/rule.h"

namespace railtune::formats::tuner_rules {

RulesResult readNcclTunerCsv(std::string_view text, const std::string& sourceName);

}  // namespace railtune::formats::tuner_rules
