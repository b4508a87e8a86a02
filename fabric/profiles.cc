// Loads the embedded hardware profiles (fabric/profiles/*.yaml) with yaml-cpp. The data is ours and
// tested, so a malformed profile is a build defect: it throws FabricError naming the data file line.
#include "fabric/profiles.h"

#include <yaml-cpp/yaml.h>

#include "fabric/diagnostics.h"
#include "fabric/embedded_data.h"

namespace railtune::fabric {
namespace {

SourceLoc locOf(const std::string& file, const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  return {"profiles/" + file, mark.line + 1, mark.column + 1};
}

template <typename T>
T get(const std::string& file, const YAML::Node& map, const char* key, const T& fallback) {
  const YAML::Node value = map[key];
  if (!value) return fallback;
  try {
    return value.as<T>();
  } catch (const YAML::Exception&) {
    throw FabricError(locOf(file, value), std::string("profile key '") + key + "' has the wrong type");
  }
}

CpuArch archOf(const std::string& file, const YAML::Node& node) {
  const std::string arch = get<std::string>(file, node, "arch", "arm64");
  if (arch == "arm64") return CpuArch::Arm64;
  if (arch == "x86_64") return CpuArch::X86_64;
  if (arch == "ppc64") return CpuArch::Ppc64;
  throw FabricError(locOf(file, node["arch"]), "unknown cpu arch '" + arch + "'");
}

ProfileNicDevice deviceOf(const std::string& file, const YAML::Node& node) {
  return {get<std::string>(file, node, "hca", ""), get<std::string>(file, node, "netdev", ""),
          get<std::string>(file, node, "busId", "")};
}

void readParts(const std::string& file, const YAML::Node& root, Profile& p) {
  const YAML::Node gpu = root["gpu"];
  p.gpu.model = get<std::string>(file, gpu, "model", "");
  p.gpu.sm = get<int>(file, gpu, "sm", 0);
  p.gpu.nvlinks = get<int>(file, gpu, "nvlinks", 0);
  p.gpu.c2cLinks = get<int>(file, gpu, "c2cLinks", 0);
  p.gpu.c2cBwMBps = get<int>(file, gpu, "c2cBwMBps", 0);
  for (const YAML::Node& node : root["cpus"]) {
    Cpu cpu{get<int>(file, node, "numa", 0),
            archOf(file, node),
            get<std::string>(file, node, "vendor", ""),
            get<std::string>(file, node, "affinity", ""),
            get<int>(file, node, "familyId", -1),
            get<int>(file, node, "modelId", -1),
            locOf(file, node)};
    p.cpus.push_back(cpu);
  }
  for (const YAML::Node& node : root["gpus"]) {
    Gpu entry = p.gpu;
    entry.index = get<int>(file, node, "index", 0);
    entry.busId = get<std::string>(file, node, "busId", "");
    entry.numa = get<int>(file, node, "numa", 0);
    entry.loc = locOf(file, node);
    p.gpus.push_back(entry);
  }
  for (const YAML::Node& node : root["nics"]) {
    ProfileNic nic{deviceOf(file, node),
                   {},
                   get<int>(file, node, "numa", 0),
                   get<int>(file, node, "nearestGpu", -1),
                   locOf(file, node)};
    for (const YAML::Node& device : node["planeDevices"]) nic.planeDevices.push_back(deviceOf(file, device));
    p.nics.push_back(nic);
  }
}

Profile parseProfile(const std::string& file, const std::string& text) {
  const YAML::Node root = YAML::Load(text);
  Profile p;
  p.name = get<std::string>(file, root, "name", "");
  p.description = get<std::string>(file, root, "description", "");
  p.trays = get<int>(file, root, "trays", 1);
  p.planes = get<int>(file, root, "planes", 1);
  p.planeCounts = get<std::vector<int>>(file, root, "planeCounts", {1});
  p.linkLayer = get<std::string>(file, root, "linkLayer", "InfiniBand");
  p.nicSpeedMbps = get<int>(file, root, "nicSpeedMbps", 0);
  p.loc = {"profiles/" + file, 0, 0};
  readParts(file, root, p);
  return p;
}

const std::vector<Profile>& allProfiles() {
  static const std::vector<Profile> profiles = [] {
    std::vector<Profile> parsed;
    for (const embedded::File& f : embedded::kProfiles)
      parsed.push_back(parseProfile(std::string(f.name), std::string(f.text)));
    return parsed;
  }();
  return profiles;
}

}  // namespace

const Profile* findProfile(const std::string& name) {
  for (const Profile& p : allProfiles())
    if (p.name == name) return &p;
  return nullptr;
}

std::vector<std::string> profileNames() {
  std::vector<std::string> names;
  for (const Profile& p : allProfiles()) names.push_back(p.name);
  return names;
}

std::string profileNameList() {
  std::string list;
  for (const std::string& name : profileNames()) list += (list.empty() ? "" : ", ") + name;
  return list;
}

}  // namespace railtune::fabric
