// A helper shared by the rendering and the parsing of path log records; not part of the interface.
#pragma once

#include <cstdint>
#include <optional>

namespace railtune::net::pathlog::detail {

// Whether the connection's rail is the one its GPU maps to; empty when either is unknown (-1).
std::optional<bool> railMatch(int expectedRail, int actualRail);

}  // namespace railtune::net::pathlog::detail
