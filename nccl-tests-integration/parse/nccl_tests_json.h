// nccl-tests' JSON output (`-J FILE.json`, nccl-tests 2.17.3+) read into the same runs as the text output
// (nccl_tests_text.h): config and devices, one row per result, the footer's counts, the environment's NCCL_*
// variables as what forced the run, and NCCL's last error. Every version of the file is read: JSON version 1
// to 3, the misspelt "average_bus_bandwidith" of 2.17.3-2.17.8, booleans written as strings, "nan" for a
// number, a null #wrong. A file that is not complete JSON (a run cut short) is one diagnostic, never a throw.
#pragma once

#include <string_view>

#include "nccl-tests-integration/parse/nccl_tests_text.h"

namespace railtune::sweep {

ParsedText parseNcclTestsJson(std::string_view text);

}  // namespace railtune::sweep
