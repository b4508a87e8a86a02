// The full-form writer. One flow map per CPU, GPU, NIC and switch keeps a host readable at a glance
// (one line each, as in docs/fabric.md); values equal to the reader's defaults for "unknown" (empty
// strings, GUID 0, index -1) are left out so a discovered host only says what was found.
#include "fabric/yaml_write.h"

#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <sstream>

namespace railtune::fabric {
namespace {

const char* archName(CpuArch arch) {
  switch (arch) {
    case CpuArch::X86_64:
      return "x86_64";
    case CpuArch::Ppc64:
      return "ppc64";
    case CpuArch::Arm64:
      break;
  }
  return "arm64";
}

const char* tierName(SwitchTier tier) {
  switch (tier) {
    case SwitchTier::Spine:
      return "spine";
    case SwitchTier::Core:
      return "core";
    case SwitchTier::Leaf:
      break;
  }
  return "leaf";
}

std::string hexGuid(uint64_t guid) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(guid));
  return text;
}

void textIfSet(YAML::Emitter& out, const char* key, const std::string& value) {
  if (!value.empty()) out << YAML::Key << key << YAML::Value << value;
}

void numberIfSet(YAML::Emitter& out, const char* key, int value, int unset) {
  if (value != unset) out << YAML::Key << key << YAML::Value << value;
}

void writeCpu(YAML::Emitter& out, const Cpu& cpu) {
  out << YAML::Flow << YAML::BeginMap << YAML::Key << "numa" << YAML::Value << cpu.numa;
  out << YAML::Key << "arch" << YAML::Value << archName(cpu.arch);
  textIfSet(out, "vendor", cpu.vendor);
  textIfSet(out, "affinity", cpu.affinity);
  numberIfSet(out, "familyId", cpu.familyId, -1);
  numberIfSet(out, "modelId", cpu.modelId, -1);
  out << YAML::EndMap;
}

void writeGpu(YAML::Emitter& out, const Gpu& gpu) {
  out << YAML::Flow << YAML::BeginMap << YAML::Key << "index" << YAML::Value << gpu.index;
  out << YAML::Key << "busId" << YAML::Value << YAML::DoubleQuoted << gpu.busId;
  out << YAML::Key << "sm" << YAML::Value << gpu.sm << YAML::Key << "numa" << YAML::Value << gpu.numa;
  out << YAML::Key << "nvlinks" << YAML::Value << gpu.nvlinks;
  numberIfSet(out, "c2cLinks", gpu.c2cLinks, 0);
  numberIfSet(out, "c2cBwMBps", gpu.c2cBwMBps, 0);
  textIfSet(out, "model", gpu.model);
  out << YAML::EndMap;
}

void writeNic(YAML::Emitter& out, const Nic& nic) {
  out << YAML::Flow << YAML::BeginMap << YAML::Key << "hca" << YAML::Value << nic.hca;
  textIfSet(out, "netdev", nic.netdev);
  if (!nic.busId.empty()) out << YAML::Key << "busId" << YAML::Value << YAML::DoubleQuoted << nic.busId;
  out << YAML::Key << "port" << YAML::Value << nic.port << YAML::Key << "speedMbps" << YAML::Value << nic.speedMbps;
  if (nic.guid != 0) out << YAML::Key << "guid" << YAML::Value << YAML::DoubleQuoted << hexGuid(nic.guid);
  out << YAML::Key << "rail" << YAML::Value << nic.rail << YAML::Key << "plane" << YAML::Value << nic.plane;
  out << YAML::Key << "numa" << YAML::Value << nic.numa << YAML::Key << "nearestGpu" << YAML::Value << nic.nearestGpu;
  out << YAML::Key << "linkLayer" << YAML::Value << nic.linkLayer;
  numberIfSet(out, "gidIndex", nic.gidIndex, -1);
  if (!nic.gid.empty()) out << YAML::Key << "gid" << YAML::Value << YAML::DoubleQuoted << nic.gid;
  out << YAML::EndMap;
}

