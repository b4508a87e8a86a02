// Slurm hostlist expressions: "rack01-tray[00-17],login1". Names that end in digits and share the
// text before them and the digit count are folded into one bracket; order of first appearance is
// kept, so the expression lists the hosts in the fabric's order where it can.
#pragma once

#include <string>
#include <vector>

namespace railtune::topo {

std::string compressHostlist(const std::vector<std::string>& hosts);

// The inverse (for tests and checks): throws std::invalid_argument on an unbalanced bracket or a
// malformed range.
std::vector<std::string> expandHostlist(const std::string& expression);

}  // namespace railtune::topo
