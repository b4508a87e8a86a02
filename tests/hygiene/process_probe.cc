#include "tests/hygiene/process_probe.h"

#include <dirent.h>
#include <malloc.h>

#include <cstdio>
#include <cstring>

namespace railtune::hygiene {
namespace {

// Counts directory entries without allocating (opendir's own fd is counted in both samples alike).
std::size_t countEntries(const char* dir) {
  DIR* d = opendir(dir);
  if (d == nullptr) return 0;
  std::size_t n = 0;
  while (const dirent* e = readdir(d))
    if (e->d_name[0] != '.') ++n;
  closedir(d);
  return n;
}

}  // namespace

ProcessResources sampleResources() {
  ProcessResources r;
  r.heapInUse = mallinfo2().uordblks;
  r.openFds = countEntries("/proc/self/fd");
  r.threads = countEntries("/proc/self/task");
  return r;
}

bool isMapped(const std::string& path) {
  FILE* maps = std::fopen("/proc/self/maps", "re");
  if (maps == nullptr) return false;
  char line[4096];
  bool found = false;
  while (!found && std::fgets(line, sizeof(line), maps) != nullptr) found = std::strstr(line, path.c_str()) != nullptr;
  std::fclose(maps);
  return found;
}

}  // namespace railtune::hygiene
