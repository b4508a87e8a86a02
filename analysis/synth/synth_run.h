// What `railtune paths synth` does around the job (synth_job.h): placing it on the cluster given, saying what
// was injected, preparing the folder it is written to, and writing the truth.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analysis/synth/synth_job.h"

namespace railtune::analysis::synth {

// The job OPTIONS describe, with the named offenders LATE ("rank:5:150", offenders.h), placed on the cluster
// of FABRIC or RAIL_MAP (the built-in one when both are ""). Throws SynthError when the cluster holds fewer
// GPUs than the job's ranks (saying how to give a larger one), or as rail_map_source.h and synth_job.h do.
std::unique_ptr<SynthJob> planSynthJob(SynthOptions options, const std::string& fabric, const std::string& railMap,
                                       const std::vector<std::string>& late);

// The job's shape and every offender and cross-rail connection injected, one line each.
std::string renderSynthPlan(const SynthJob& job);

// Why no path log will be written when every rank is in one NCCL node; "" when some connection uses the network.
std::string noNetworkNote(const SynthJob& job);

// Makes DIR, a new or empty folder (files of an earlier job beside the new ones would be analysed with them),
// and returns the bytes free there (0: unknown). Throws SynthError when it is not empty, cannot be made, or has
// less than NEED_BYTES and 5 % more free.
uint64_t prepareOutDir(const std::string& dir, uint64_t needBytes);

// truth.json (truth.h) at PATH. Throws SynthError naming PATH when it cannot be written.
void writeTruthFile(const SynthJob& job, const std::string& path);

std::string gigabytesText(uint64_t bytes);  // "12.3 GB"

}  // namespace railtune::analysis::synth
