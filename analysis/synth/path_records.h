// The path log of one synthetic rank, written with the net plugin's own renderer
// (formats::path_log::renderRecord), so its bytes are what the plugin would write: per connection a connect
// record (at setup), one snapshot (half-way through the collectives) and a close (after the last one),
// sends first, then receives. Both ends agree: the sender's send record and the receiver's recv
// record name each other (host, pid, device, HCA, rail), the same comm, equal digests and the same
// bytes and messages. As the plugin does, a send record carries the writer's rank and a receive
// record the sender's (remote.rank), from NCCL's tags.
#pragma once

#include <string>

#include "analysis/synth/synth_job.h"
#include "formats/path_log.h"

namespace railtune::analysis::synth {

// The connect records of rank `rank`'s connections on `channel`: the send to its ring successor and
// the receive from its ring predecessor. Only for ranks with network peers.
formats::path_log::PathRecord sendConnect(const SynthJob& job, int rank, int channel);
formats::path_log::PathRecord recvConnect(const SynthJob& job, int rank, int channel);

// Traffic every connection has carried by true time `untilNs` (the same on every channel and ring).
formats::path_log::Traffic trafficUntil(const SynthJob& job, int64_t untilNs);

// The whole file, newline-terminated lines; empty for a rank without network peers.
std::string renderPathLog(const SynthJob& job, int rank);

}  // namespace railtune::analysis::synth
