// Loading libibverbs into one table (verbs_table.h).
#include "net_plugin/transports/ib/verbs_table.h"

#include <dlfcn.h>

namespace railtune::net::ib {
namespace {

// In the version node NCCL asks for; else, as plain dlsym finds it (the default version, or an unversioned
// symbol): a library without version nodes (the strict simulator, the tests' stand-ins) must be usable, and
// while glibc's dlvsym answers unversioned symbols too, a sanitizer runtime's interposed dlvsym does not.
template <typename F>
bool lookup(void* handle, const char* name, const char* version, F* out) {
  void* symbol = dlvsym(handle, name, version);
  if (symbol == nullptr) symbol = dlsym(handle, name);
  *out = reinterpret_cast<F>(symbol);
  return symbol != nullptr;
}

// The first required symbol that is missing, or nullptr when all are there.
const char* fillRequired(void* h, VerbsTable& t) {
  constexpr const char* v = "IBVERBS_1.1";
#define RAILTUNE_REQUIRED(field, name) \
  if (!lookup(h, name, v, &t.field)) return name;
  RAILTUNE_REQUIRED(getDeviceList, "ibv_get_device_list")
  RAILTUNE_REQUIRED(freeDeviceList, "ibv_free_device_list")
  RAILTUNE_REQUIRED(getDeviceName, "ibv_get_device_name")
  RAILTUNE_REQUIRED(openDevice, "ibv_open_device")
  RAILTUNE_REQUIRED(closeDevice, "ibv_close_device")
  RAILTUNE_REQUIRED(getAsyncEvent, "ibv_get_async_event")
  RAILTUNE_REQUIRED(ackAsyncEvent, "ibv_ack_async_event")
  RAILTUNE_REQUIRED(queryDevice, "ibv_query_device")
  RAILTUNE_REQUIRED(queryPort, "ibv_query_port")
  RAILTUNE_REQUIRED(queryGid, "ibv_query_gid")
  RAILTUNE_REQUIRED(queryQp, "ibv_query_qp")
  RAILTUNE_REQUIRED(allocPd, "ibv_alloc_pd")
  RAILTUNE_REQUIRED(deallocPd, "ibv_dealloc_pd")
  RAILTUNE_REQUIRED(regMr, "ibv_reg_mr")
  RAILTUNE_REQUIRED(deregMr, "ibv_dereg_mr")
  RAILTUNE_REQUIRED(createCq, "ibv_create_cq")
  RAILTUNE_REQUIRED(destroyCq, "ibv_destroy_cq")
  RAILTUNE_REQUIRED(createQp, "ibv_create_qp")
  RAILTUNE_REQUIRED(modifyQp, "ibv_modify_qp")
  RAILTUNE_REQUIRED(destroyQp, "ibv_destroy_qp")
  RAILTUNE_REQUIRED(forkInit, "ibv_fork_init")
  RAILTUNE_REQUIRED(eventTypeStr, "ibv_event_type_str")
#undef RAILTUNE_REQUIRED
  return nullptr;
}

void fillOptional(void* h, VerbsTable& t) {
  lookup(h, "ibv_reg_mr_iova2", "IBVERBS_1.8", &t.regMrIova2);
  lookup(h, "ibv_reg_dmabuf_mr", "IBVERBS_1.12", &t.regDmabufMr);
  lookup(h, "ibv_query_port_speed", "IBVERBS_1.16", &t.queryPortSpeed);
}

}  // namespace

std::vector<std::string> defaultVerbsLibraries() {
  return {"libibverbs.so", "libibverbs.so.1"};
}

LoadedVerbs loadVerbs(const std::vector<std::string>& candidates) {
  LoadedVerbs out;
  std::string tried;
  for (const std::string& name : candidates) {
    // RTLD_NODELETE: once loaded, libibverbs stays mapped after dlclose, as it stays in NCCL (which never closes
    // it). Its device list and the providers it loads keep state in memory only its globals point to; unmapping
    // them strands that state (LeakSanitizer reports it) and leaves provider libraries bound to a vanished copy.
    void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (handle == nullptr) {
      const char* error = dlerror();
      tried += (tried.empty() ? "" : "; ") + (error != nullptr ? std::string(error) : name + ": cannot open");
      continue;
    }
    VerbsTable table;
    if (const char* missing = fillRequired(handle, table)) {
      dlclose(handle);
      out.reason = name + " has no " + missing + " (IBVERBS_1.1): not a usable libibverbs";
      return out;
    }
    fillOptional(handle, table);
    out.table = table;
    out.handle = handle;
    out.library = name;
    return out;
  }
  out.reason = candidates.empty() ? "no libibverbs to try" : "libibverbs not found (" + tried + ")";
  return out;
}

void unloadVerbs(LoadedVerbs& verbs) {
  if (verbs.handle != nullptr) dlclose(verbs.handle);
  verbs = LoadedVerbs{};
}

}  // namespace railtune::net::ib
