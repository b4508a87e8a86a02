// NCCL's plugin_open.cc, imitated: how a library name from NCCL_<KIND>_PLUGIN becomes a dlopen handle.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "emulator/loader.h"

namespace railtune::emu {

// "libnccl-net", "libnccl-tuner", ... and "NET", "TUNER", ... as NCCL names them in its log.
const char* pluginPrefix(PluginKind kind);
const char* pluginLogName(PluginKind kind);

// dlopen(name, RTLD_NOW | RTLD_LOCAL) (NULL = the main program) wrapped in a Library with the path the
// link map reports. Returns null and fills *error on failure.
std::shared_ptr<Library> openLibrary(const char* name, std::string* error);

struct OpenedLibrary {
  std::shared_ptr<Library> library;
  std::string openedName;  // the name dlopen succeeded with
};

// NCCL's openPluginLib: the name as given (unset or empty: "<prefix>.so"), then "<prefix>-NAME.so" unless
// NAME has a '/' or is "lib...so"; any prefix of "STATIC_PLUGIN" means the main program. INFO lines for
// failures are appended to `log` with NCCL's wording.
std::optional<OpenedLibrary> openPluginLibrary(PluginKind kind, const std::optional<std::string>& name,
                                               std::vector<std::string>& log);

std::string infoLine(const std::string& text);  // "INFO " + text
std::string warnLine(const std::string& text);  // "WARN " + text

}  // namespace railtune::emu
