// The profiler's files of one synthetic rank, written with the profiler plugin's own renderers
// (formats::profile::renderCollectiveLine, renderNetLine): one collective-log line per collective of
// the job's one communicator, with the timing of timeline.h on the rank's host clocks; and, when asked
// for, one network-summary line per collective with its flows (per channel, a send to the ring
// successor and a receive from the predecessor, on the NICs the path log names).
#pragma once

#include <string>

#include "analysis/synth/synth_job.h"
#include "formats/profile_record.h"

namespace railtune::analysis::synth {

// Collective `seq` as rank `rank` recorded it (without flows).
formats::profile::OperationRecord collectiveRecord(const SynthJob& job, int rank, size_t seq);

// Appends the rank's whole collective log (newline-terminated lines) to `out`.
void appendCollectiveLog(const SynthJob& job, int rank, std::string& out);

// Appends the rank's network summary to `out`; nothing for a rank without network peers.
void appendNetLog(const SynthJob& job, int rank, std::string& out);

}  // namespace railtune::analysis::synth
