// The tuner half of `railtune demo`: the decisions table (`railtune tuner decisions`, table format) for
// the default cluster's communicators (2 GB300 NVL72 racks): one tray; one rack with and without MNNVL;
// two racks with and without MNNVL. Written under DIR/tuner/, with a short summary on stdout.
#pragma once

#include <filesystem>

namespace railtune::cli {

// Loads `tunerPlugin` once per communicator as NCCL 2.30 would, with the rules and rail map the
// environment names (RAILTUNE_TUNER_CONFIG, RAILTUNE_RAIL_MAP), as the plugin would read them. Returns
// the number of decisions where the plugin disagreed with its rules (MISMATCH rows; 0 when sound).
// Throws std::runtime_error when a table cannot be computed or written.
int writeDemoTuner(const std::filesystem::path& dir, const std::filesystem::path& tunerPlugin);

}  // namespace railtune::cli
