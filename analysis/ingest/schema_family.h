// Which of railtune's logs a line belongs to, by the family of its schema (formats/schemas.h): the one
// classification both analyses use. By family rather than by the exact string, so that a line of a
// version this build cannot read ("railtune.path_log.v2") is recognised and named, not taken for a
// stranger's file.
#pragma once

#include <string_view>

namespace railtune::analysis::ingest {

enum class SchemaFamily {
  PathLog,        // railtune.path_log.*
  Collectives,    // railtune.profile.collectives.*
  Net,            // railtune.profile.net.*
  OtherRailtune,  // another railtune output ("railtune.rail_map.v1", a report kept beside the logs)
  Foreign,        // no railtune schema
};

SchemaFamily schemaFamily(std::string_view schema);

}  // namespace railtune::analysis::ingest
