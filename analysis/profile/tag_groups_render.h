// The user-tag and path groups of `profile stragglers` (tag_groups.h) as JSON and as a table, and a
// tag's name as --tag-names gives it.
#pragma once

#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/profile/stragglers.h"

namespace railtune::analysis::profile {

// "forward (1)", "tag 7", "untagged".
std::string tagLabel(bool tagged, uint64_t tag, const TagNames& names);

// {"user_tag": 1 | null, "tag_name": "forward" | null, "path": "tuned"}: the keys every tagged thing carries.
void addTagKeys(nlohmann::json& out, const CollectiveTrait& trait, const TagNames& names);

nlohmann::json tagGroupsJson(const std::vector<TagGroup>& groups, const TagNames& names);
void tagGroupsTable(const std::vector<TagGroup>& groups, const TagNames& names, std::ostringstream& out);

}  // namespace railtune::analysis::profile
