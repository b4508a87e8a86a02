// One entry point for a rules source, whichever format it is in: a document whose first
// non-blank character is '{' is railtune's JSON format, anything else NCCL's example CSV.
#pragma once

#include <string>
#include <string_view>

#include "formats/tuner_rules/rule.h"

namespace railtune::formats::tuner_rules {

enum class RulesFormat { NcclCsv, RailtuneJson };

RulesFormat detectRulesFormat(std::string_view text);
RulesResult readRules(std::string_view text, const std::string& sourceName);
// Reads the file (at most kMaxFileBytes) and parses it; an unreadable file is one error with line 0.
RulesResult readRulesFile(const std::string& path);

}  // namespace railtune::formats::tuner_rules
