// How the check names things in its messages. Internal to railtune_paths.
#pragma once

#include <cstdint>
#include <string>

#include "analysis/paths/path_model.h"

namespace railtune::analysis::paths::detail {

std::string rankText(int rank);          // "rank 3", "rank ?"
std::string railText(int rail);          // "rail 1", "rail ?"
std::string hexDigest(uint64_t digest);  // 16 lowercase hex digits
// "rank 4 on gb300-r02-t01 mlx5_0 (rail 0)": an end as its peer sees it.
std::string endText(const ConnectionEnd& end);

}  // namespace railtune::analysis::paths::detail
