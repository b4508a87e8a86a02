// nccl-tests' -R (buffer registration), -D (device-API implementation) and -x (CTA policy) among the arguments
// `sweep run` passes to the binary (dataset/call_mode.h): read and checked before the first run, so that a sweep
// asks only what its nccl-tests offers, and recorded in the manifest and in every dataset row.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "nccl-tests-integration/dataset/call_mode.h"

namespace railtune::sweep {

// The flags among args (the binary's arguments, without the binary). Throws std::invalid_argument for a value that
// is not a number nccl-tests reads, for -R other than 0/1/2, -x other than 0/1/2, and for -D > 0 without -R 2
// (nccl-tests refuses it: src/common.cu:1413@v2.19.6).
CallMode readCallOptions(const std::vector<std::string>& args);

// Why the binary whose `-h` text this is cannot honour the flags ("" when it can): -R 2 needs nccl-tests 2.16.0
// ("--local_register <0/1/2>"), -D and -x need 2.17.0 ("--device_implementation", "--cta_policy").
std::string unsupportedCallOptions(const CallMode& call, std::string_view helpText);

// What the user is told of a sweep with such flags.
std::vector<std::string> callOptionNotes(const CallMode& call);

}  // namespace railtune::sweep
