// The NCCL-log import's truth-scored evaluation (`railtune eval import`; docs/accuracy.md).
#pragma once

#include <memory>

#include "eval/common/suite.h"

namespace railtune::eval {

std::unique_ptr<Suite> makeImportSuite();

}  // namespace railtune::eval
