#include "common/identity.h"

#include <unistd.h>

#include <climits>
#include <optional>

namespace railtune {
namespace {

std::optional<std::string> nonEmpty(EnvLookup env, const char* name) {
  std::optional<std::string> value = env ? env(name) : std::nullopt;
  if (value && value->empty()) return std::nullopt;
  return value;
}

std::string machineHostname() {
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "unknown";
  return name;
}

}  // namespace

Identity resolveIdentity(EnvLookup env) {
  Identity id;
  if (auto host = nonEmpty(env, "RAILTUNE_HOST")) {
    id.host = *host;
  } else if (auto hostId = nonEmpty(env, "NCCL_HOSTID")) {
    id.host = *hostId;  // NCCL_HOSTID replaces NCCL's whole host string; we follow it
  } else {
    id.host = machineHostname();
  }
  if (auto job = nonEmpty(env, "RAILTUNE_JOB_ID")) {
    id.job = *job;
  } else if (auto slurm = nonEmpty(env, "SLURM_JOB_ID")) {
    id.job = *slurm;
  } else if (auto k8s = nonEmpty(env, "RAILTUNE_K8S_JOB")) {
    id.job = *k8s;
  } else {
    id.job = "unknown";
  }
  id.pid = static_cast<int>(getpid());
  return id;
}

}  // namespace railtune
