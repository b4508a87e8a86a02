// Reader for railtune's own rules format (docs/formats/tuner-rules.schema.json):
//   {"schema": "railtune.tuner-rules/1", "rules": [{"collective": "allreduce",
//    "bytesPerRank": {"min": 0, "max": 65535}, "nvlDomains": 2, "algorithm": "nvls",
//    "protocol": "simple", "channels": 16, "chunkSize": 131072}, ...]}
// Every key of a rule except algorithm and protocol is optional (absent = any). Unknown keys,
// wrong types and out-of-range values are errors naming source:line:column.
#pragma once

#include <string>
#include <string_view>

#include "formats/schemas.h"
#include "formats/tuner_rules/rule.h"

namespace railtune::formats::tuner_rules {

RulesResult readRailtuneRules(std::string_view text, const std::string& sourceName);

}  // namespace railtune::formats::tuner_rules
