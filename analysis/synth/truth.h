// What a synthetic job really contains (railtune.synth_truth.v1, docs/formats/synth-truth.schema.json):
// the job's shape, each injected offender with its level (rank, tray, rack), the collectives it was
// late in and by how much, and each injected cross-rail connection as both its ends logged it. The
// analyses (`railtune paths check`, `railtune profile stragglers`) are measured against it.
#pragma once

#include <string>

#include "analysis/synth/synth_job.h"
#include "formats/schemas.h"

namespace railtune::analysis::synth {

// JSON, 2-space indented, keys sorted, newline-terminated.
std::string renderTruth(const SynthJob& job);

}  // namespace railtune::analysis::synth
