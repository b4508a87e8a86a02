// Built-in hardware profiles: the data files under fabric/profiles/, compiled into the binary.
// A profile is one host (a compute tray or a DGX) plus how many of them make an NVLink domain.
#pragma once

#include <string>
#include <vector>

#include "fabric/model.h"

namespace railtune::fabric {

// One RDMA device of a NIC in a given plane layout.
struct ProfileNicDevice {
  std::string hca;
  std::string netdev;
  std::string busId;
};

// NIC r of the profile serves rail r.
struct ProfileNic {
  ProfileNicDevice single;                     // the device a single-plane NIC shows
  std::vector<ProfileNicDevice> planeDevices;  // what a multi-plane NIC shows, one per plane ([] = single only)
  int numa = 0;
  int nearestGpu = -1;
  SourceLoc loc;
};

struct Profile {
  std::string name;
  std::string description;
  int trays = 1;                 // hosts per NVLink domain
  int planes = 1;                // default planes per NIC
  std::vector<int> planeCounts;  // plane counts the NIC supports
  std::string linkLayer;
  int nicSpeedMbps = 0;  // per NIC, all planes together
  Gpu gpu;               // model, sm, nvlinks, C2C shared by every GPU
  std::vector<Cpu> cpus;
  std::vector<Gpu> gpus;
  std::vector<ProfileNic> nics;
  SourceLoc loc;
};

// The profile by name, or nullptr. Parsed once from the embedded data; thread-safe.
const Profile* findProfile(const std::string& name);
std::vector<std::string> profileNames();  // "gb300-nvl72, ..." order of the data files
std::string profileNameList();            // the names joined by ", ", for messages

}  // namespace railtune::fabric
