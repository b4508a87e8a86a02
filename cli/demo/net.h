// The net half of `railtune demo`: an emulated job of 16 ranks over two racks of the default cluster
// (emu net-job), one rank's NIC deliberately miswired through RAILTUNE_NET_FAULT_MISBIND, the path
// logs written under DIR/net/paths/, then read back to show which connections crossed rails; the
// profiler plugin (beside the net plugin) records the same job under DIR/profile/, summarised after.
#pragma once

#include <filesystem>

namespace railtune::cli {

// Runs the job with `netPlugin`, prints the cross-rail connections and a short explanation. Returns
// the number of problems: 0 when every byte was verified, the path logs show exactly the injected
// rank's connections off their rail, and the profile holds one record per collective call and rank. Throws
// std::runtime_error when the job cannot be run.
// The plugins' WARNs are printed on stderr, once each, and their number added to `pluginWarnings`.
int writeDemoNet(const std::filesystem::path& dir, const std::filesystem::path& netPlugin, size_t& pluginWarnings);

}  // namespace railtune::cli
