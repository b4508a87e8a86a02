// The `paths` suite (docs/accuracy.md): `railtune paths check` and `render` scored against injected truth.
#pragma once

#include <memory>

#include "eval/common/suite.h"

namespace railtune::eval {

std::unique_ptr<Suite> makePathsSuite();

}  // namespace railtune::eval
