// Linked into every plugin (as an object, so that the linker keeps it). A plugin carries its own
// static copy of libstdc++, whose exception-handling emergency pool is allocated at load time; when
// NCCL unloads the plugin nothing frees it, and 1,000 load/unload cycles would leak 1,000 pools.
// libstdc++ offers __gnu_cxx::__freeres() for exactly this. Sanitizer builds keep the C++ runtime
// shared (one pool for the process), so there the call would free the process's pool: skip it.
#ifdef RAILTUNE_STATIC_CXX_RUNTIME
namespace __gnu_cxx {
void __freeres() noexcept;  // libstdc++ (eh_alloc.cc); not declared in any public header
}

namespace {
__attribute__((destructor)) void releaseStaticCxxRuntime() {
  __gnu_cxx::__freeres();
}
}  // namespace
#endif
