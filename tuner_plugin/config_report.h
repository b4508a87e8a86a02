// Configuration problems the tuner finds at init (a bad variable, a rules file or rail map that cannot
// be read or parsed) are printed at WARN once per process, not once per communicator: a process
// creates many communicators from the same environment and the same files, and one WARN says it all.
// Later communicators that meet the same problem log it at INFO. Under RAILTUNE_STRICT=1 every init
// that fails still says why at WARN (the boundary decides that; see docs/tuning.md).
#pragma once

#include <cstddef>
#include <string>

namespace railtune::tuner {

// At most this many distinct problems are remembered; past that, each new one is printed at WARN every
// time (a WARN too many rather than none).
inline constexpr size_t kMaxRememberedConfigProblems = 64;

// True for the first caller in this process that reports `problem` (the whole message text). Thread
// safe; init only, never on NCCL's enqueue path.
bool firstReportOf(const std::string& problem);

// Forgets every problem reported so far (tests that reuse one process).
void forgetReportedConfigProblems();

}  // namespace railtune::tuner
