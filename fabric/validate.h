// The fabric model's own consistency checks, run by `railtune topo check` after reading a
// description. Each finding names the place that declared the offending value.
#pragma once

#include "fabric/diagnostics.h"
#include "fabric/model.h"

namespace railtune::fabric {

// Appends to `out`: host and domain names that are not DNS-1123 names and rack names that are not
// Kubernetes label values (formats/names.h), duplicate host names, duplicate PCI bus ids on a host, NICs without a
// rail, rails or planes that differ between hosts, GPUs with fewer NVLinks than their profile, domains in two rail
// groups (or in none), and missing leaves for a (rail group, rail, plane).
void validate(const Fabric& fabric, Diagnostics& out);

}  // namespace railtune::fabric
