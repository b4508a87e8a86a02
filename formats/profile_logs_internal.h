// Helpers shared by the rendering and the parsing of the profiler's records; not part of the interface.
#pragma once

#include "formats/profile_record.h"

namespace railtune::formats::profile::detail {

// Whether a flow says anything about its NIC (otherwise "nic" is written as null).
bool nicKnown(const NetFlow& flow);

}  // namespace railtune::formats::profile::detail
