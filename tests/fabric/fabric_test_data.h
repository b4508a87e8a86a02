// Where the fabric tests' own cluster descriptions are (tests/data/fabric), shared by the test files.
#pragma once

#include <string>

namespace railtune::fabric {

inline const std::string kFabricData = RAILTUNE_FABRIC_TEST_DATA;

}  // namespace railtune::fabric
