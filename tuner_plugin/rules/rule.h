// The tuner's view of its rules: the rules file format (formats/tuner_rules/rule.h: the rule, its names,
// when it matches, the readers) named in the tuner's namespace, and what only the tuner knows: the scope
// of a communicator as NCCL describes it to the plugin (CommInfo).
#pragma once

#include "formats/tuner_rules/rule.h"
#include "tuner_plugin/engine.h"

namespace railtune::tuner::rules {

using formats::tuner_rules::algorithmFromRuleName;
using formats::tuner_rules::algorithmRuleName;
using formats::tuner_rules::bytesPerRank;
using formats::tuner_rules::collectiveFromRuleName;
using formats::tuner_rules::collectiveRuleName;
using formats::tuner_rules::describeRule;
using formats::tuner_rules::kAny;
using formats::tuner_rules::kMaxChannels;
using formats::tuner_rules::kMaxChunkSize;
using formats::tuner_rules::kMaxErrorsReported;
using formats::tuner_rules::kMaxFileBytes;
using formats::tuner_rules::kMaxLineBytes;
using formats::tuner_rules::kMaxRules;
using formats::tuner_rules::kNoUpperBound;
using formats::tuner_rules::knownAlgorithmNames;
using formats::tuner_rules::knownCollectiveNames;
using formats::tuner_rules::knownProtocolNames;
using formats::tuner_rules::matchesCall;
using formats::tuner_rules::matchesCollective;
using formats::tuner_rules::matchesScope;
using formats::tuner_rules::matchesSize;
using formats::tuner_rules::nBytesRange;
using formats::tuner_rules::protocolFromRuleName;
using formats::tuner_rules::protocolRuleName;
using formats::tuner_rules::Rule;
using formats::tuner_rules::RuleError;
using formats::tuner_rules::RuleScope;
using formats::tuner_rules::RuleSet;
using formats::tuner_rules::RulesResult;
using formats::tuner_rules::SizeKey;

// NVLink domains and ranks per domain from NCCL's nvlDomainInfo (v5+); without it, one domain per
// node with nRanks/nNodes ranks each (floor and ceiling when the division is not exact).
RuleScope scopeOf(const CommInfo& comm);

}  // namespace railtune::tuner::rules
