// Grouping by user tag and path (tag_groups.h).
#include "analysis/profile/tag_groups.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <tuple>

namespace railtune::analysis::profile {
namespace {

using formats::profile::ExecPath;

using GroupKey = std::tuple<bool, uint64_t, ExecPath>;

GroupKey keyOf(const CollectiveTrait& t) {
  return {t.tagged, t.userTag, t.path};
}

CollectiveTrait traitOf(const SampleTraits* t) {
  return t == nullptr ? CollectiveTrait{} : CollectiveTrait{t->tagged, t->userTag, t->path, false};
}

// The most common (tag, path) among a collective's samples; ties to the smallest key.
CollectiveTrait commonTrait(const SampleTraitIndex& traits, const CollectiveIndex& index, const Collective& col) {
  std::map<GroupKey, uint32_t> votes;
  for (uint32_t i = col.begin; i < col.end; ++i) ++votes[keyOf(traitOf(traits.of(index.order[i])))];
  const auto best =
      std::max_element(votes.begin(), votes.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  const auto [tagged, tag, path] = best->first;
  return CollectiveTrait{tagged, tag, path, votes.size() > 1};
}

struct RankTally {
  std::vector<int64_t> lateness;
  CauseTally causes;
  uint64_t collectives = 0;
};

TagGroupRank summarise(const ProfileLogs& logs, uint32_t stream, RankTally& tally) {
  const Stream& s = logs.streams[stream];
  TagGroupRank out;
  out.rank = s.rank, out.host = logs.hosts[s.host], out.hasComm = s.hasComm, out.comm = s.comm;
  out.collectivesLate = tally.lateness.size();
  out.collectives = tally.collectives;
  out.medianLatenessUs = static_cast<double>(medianOf(tally.lateness)) / 1000.0;
  out.cause = tally.causes.verdict();
  return out;
}

// One group's ranks: those late in at least minCollectives and minShare of the group's collectives
// they took part in.
void findRanks(const ProfileLogs& logs, const CollectiveIndex& index, const std::vector<size_t>& collectives,
               const LatenessResult& measured, const StragglerOptions& options, TagGroup* group) {
  std::map<uint32_t, RankTally> tallies;
  for (size_t c : collectives) {
    const Collective& col = index.collectives[c];
    for (uint32_t i = col.begin; i < col.end; ++i) ++tallies[logs.samples[index.order[i]].stream].collectives;
    for (const LateEvent& e : measured.outcomes[c].late) {
      RankTally& t = tallies[e.stream];
      t.lateness.push_back(e.latenessNs);
      t.causes.add(e.cause);
    }
    group->lateEvents += measured.outcomes[c].late.size();
  }
  for (auto& [stream, tally] : tallies) {
    const uint64_t late = tally.lateness.size();
    if (late < options.minCollectives ||
        static_cast<double>(late) < options.minShare * static_cast<double>(tally.collectives))
      continue;
    group->ranks.push_back(summarise(logs, stream, tally));
  }
  std::stable_sort(group->ranks.begin(), group->ranks.end(), [](const TagGroupRank& a, const TagGroupRank& b) {
    if (a.collectivesLate != b.collectivesLate) return a.collectivesLate > b.collectivesLate;
    return a.medianLatenessUs > b.medianLatenessUs;
  });
}

}  // namespace

std::vector<CollectiveTrait> collectiveTraits(const ProfileLogs& logs, const CollectiveIndex& index) {
  std::vector<CollectiveTrait> out(index.collectives.size());
  const SampleTraitIndex traits(logs);
  if (!traits.any()) return out;
  parallelFor(index.collectives.size(), [&](size_t c) { out[c] = commonTrait(traits, index, index.collectives[c]); });
  return out;
}

std::vector<TagGroup> groupByTag(const ProfileLogs& logs, const CollectiveIndex& index,
                                 const std::vector<CollectiveTrait>& traits, const LatenessResult& measured,
                                 const StragglerOptions& options) {
  std::map<GroupKey, std::vector<size_t>> members;
  for (size_t c = 0; c < traits.size(); ++c) members[keyOf(traits[c])].push_back(c);
  const bool plain = members.size() == 1 && members.begin()->first == keyOf(CollectiveTrait{});
  std::vector<TagGroup> out;
  if (members.empty() || plain) return out;
  for (const auto& [key, collectives] : members) {
    TagGroup group;
    std::tie(group.tagged, group.userTag, group.path) = key;
    group.collectives = collectives.size();
    for (size_t c : collectives) group.mixed += traits[c].mixed ? 1 : 0;
    findRanks(logs, index, collectives, measured, options, &group);
    out.push_back(std::move(group));
  }
  return out;
}

TagNames parseTagNames(std::string_view text) {
  TagNames names;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const size_t equals = item.find('=');
    const std::string_view tag = item.substr(0, equals);
    uint64_t value = 0;
    const auto [end, error] = std::from_chars(tag.data(), tag.data() + tag.size(), value);
    if (equals == std::string_view::npos || tag.empty() || error != std::errc() || end != tag.data() + tag.size() ||
        equals + 1 == item.size())
      throw std::invalid_argument("--tag-names: '" + std::string(item) +
                                  "': expected TAG=NAME, TAG an unsigned 64-bit integer");
    if (!names.try_emplace(value, std::string(item.substr(equals + 1))).second)
      throw std::invalid_argument("--tag-names: tag " + std::to_string(value) + " named twice");
  }
  return names;
}

}  // namespace railtune::analysis::profile
