// Counters of process-wide resources a plugin could leak across dlopen/dlclose cycles.
#pragma once

#include <cstddef>
#include <string>

namespace railtune::hygiene {

struct ProcessResources {
  std::size_t heapInUse = 0;  // mallinfo2().uordblks: bytes malloc has handed out and not got back
  std::size_t openFds = 0;    // entries of /proc/self/fd
  std::size_t threads = 0;    // entries of /proc/self/task
};

ProcessResources sampleResources();

// True when any line of /proc/self/maps names the given file (a mapping of that object remains).
bool isMapped(const std::string& path);

}  // namespace railtune::hygiene
