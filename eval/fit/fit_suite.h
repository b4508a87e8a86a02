// `sweep fit`'s truth-scored evaluation (`railtune eval fit`; docs/accuracy.md, "fit").
#pragma once

#include <memory>

#include "eval/common/suite.h"

namespace railtune::eval {

std::unique_ptr<Suite> makeFitSuite();

}  // namespace railtune::eval
