// Joins several cluster descriptions into one: what `railtune topo merge` does with the per-host
// files `railtune topo discover` writes on every node (or with hand-written parts). Domains of the
// same name become one (their hosts concatenated in input order), rail groups of the same name join
// their domains, switches of the same name must agree. Rails, planes and link layer must agree.
#pragma once

#include <vector>

#include "fabric/diagnostics.h"
#include "fabric/model.h"

namespace railtune::fabric {

// `name` = the merged cluster's name ("" = the first input's). Conflicts are errors in `out`, each
// at the position of the value that disagrees; the merged model keeps the first value.
Fabric mergeFabrics(const std::vector<Fabric>& parts, const std::string& name, Diagnostics& out);

}  // namespace railtune::fabric
