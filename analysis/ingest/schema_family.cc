#include "analysis/ingest/schema_family.h"

#include "formats/schemas.h"

namespace railtune::analysis::ingest {

SchemaFamily schemaFamily(std::string_view schema) {
  if (schema.starts_with(formats::kPathLogFamily)) return SchemaFamily::PathLog;
  if (schema.starts_with(formats::kCollectivesFamily)) return SchemaFamily::Collectives;
  if (schema.starts_with(formats::kNetFamily)) return SchemaFamily::Net;
  if (schema.starts_with("railtune.")) return SchemaFamily::OtherRailtune;
  return SchemaFamily::Foreign;
}

}  // namespace railtune::analysis::ingest
