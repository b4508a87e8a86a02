// Settling a LogSet (log_settle.cc): what LogSetBuilder::finish and readLogs do once every line is read, and
// the communicator ties both need. Not part of the interface.
#pragma once

#include <cstddef>

#include "analysis/nccl_log/log_set.h"

namespace railtune::analysis::nccl_log {

// The lines of a process kept while it is not established: enough to name a splice's lines one by one.
constexpr size_t kUnconfirmedKept = 256;

// The communicator a Channel line of `rank` on thread `tid` belongs to: the latest announced on the same
// thread with that rank, else the only one in the process with that rank; -1 when the log cannot say.
int commOf(const Process& process, int tid, int rank);

// The communicator a Channel line belongs to, once its file is read. From 2.18.3 a communicator's "Init START"
// precedes its Channel lines; before, its only line ("Init COMPLETE") follows them (init.cc: v2.16.5
// init.cc:1109, v2.18.6 init.cc:1356): a line is tied to the next such line of its thread and rank, else to
// the latest before it, else to the process's only communicator of its rank.
int commOfLine(const Process& process, const NetConnection& c);

// Spliced headers' processes removed (each of their lines a bad line, named), every connection tied to its
// communicator, repeated connections dropped, and the processes sorted by host, then pid.
void settle(LogSet& set);

}  // namespace railtune::analysis::nccl_log
