// Pieces both SVG views share (path_render_svg_parts.cc): the opening tag with its style sheet, the
// heading, and the legend.
#pragma once

#include <string>
#include <vector>

#include "analysis/paths/path_render.h"

namespace railtune::analysis::paths::svg {

// "<svg ...>" with the style sheet, the <title> and the heading line. `view` is "detail" or "racks".
std::string open(int width, int height, const std::string& view, const std::string& job, const std::string& heading);

// The legend (<g id="legend">): one swatch per rail present, the width scale, the violation style, and
// the rack badge in the racks view.
std::string legend(const std::vector<RailSwitch>& switches, bool rackBadge);

// `name="value"` with the value escaped, preceded by a space.
std::string attr(const char* name, const std::string& value);
std::string attr(const char* name, long long value);

}  // namespace railtune::analysis::paths::svg
