#include "nccl-tests-integration/run/call_options.h"

#include <stdexcept>

namespace railtune::sweep {

CallMode readCallOptions(const std::vector<std::string>& args) {
  std::vector<std::string> argv{"nccl-tests"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string problem;
  const CallMode call = callModeFromArgs(argv, &problem);
  if (!problem.empty()) throw std::invalid_argument(problem);
  if (call.registration < 0 || call.registration > 2)
    throw std::invalid_argument("-R " + std::to_string(call.registration) + ": nccl-tests takes 0, 1 or 2");
  if (call.ctaPolicy < -1 || call.ctaPolicy > 2)
    throw std::invalid_argument("-x " + std::to_string(call.ctaPolicy) + ": nccl-tests takes 0, 1 or 2");
  if (call.deviceImpl > 0 && call.registration != 2)
    throw std::invalid_argument("-D " + std::to_string(call.deviceImpl) +
                                " needs -R 2: nccl-tests runs its device-API kernels on symmetric windows only");
  return call;
}

std::string unsupportedCallOptions(const CallMode& call, std::string_view helpText) {
  if (call.registration == 2 && helpText.find("local_register <0/1/2>") == std::string_view::npos)
    return "-R 2: this nccl-tests offers no symmetric registration (nccl-tests 2.16.0 added it)";
  if (call.deviceImpl > 0 && helpText.find("--device_implementation") == std::string_view::npos)
    return "-D: this nccl-tests has no device-API implementations (nccl-tests 2.17.0 added them)";
  if (call.ctaPolicy != -1 && helpText.find("--cta_policy") == std::string_view::npos)
    return "-x: this nccl-tests cannot set the CTA policy (nccl-tests 2.17.0 added it)";
  return "";
}

std::vector<std::string> callOptionNotes(const CallMode& call) {
  std::vector<std::string> notes;
  if (call.deviceImpl > 0)
    notes.push_back("-D " + std::to_string(call.deviceImpl) +
                    ": nccl-tests runs its own device-API kernels, not NCCL's collective; no NCCL_ALGO/NCCL_PROTO "
                    "choice applies and `sweep rules`/`sweep fit` leave these rows out");
  else if (call.registration == 2)
    notes.push_back(
        "-R 2: with symmetric windows NCCL may run AllReduce, AllGather and ReduceScatter with symmetric "
        "kernels or the copy engines without the tuner (railtune tuner decisions --registration symmetric "
        "shows where); every row records it and `sweep rules`/`sweep fit` leave those rows out");
  if (call.ctaPolicy == 2)
    notes.push_back("-x 2: CTA policy ZERO sends AllGather on symmetric windows to the copy engines");
  return notes;
}

}  // namespace railtune::sweep
