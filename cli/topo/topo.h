// Shared by the `railtune topo ...` subcommands (topo.cc holds the group, one file per subcommand).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "fabric/diagnostics.h"
#include "fabric/model.h"

namespace railtune::cli {

// Adds `--fabric FILE` (default: the embedded default cluster) writing the path into `path`.
void addFabricOption(CLI::App& app, std::string& path);

// The fabric `--fabric` names; throws fabric::FabricError with file:line:column on a bad file.
fabric::Fabric loadFabricOption(const std::string& path);

// The same, recording a bad file in `diagnostics` (and returning an empty model) instead of throwing.
fabric::Fabric loadFabricOption(const std::string& path, fabric::Diagnostics& diagnostics);

// Writes a subcommand's text to `outPath`, or to stdout when it is empty; throws naming the file when
// it cannot be written. Returns the exit code (1 when stdout failed).
int writeOutput(const std::string& text, const std::string& outPath);

}  // namespace railtune::cli
