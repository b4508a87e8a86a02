// Grouping by user tag and path (tag_groups.h).
#include "analysis/profile/tag_groups.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <tuple>

namespace railtune::analysis::profile {
namespace {

using formats::profile::OperationPath;

using GroupKey = std::tuple<bool, uint64_t, OperationPath>;

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

// Where an offender is in the tables: its stream (rank), tray or rack index.
struct Who {
  Level level = Level::Rank;
  uint32_t index = kNone;
};

Who locate(const ProfileLogs& logs, const CollectiveIndex& index, const Placement& p, const Offender& o) {
  auto find = [](const std::vector<std::string>& names, const std::string& name) {
    const auto it = std::find(names.begin(), names.end(), name);
    return it == names.end() ? kNone : static_cast<uint32_t>(it - names.begin());
  };
  if (o.level == Level::Rack) return {o.level, find(p.rackNames, o.rack)};
  if (o.level == Level::Tray) return {o.level, find(p.trayNames, o.host)};
  for (uint32_t s = 0; s < logs.streams.size(); ++s) {
    const Stream& st = logs.streams[s];
    if (index.streamComm[s] != kNone && st.rank == o.rank && st.hasComm == o.hasComm && st.comm == o.comm &&
        logs.hosts[st.host] == o.host)
      return {o.level, s};
  }
  return {o.level, kNone};
}

// Whether the offender took part in collective c, and its lateness there when it was late.
bool tookPart(const ProfileLogs& logs, const CollectiveIndex& index, const Placement& p, const Who& who, size_t c) {
  const Collective& col = index.collectives[c];
  for (uint32_t i = col.begin; i < col.end; ++i) {
    const uint32_t stream = logs.samples[index.order[i]].stream, tray = p.trayOfStream[stream];
    if ((who.level == Level::Rank && stream == who.index) || (who.level == Level::Tray && tray == who.index) ||
        (who.level == Level::Rack && tray != kNone && p.rackOfTray[tray] == who.index))
      return true;
  }
  return false;
}

const LateEvent* lateEventOf(const CollectiveOutcome& o, uint32_t stream) {
  for (const LateEvent& e : o.late)
    if (e.stream == stream) return &e;
  return nullptr;
}

const GroupLate* groupLateOf(const std::vector<GroupLate>& groups, uint32_t group) {
  for (const GroupLate& g : groups)
    if (g.group == group) return &g;
  return nullptr;
}

// The offender restricted to the group's collectives; collectivesLate 0 when it was never late there.
Offender withinGroup(const ProfileLogs& logs, const CollectiveIndex& index, const Placement& p,
                     const LatenessResult& measured, const std::vector<size_t>& collectives, const Offender& named) {
  const Who who = locate(logs, index, p, named);
  Offender o = named;
  o.collectives = o.collectivesLate = o.lateArrivals = o.slowComputes = 0;
  if (who.index == kNone) return o;
  std::vector<int64_t> lateness, arrival;
  CauseTally causes;
  for (size_t c : collectives) {
    if (!tookPart(logs, index, p, who, c)) continue;
    ++o.collectives;
    const CollectiveOutcome& out = measured.outcomes[c];
    const LateEvent* e = who.level == Level::Rank ? lateEventOf(out, who.index) : nullptr;
    const GroupLate* g = who.level == Level::Tray   ? groupLateOf(out.trays, who.index)
                         : who.level == Level::Rack ? groupLateOf(out.racks, who.index)
                                                    : nullptr;
    if (e == nullptr && g == nullptr) continue;
    lateness.push_back(e != nullptr ? e->latenessNs : g->latenessNs);
    arrival.push_back(e != nullptr ? e->arrivalNs : g->arrivalNs);
    causes.add(e != nullptr ? e->cause : g->cause);
  }
  o.collectivesLate = lateness.size();
  if (lateness.empty()) return o;
  o.medianLatenessUs = static_cast<double>(medianOf(lateness)) / 1000.0;
  o.p90LatenessUs = static_cast<double>(percentileOf(lateness, 0.9)) / 1000.0;
  const int64_t a = medianOfKnown(arrival);
  o.medianArrivalLatenessUs = a == kUnknownArrival ? std::nan("") : static_cast<double>(a) / 1000.0;
  o.cause = causes.verdict();
  o.lateArrivals = causes.lateArrival, o.slowComputes = causes.slowCompute;
  return o;
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
                                 const Placement& placement, const std::vector<Offender>& offenders,
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
    for (size_t c : collectives) {
      group.mixed += traits[c].mixed ? 1 : 0;
      group.lateEvents += measured.outcomes[c].late.size();
    }
    // Persistent within the group, by the same rule as in the whole job.
    for (const Offender& named : offenders) {
      Offender o = withinGroup(logs, index, placement, measured, collectives, named);
      if (o.collectivesLate >= options.minCollectives &&
          static_cast<double>(o.collectivesLate) >= options.minShare * static_cast<double>(o.collectives))
        group.offenders.push_back(std::move(o));
    }
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
