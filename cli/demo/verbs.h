// The verbs half of `railtune demo`: a short emulated job (8 ranks on 2 trays of the built-in cluster) over
// railtune's verbs transport on the verbs simulator (`railtune emu net-job --transport ib`), its path logs
// under DIR/verbs/paths/, then each connection's HCA, GID and QPs as the path log recorded them.
#pragma once

#include <filesystem>

namespace railtune::cli {

// Runs the job with `netPlugin` and the simulator `verbsLibrary`, prints the connections' verbs facts. Returns
// the number of problems: 0 when every byte was verified and every connection's record carries its verbs
// facts (transport ib, an mlx5 HCA, a GID, at least one QP). Throws std::runtime_error when the job cannot run.
// The plugins' WARNs are printed on stderr, once each, and their number added to `pluginWarnings`.
int writeDemoVerbs(const std::filesystem::path& dir, const std::filesystem::path& netPlugin,
                   const std::filesystem::path& verbsLibrary, size_t& pluginWarnings);

}  // namespace railtune::cli
