// Who wrote a record (architecture rule 6): every JSONL record carries job, host and pid so that
// records from many hosts and processes can be joined.
#pragma once

#include <string>

#include "common/params.h"

namespace railtune {

struct Identity {
  std::string host;  // RAILTUNE_HOST, else NCCL_HOSTID, else the hostname
  std::string job;   // RAILTUNE_JOB_ID, else SLURM_JOB_ID, else RAILTUNE_K8S_JOB, else "unknown"
  int pid = 0;
};

// An empty variable counts as unset: launchers often export VAR= for "not applicable".
Identity resolveIdentity(EnvLookup env = processEnv);

}  // namespace railtune