void writeHost(YAML::Emitter& out, const Host& host) {
  out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << host.name;
  textIfSet(out, "profile", host.profile);
  out << YAML::Key << "cpus" << YAML::Value << YAML::BeginSeq;
  for (const Cpu& cpu : host.cpus) writeCpu(out, cpu);
  out << YAML::EndSeq << YAML::Key << "gpus" << YAML::Value << YAML::BeginSeq;
  for (const Gpu& gpu : host.gpus) writeGpu(out, gpu);
  out << YAML::EndSeq << YAML::Key << "nics" << YAML::Value << YAML::BeginSeq;
  for (const Nic& nic : host.nics) writeNic(out, nic);
  out << YAML::EndSeq << YAML::EndMap;
}

void writeDomain(YAML::Emitter& out, const Fabric& fabric, const NvlDomain& domain) {
  out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << domain.name;
  if (domain.rack != domain.name) textIfSet(out, "rack", domain.rack);
  if (!domain.cliqueId.empty()) out << YAML::Key << "cliqueId" << YAML::Value << YAML::DoubleQuoted << domain.cliqueId;
  textIfSet(out, "railGroup", domain.railGroup);
  out << YAML::Key << "hosts" << YAML::Value << YAML::BeginSeq;
  for (const std::string& name : domain.hosts)
    if (const Host* host = fabric.findHost(name)) writeHost(out, *host);
  out << YAML::EndSeq << YAML::EndMap;
}

void writeSwitch(YAML::Emitter& out, const Switch& s) {
  out << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << s.name;
  out << YAML::Key << "tier" << YAML::Value << tierName(s.tier);
  if (s.tier == SwitchTier::Leaf)
    out << YAML::Key << "rail" << YAML::Value << s.rail << YAML::Key << "plane" << YAML::Value << s.plane;
  textIfSet(out, "railGroup", s.railGroup);
  out << YAML::Key << "speedGbps" << YAML::Value << s.speedGbps;
  if (!s.up.empty()) out << YAML::Key << "up" << YAML::Value << YAML::Flow << s.up;
  out << YAML::EndMap;
}

void writeNetwork(YAML::Emitter& out, const Network& net) {
  out << YAML::Key << "network" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "rails" << YAML::Value << net.rails << YAML::Key << "planes" << YAML::Value << net.planes;
  out << YAML::Key << "linkLayer" << YAML::Value << net.linkLayer;
  if (net.adaptiveRouting) out << YAML::Key << "adaptiveRouting" << YAML::Value << *net.adaptiveRouting;
  if (net.trafficClass >= 0) out << YAML::Key << "trafficClass" << YAML::Value << net.trafficClass;
  if (net.serviceLevel >= 0) out << YAML::Key << "serviceLevel" << YAML::Value << net.serviceLevel;
  out << YAML::Key << "railGroups" << YAML::Value << YAML::BeginSeq;
  for (const RailGroup& g : net.railGroups) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << g.name;
    out << YAML::Key << "domains" << YAML::Value << YAML::Flow << g.domains;
    textIfSet(out, "spine", g.spine);
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::Key << "switches" << YAML::Value << YAML::BeginSeq;
  for (const Switch& s : net.switches) writeSwitch(out, s);
  out << YAML::EndSeq << YAML::EndMap;
}

}  // namespace

std::string writeFabricYaml(const Fabric& fabric, const std::string& header) {
  YAML::Emitter out;
  out.SetIndent(2);
  out << YAML::BeginMap << YAML::Key << "cluster" << YAML::Value << fabric.name;
  out << YAML::Key << "domains" << YAML::Value << YAML::BeginSeq;
  for (const NvlDomain& domain : fabric.domains) writeDomain(out, fabric, domain);
  out << YAML::EndSeq;
  writeNetwork(out, fabric.network);
  out << YAML::EndMap;
  std::ostringstream text;
  std::istringstream lines(header);
  for (std::string line; std::getline(lines, line);) text << "# " << line << "\n";
  text << out.c_str() << "\n";
  return text.str();
}

}  // namespace railtune::fabric
