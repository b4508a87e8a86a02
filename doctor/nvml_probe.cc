#include "doctor/nvml_probe.h"

#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "common/regular_file.h"
#include "fabric/discover/nvml_source.h"

namespace railtune::doctor {
namespace {

namespace discover = fabric::discover;
using nlohmann::json;

json gpuJson(const discover::NvmlGpu& g) {
  return {{"index", g.index},
          {"busId", g.busId},
          {"name", g.name},
          {"uuid", g.uuid},
          {"sm", g.sm},
          {"numa", g.numa},
          {"nvlinksActive", g.nvlinksActive},
          {"nvlinksProbed", g.nvlinksProbed},
          {"c2cLinks", g.c2cLinks},
          {"c2cBwMBps", g.c2cBwMBps},
          {"fabricInfo", g.fabricInfo},
          {"clusterUuid", g.clusterUuid},
          {"cliqueId", g.cliqueId},
          {"fabricState", g.fabricState},
          {"fabricStatus", g.fabricStatus},
          {"healthMask", g.healthMask}};
}

discover::NvmlGpu gpuOf(const json& j) {
  discover::NvmlGpu g;
  g.index = j.at("index").get<int>();
  g.busId = j.at("busId").get<std::string>();
  g.name = j.at("name").get<std::string>();
  g.uuid = j.at("uuid").get<std::string>();
  g.sm = j.at("sm").get<int>();
  g.numa = j.at("numa").get<int>();
  g.nvlinksActive = j.at("nvlinksActive").get<int>();
  g.nvlinksProbed = j.at("nvlinksProbed").get<int>();
  g.c2cLinks = j.at("c2cLinks").get<int>();
  g.c2cBwMBps = j.at("c2cBwMBps").get<int>();
  g.fabricInfo = j.at("fabricInfo").get<bool>();
  g.clusterUuid = j.at("clusterUuid").get<std::string>();
  g.cliqueId = j.at("cliqueId").get<uint32_t>();
  g.fabricState = j.at("fabricState").get<int>();
  g.fabricStatus = j.at("fabricStatus").get<int>();
  g.healthMask = j.at("healthMask").get<uint32_t>();
  return g;
}

// One line of JSON (dump() without indent writes none; strings escape their newlines). Text from the
// library that is not UTF-8 is replaced, not thrown on.
std::string inventoryJson(const discover::NvmlInventory& inventory) {
  json gpus = json::array();
  for (const discover::NvmlGpu& g : inventory.gpus) gpus.push_back(gpuJson(g));
  const json out = {{"loaded", inventory.loaded}, {"library", inventory.library},
                    {"error", inventory.error},   {"driverVersion", inventory.driverVersion},
                    {"notes", inventory.notes},   {"gpus", gpus}};
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

discover::NvmlInventory inventoryOf(const std::string& text) {
  const json j = json::parse(text);
  discover::NvmlInventory inventory;
  inventory.loaded = j.at("loaded").get<bool>();
  inventory.library = j.at("library").get<std::string>();
  inventory.error = j.at("error").get<std::string>();
  inventory.driverVersion = j.at("driverVersion").get<std::string>();
  inventory.notes = j.at("notes").get<std::vector<std::string>>();
  for (const json& g : j.at("gpus")) inventory.gpus.push_back(gpuOf(g));
  return inventory;
}

}  // namespace

int probeNvmlChild(const std::string& library) {
  // The same flags readNvml uses: the library stays loaded, so readNvml's own dlopen finds it again.
  void* handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    sayProbe("error", why != nullptr ? why : "unknown dlopen error");
    // readNvml's own account of the failure (its wording for an absent default library), for
    // `topo discover`, which reports what readNvml says.
    sayProbe("inventory", inventoryJson(discover::readNvml(library)));
    return 0;
  }
  link_map* map = nullptr;
  if (::dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr)
    sayProbe("path", map->l_name);
  sayProbe("inventory", inventoryJson(discover::readNvml(library)));
  return 0;
}

NvmlLoad loadNvmlInChild(const std::string& library, int timeoutSeconds) {
  NvmlLoad load;
  load.probe = runProbe({"nvml", library}, timeoutSeconds);
  if (!load.probe.finished() || load.probe.exitCode != 0) return load;
  load.path = load.probe.get("path");
  if (load.probe.has("error")) load.dlopenError = load.probe.get("error");
  if (!load.probe.has("inventory")) {
    load.answerError = "the child loaded it but sent no NVML answer";
    return load;
  }
  try {
    load.inventory = inventoryOf(load.probe.get("inventory"));
  } catch (const json::exception& e) {
    load.answerError = std::string("the child's NVML answer is malformed: ") + e.what();
  }
  return load;
}

discover::NvmlInventory readNvmlInChild(const std::string& library, int timeoutSeconds) {
  std::string chosen = library;
  if (chosen.empty()) {
    const char* env = std::getenv("RAILTUNE_NVML_LIBRARY");
    chosen = env != nullptr && *env != '\0' ? env : discover::kNvmlDefaultLibrary;
  }
  discover::NvmlInventory failed;
  failed.library = chosen;
  struct stat st {};
  if (chosen.find('/') != std::string::npos && ::stat(chosen.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    // A FIFO would block the loader's open until the deadline: refused by name without a child.
    failed.error = "NVML " + chosen + " not read: it is " + fileTypeName(st.st_mode) + ", not a regular file";
    return failed;
  }
  const NvmlLoad load = loadNvmlInChild(chosen, timeoutSeconds);
  if (load.inventory) return *load.inventory;
  const std::string how =
      !load.answerError.empty() ? load.answerError : "the child " + load.probe.describeEnd(timeoutSeconds);
  failed.error = "NVML " + chosen + " not read: loading it in a child process failed (" + how +
                 "); a damaged or hanging library is left out, the rest of the host is still described";
  return failed;
}

}  // namespace railtune::doctor
