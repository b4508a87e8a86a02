#include "emulator/tuner_decisions/communicator.h"

#include <stdexcept>

#include "fabric/profiles.h"

namespace railtune::emu {
namespace {

std::string plural(int n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

bool resolveMnnvl(const std::string& value, const fabric::Profile& profile) {
  if (value == "on") return true;
  if (value == "off") return false;
  if (!value.empty()) throw std::invalid_argument("--mnnvl must be on or off, not '" + value + "'");
  return profile.trays > 1;  // NVL72 racks join several trays in one NVLink domain; a DGX is its own domain
}

}  // namespace

Communicator resolveCommunicator(const CommunicatorRequest& request) {
  const fabric::Profile* profile = fabric::findProfile(request.profile);
  if (profile == nullptr)
    throw std::invalid_argument("--profile " + request.profile + " is not a known hardware profile (" +
                                fabric::profileNameList() + ")");
  if (request.nodes < 1) throw std::invalid_argument("--nodes must be at least 1");
  if (request.ranks < 1) throw std::invalid_argument("--ranks must be at least 1");
  if (request.ranks % request.nodes != 0)
    throw std::invalid_argument("--ranks " + std::to_string(request.ranks) + " is not divisible by --nodes " +
                                std::to_string(request.nodes) + ": NCCL's nodes hold the same number of ranks here");
  Communicator comm;
  comm.profile = profile->name;
  comm.mnnvl = resolveMnnvl(request.mnnvl, *profile);
  comm.gpusPerHost = static_cast<int>(profile->gpus.size());
  comm.gpusPerDomain = comm.gpusPerHost * profile->trays;
  comm.nicsPerHost = static_cast<int>(profile->nics.size());
  comm.nicSpeedMbps = profile->nicSpeedMbps;
  comm.shape = ncclmodel::CommShape{request.ranks, request.nodes};
  comm.ranksPerNode = request.ranks / request.nodes;
  const int nodeCapacity = comm.mnnvl ? comm.gpusPerDomain : comm.gpusPerHost;
  if (comm.ranksPerNode > nodeCapacity)
    throw std::invalid_argument(std::to_string(comm.ranksPerNode) + " ranks per node, but a node of " + profile->name +
                                (comm.mnnvl ? " with MNNVL (an NVLink domain)" : " without MNNVL (a host)") + " has " +
                                plural(nodeCapacity, "GPU") +
                                (!comm.mnnvl && profile->trays > 1 ? "; with --mnnvl on a rack is one node" : ""));
  return comm;
}

std::string describeCommunicator(const Communicator& comm) {
  return plural(comm.shape.nRanks, "rank") + " on " + plural(comm.shape.nNodes, "node") + " (MNNVL " +
         (comm.mnnvl ? "on" : "off") + ": " + plural(comm.shape.nNodes, "NVLink domain") + " of " +
         plural(comm.ranksPerNode, "rank") + ")";
}

}  // namespace railtune::emu
