// A stand-in for libhwloc that exports every function railtune looks up but reports the hwloc 1.11
// API, so the test can check that the live reader refuses an ABI it was not written for before it
// calls anything else. Only hwloc_get_api_version may be called; the others abort to prove it.
#include <cstdlib>

extern "C" {
__attribute__((visibility("default"))) unsigned hwloc_get_api_version() {
  return 0x10b00;
}
__attribute__((visibility("default"))) int hwloc_topology_init(void*) {
  std::abort();
}
__attribute__((visibility("default"))) int hwloc_topology_set_io_types_filter(void*, int) {
  std::abort();
}
__attribute__((visibility("default"))) int hwloc_topology_load(void*) {
  std::abort();
}
__attribute__((visibility("default"))) int hwloc_topology_export_xmlbuffer(void*, char**, int*, unsigned long) {
  std::abort();
}
__attribute__((visibility("default"))) void hwloc_free_xmlbuffer(void*, char*) {
  std::abort();
}
__attribute__((visibility("default"))) void hwloc_topology_destroy(void*) {
  std::abort();
}
}
