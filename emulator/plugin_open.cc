// Mirrors NCCL's tryOpenLib/openPluginLib rules (same in 2.28.9 and 2.30.7); see plugin_open.h.
#include "emulator/plugin_open.h"

#include <dlfcn.h>
#include <link.h>
#include <strings.h>

#include <cstring>

namespace railtune::emu {
namespace {

// NCCL copies names into a 255-byte buffer with snprintf: longer names are cut to 254 characters.
constexpr std::size_t kMaxPluginNameLength = 254;

std::string truncated(std::string s) {
  if (s.size() > kMaxPluginNameLength) s.resize(kMaxPluginNameLength);
  return s;
}

bool endsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// NCCL retries with the prefix only for a bare word: no '/', and not both "lib..." and "...so".
bool wantsPrefixedRetry(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos) return false;
  bool looksLikeLibrary = name.rfind("lib", 0) == 0 && endsWith(name, ".so");
  return !looksLikeLibrary;
}

struct TryResult {
  std::shared_ptr<Library> library;
  bool notFound = false;  // ENOENT: the name goes to the "Could not find" list instead of its own line
  std::string error;
};

TryResult tryOpenLib(const std::string& name) {
  TryResult r;
  if (name.empty()) return r;
  // Any case-insensitive prefix of "STATIC_PLUGIN" (even "s") means the main program, as in NCCL.
  const char* dlName = strncasecmp(name.c_str(), "STATIC_PLUGIN", name.size()) == 0 ? nullptr : name.c_str();
  r.library = openLibrary(dlName, &r.error);
  if (!r.library && dlName != nullptr) {
    r.notFound =
        r.error.find(name) != std::string::npos && r.error.find("No such file or directory") != std::string::npos;
  }
  return r;
}

}  // namespace

const char* pluginPrefix(PluginKind kind) {
  switch (kind) {
    case PluginKind::Net:
      return "libnccl-net";
    case PluginKind::Tuner:
      return "libnccl-tuner";
    case PluginKind::Profiler:
      return "libnccl-profiler";
    case PluginKind::Env:
      return "libnccl-env";
  }
  return "libnccl-unknown";
}

const char* pluginLogName(PluginKind kind) {
  switch (kind) {
    case PluginKind::Net:
      return "NET";
    case PluginKind::Tuner:
      return "TUNER";
    case PluginKind::Profiler:
      return "PROFILER";
    case PluginKind::Env:
      return "ENV";
  }
  return "UNKNOWN";
}

std::string infoLine(const std::string& text) {
  return "INFO " + text;
}
std::string warnLine(const std::string& text) {
  return "WARN " + text;
}

std::shared_ptr<Library> openLibrary(const char* name, std::string* error) {
  void* handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* e = dlerror();
    if (error) *error = e ? e : "";
    return nullptr;
  }
  std::string path;
  struct link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr) path = map->l_name;
  return std::make_shared<Library>(handle, path);
}

std::optional<OpenedLibrary> openPluginLibrary(PluginKind kind, const std::optional<std::string>& name,
                                               std::vector<std::string>& log) {
  const std::string given = name ? truncated(*name) : std::string();
  const std::string logName = pluginLogName(kind);
  std::string notFoundList;
  std::vector<std::string> attempts{given.empty() ? std::string(pluginPrefix(kind)) + ".so" : given};
  if (wantsPrefixedRetry(given)) attempts.push_back(truncated(std::string(pluginPrefix(kind)) + "-" + given + ".so"));

  for (const std::string& attempt : attempts) {
    TryResult r = tryOpenLib(attempt);
    if (r.library) return OpenedLibrary{r.library, attempt};
    if (r.notFound) {
      notFoundList += " " + attempt;
    } else {
      log.push_back(infoLine(logName + "/Plugin: " + attempt + ": " + r.error));
    }
  }
  if (!notFoundList.empty()) log.push_back(infoLine(logName + "/Plugin: Could not find:" + notFoundList));
  return std::nullopt;
}

}  // namespace railtune::emu
