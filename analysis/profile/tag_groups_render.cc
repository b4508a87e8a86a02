// Rendering of the user-tag and path groups (tag_groups_render.h).
#include "analysis/profile/tag_groups_render.h"

#include <cmath>
#include <cstdio>

#include "analysis/profile/stragglers_render.h"

namespace railtune::analysis::profile {
namespace {

using nlohmann::json;

std::string groupOneDecimal(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

}  // namespace

std::string tagLabel(bool tagged, uint64_t tag, const TagNames& names) {
  if (!tagged) return "untagged";
  const auto it = names.find(tag);
  return it != names.end() ? it->second + " (" + std::to_string(tag) + ")" : "tag " + std::to_string(tag);
}

void addTagKeys(json& out, const CollectiveTrait& trait, const TagNames& names) {
  const auto name = trait.tagged ? names.find(trait.userTag) : names.end();
  out["user_tag"] = trait.tagged ? json(trait.userTag) : json(nullptr);
  out["tag_name"] = name != names.end() ? json(name->second) : json(nullptr);
  out["path"] = formats::profile::operationPathName(trait.path);
}

json tagGroupsJson(const std::vector<TagGroup>& groups, const TagNames& names) {
  json out = json::array();
  for (const TagGroup& g : groups) {
    json offenders = json::array();
    for (const Offender& o : g.offenders) offenders.push_back(offenderJson(o));
    json group{{"collectives", g.collectives},
               {"late_events", g.lateEvents},
               {"mixed_collectives", g.mixed},
               {"offenders", offenders}};
    addTagKeys(group, CollectiveTrait{g.tagged, g.userTag, g.path, false}, names);
    out.push_back(std::move(group));
  }
  return out;
}

void tagGroupsTable(const std::vector<TagGroup>& groups, const TagNames& names, std::ostringstream& out) {
  if (groups.empty()) return;
  out << "by user tag and path (a symmetric-kernel or copy-engine collective is NCCL's choice without the tuner:\n"
         "never pooled with tuned ones): "
      << groups.size() << " groups\n";
  for (const TagGroup& g : groups) {
    out << "  " << tagLabel(g.tagged, g.userTag, names) << ", " << formats::profile::operationPathName(g.path) << ": "
        << g.collectives << " collectives, " << g.lateEvents << " late events";
    if (g.mixed > 0) out << ", " << g.mixed << " whose ranks named different tags or paths";
    if (g.offenders.empty()) out << "; none of the offenders above persistently late here";
    out << "\n";
    for (const Offender& o : g.offenders)
      out << "    " << (o.level == Level::Rank ? "" : std::string(levelName(o.level)) + " ") << offenderName(o)
          << ": late in " << o.collectivesLate << "/" << o.collectives << ", median "
          << groupOneDecimal(o.medianLatenessUs) << " us, cause " << causeName(o.cause) << "\n";
  }
}

}  // namespace railtune::analysis::profile
