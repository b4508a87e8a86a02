// The probe child's side (probe.h): what runs inside `railtune doctor probe -- MODE ARGS...`.
#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <string>

#include "doctor/env_plugin_check.h"
#include "doctor/nvml_probe.h"
#include "doctor/probe.h"
#include "emulator/plugin_open.h"

namespace railtune::doctor {
namespace {

std::string linkMapPath(void* handle) {
  link_map* map = nullptr;
  if (::dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr || map->l_name == nullptr) return "";
  return map->l_name;
}

std::string lastDlError() {
  const char* e = ::dlerror();
  return e != nullptr ? e : "unknown dlopen error";
}

int probeNccl(const std::string& name) {
  void* handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    sayProbe("error", lastDlError());
    return 0;
  }
  sayProbe("path", linkMapPath(handle));
  using GetVersion = int (*)(int*);
  auto getVersion = reinterpret_cast<GetVersion>(::dlsym(handle, "ncclGetVersion"));
  if (getVersion == nullptr) {
    sayProbe("error", "no ncclGetVersion symbol: not an NCCL library");
    return 0;
  }
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(getVersion), &info) != 0 && info.dli_fname != nullptr)
    sayProbe("symbol_file", info.dli_fname);
  int version = 0;
  const int rc = getVersion(&version);
  if (rc != 0)
    sayProbe("error", "ncclGetVersion returned error " + std::to_string(rc));
  else
    sayProbe("version", std::to_string(version));
  return 0;
}

int probeLoad(const std::string& path) {
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr)
    sayProbe("error", lastDlError());
  else
    sayProbe("path", linkMapPath(handle));
  return 0;
}

int probeResolve(const std::string& kindName, const std::string& value) {
  using emu::PluginKind;
  PluginKind kind = PluginKind::Net;
  if (kindName == "tuner")
    kind = PluginKind::Tuner;
  else if (kindName == "profiler")
    kind = PluginKind::Profiler;
  else if (kindName == "env")
    kind = PluginKind::Env;
  else if (kindName != "net")
    return 2;
  std::vector<std::string> log;
  const auto opened = emu::openPluginLibrary(kind, value, log);
  if (opened) {
    sayProbe("opened", opened->openedName);
    sayProbe("path", opened->library->path());
  } else {
    std::string why;
    for (const std::string& line : log) why += (why.empty() ? "" : "; ") + line;
    sayProbe("error", why.empty() ? "nothing opened" : why);
  }
  return 0;
}

}  // namespace

void sayProbe(const char* key, const std::string& value) {
  std::string line = value;
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  std::printf("railtune-probe:%s=%s\n", key, line.c_str());
  std::fflush(stdout);
}

int probeChildMain(const std::vector<std::string>& args) {
  if (args.size() == 2 && args[0] == "nccl") return probeNccl(args[1]);
  if (args.size() == 2 && args[0] == "load") return probeLoad(args[1]);
  if (args.size() == 2 && args[0] == "nvml") return probeNvmlChild(args[1]);
  if (args.size() == 3 && args[0] == "resolve") return probeResolve(args[1], args[2]);
  if (args.size() == 5 && args[0] == "env") return probeEnvAnswer(args);
  std::fprintf(stderr, "railtune doctor probe: bad request\n");
  return 2;
}

}  // namespace railtune::doctor
