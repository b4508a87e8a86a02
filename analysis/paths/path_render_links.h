// Internal to buildPathGraph: turning connection records into links (path_render_links.cc).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "analysis/paths/path_render.h"

namespace railtune::analysis::paths {

// Places one end (host, HCA, CUDA device or -1, rank or -1) in the graph being built.
using EndLocator = std::function<LinkEnd(const std::string& host, const std::string& hca, int gpu, int rank)>;

std::vector<RenderLink> buildLinks(const JobPaths& job, const CheckReport& report, const EndLocator& locate);

}  // namespace railtune::analysis::paths
