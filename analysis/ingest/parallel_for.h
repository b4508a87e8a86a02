// fn(0) .. fn(n-1) on hardware_concurrency() threads (the caller's among them), each index once, in no set
// order: how the analyses read many files, or work through many items, at once.
#pragma once

#include <cstddef>
#include <functional>

namespace railtune::analysis::ingest {

void parallelFor(size_t n, const std::function<void(size_t)>& fn);

}  // namespace railtune::analysis::ingest
