// Every truth-scored evaluation railtune has, one per analysis (docs/accuracy.md).
#pragma once

#include <memory>
#include <vector>

#include "eval/common/suite.h"

namespace railtune::eval {

// In the order `railtune eval` runs them with no suite named.
std::vector<std::unique_ptr<Suite>> allSuites();

}  // namespace railtune::eval
