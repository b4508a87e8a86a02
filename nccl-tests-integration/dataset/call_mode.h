// How an nccl-tests run called NCCL besides the algorithm and protocol it forced: buffer registration (-R),
// nccl-tests' own device-API kernels (-D) and the communicator's CTA policy (-x). Read from the run's argv (the
// sweep manifest's command, a -J file's "args"), written in each dataset row ("call"), and used by `sweep rules`,
// `sweep fit` and `sweep compare` to keep rows NCCL may have run without the tuner away from the tuned ones
// (docs/sweep.md, "Symmetric memory and device-API runs").
//
// nccl-tests (src/common.cu@v2.19.6): -R 0/1/2 none/local (ncclCommRegister)/symmetric (ncclCommWindowRegister,
// from nccl-tests 2.16.0; -R 2 falls back to 1 before NCCL 2.27); -D N > 0 runs the test's own device-API kernel
// (from nccl-tests 2.17.0, NCCL 2.28+, requires -R 2); -x 0/1/2 sets ncclConfig_t.CTAPolicy (2.17.0, NCCL 2.27+).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace railtune::sweep {

struct CallMode {
  int registration = 0;  // -R: 0 none, 1 local, 2 symmetric
  int deviceImpl = 0;    // -D: 0 NCCL's collective; N > 0 nccl-tests' device-API implementation N
  int ctaPolicy = -1;    // -x: -1 not given; 0 default, 1 efficiency, 2 zero
  bool operator==(const CallMode&) const = default;
  bool isDefault() const { return *this == CallMode{}; }
  std::string label() const;  // "-R 2 -D 1 -x 2" (the flags given), "" when default
};

const char* registrationLabel(int registration);  // "none", "local", "symmetric", "unknown"
const char* ctaPolicyLabel(int ctaPolicy);        // "default", "efficiency", "zero", "unset"/"unknown"

// The flags of an nccl-tests argv, in getopt_long's spellings (-R 2, -R2, --local_register 2,
// --local_register=2; the same for -D/--device_implementation and -x/--cta_policy). A value that is not a
// number is left at its default and named in *problem (when given).
CallMode callModeFromArgs(const std::vector<std::string>& argv, std::string* problem = nullptr);

// Whether NCCL, or nccl-tests itself, may have run a row's collective without asking the tuner: nccl-tests' own
// kernels (-D > 0); symmetric windows (-R 2) for AllReduce, AllGather and ReduceScatter on one NCCL node (or
// nodes unknown: 0), where NCCL picks symmetric kernels and CE AllGather itself; across nodes an AllGather on
// symmetric windows under CTA policy ZERO (-x 2: NCCL's hierarchical CE, when its RMA proxy is up); NCCL_SYM_KERNEL or
// NCCL_SYM_NOWIN_ENABLE=1 among the variables that forced the run. (NCCL's exact conditions are
// emulator/nccl_model/bypass.h; the dataset lacks the compute capability they need, so this errs towards leaving
// a row out.)
// The label back (a dataset row's "call": "-R 2 -x 2"). Throws std::invalid_argument on anything else.
CallMode callModeFromLabel(std::string_view label);

bool mayBypassTuner(const CallMode& call, std::string_view collective, int nodes,
                    const std::map<std::string, std::string>& env);

}  // namespace railtune::sweep
