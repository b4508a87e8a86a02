#include "cli/tuner/fit_column.h"

#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "emulator/nccl_model/terms.h"
#include "fabric/profiles.h"
#include "formats/rail_map.h"
#include "formats/schemas.h"
#include "formats/tuner_model/tuner_model.h"
#include "tuner_plugin/fitted/fitted_model.h"

namespace railtune::cli {
namespace {

namespace tm = formats::tuner_model;
using ordered = nlohmann::ordered_json;

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

// The profile's one host: its GPUs, and its NICs spread over them in rail order.
ordered hostRecord(const emu::Communicator& comm) {
  ordered gpus = ordered::array();
  const int nics = comm.nicsPerHost > 0 ? comm.nicsPerHost : comm.gpusPerHost;
  for (int g = 0; g < comm.gpusPerHost; ++g) {
    ordered list = ordered::array();
    for (int n = g; n < nics; n += comm.gpusPerHost) {
      char bus[32];
      std::snprintf(bus, sizeof bus, "0000:%02x:00.0", 0x40 + n);
      list.push_back(ordered{{"hca", "mlx5_" + std::to_string(n)},
                             {"netdev", ""},
                             {"bus_id", bus},
                             {"port", 1},
                             {"rail", n},
                             {"plane", -1},
                             {"speed_mbps", comm.nicSpeedMbps}});
    }
    char bus[32];
    std::snprintf(bus, sizeof bus, "0000:%02x:00.0", 0x10 + g);
    gpus.push_back(ordered{{"index", g}, {"bus_id", bus}, {"nics", list}});
  }
  return ordered{{"name", "profile-host"}, {"domain", "profile-domain"}, {"gpus", gpus}};
}

}  // namespace

ScopedEnv::~ScopedEnv() {
  for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
    if (it->second) {
      setenv(it->first.c_str(), it->second->c_str(), 1);
    } else {
      unsetenv(it->first.c_str());
    }
  }
}

void ScopedEnv::remember(const char* name) {
  const char* value = std::getenv(name);
  saved_.emplace_back(name, value ? std::optional<std::string>(value) : std::nullopt);
}

void ScopedEnv::set(const char* name, const std::string& value) {
  remember(name);
  setenv(name, value.c_str(), 1);
}

void ScopedEnv::unset(const char* name) {
  remember(name);
  unsetenv(name);
}

std::string writeProfileRailMap(const emu::Communicator& comm) {
  const fabric::Profile* profile = fabric::findProfile(comm.profile);
  const int nics = comm.nicsPerHost > 0 ? comm.nicsPerHost : comm.gpusPerHost;
  ordered doc{{"schema", formats::kRailMapSchema}, {"cluster", comm.profile}};
  if (const std::optional<std::string> gpu = ncclmodel::gpuForProfile(comm.profile)) doc["gpu"] = *gpu;
  doc["rails"] = nics;
  doc["planes"] = 1;
  if (profile != nullptr && profile->linkLayer == "Ethernet") doc["network"] = ordered{{"link_layer", "Ethernet"}};
  doc["hosts"] = ordered::array({hostRecord(comm)});
  char path[] = "/tmp/railtune-decisions-rail-map-XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0) throw std::runtime_error(std::string("cannot create a temporary rail map: ") + std::strerror(errno));
  const std::string text = doc.dump(2) + "\n";
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!written) throw std::runtime_error(std::string("cannot write the temporary rail map ") + path);
  return path;
}

emu::FitSummary describeFitFile(const std::string& path, const std::string& railMapPath, const emu::Communicator& comm,
                                int abiVersion) {
  emu::FitSummary out;
  out.path = path;
  std::shared_ptr<const tm::TunerModel> model;
  try {
    model = std::make_shared<const tm::TunerModel>(tm::readTunerModelFile(path));
  } catch (const tm::TunerModelError& e) {
    throw std::runtime_error(std::string("--model-file: ") + e.what());
  }
  for (const tm::Fit& fit : model->fits) {
    std::string releases;
    for (const std::string& r : fit.appliesTo.nccl) releases += (releases.empty() ? "" : "/") + r;
    out.appliesTo += (out.appliesTo.empty() ? "" : "; ") + tuner::fitted::fitLabel(fit) + ", NCCL " + releases;
  }
  if (out.appliesTo.empty()) out.appliesTo = "no fits";
  std::optional<formats::RailMap> map;
  if (!railMapPath.empty()) {
    try {
      map = formats::readRailMapFile(railMapPath);
    } catch (const std::exception&) {  // the plugin reports it; no fit can apply
    }
  }
  tuner::CommInfo info;
  info.nRanks = static_cast<size_t>(comm.shape.nRanks);
  info.nNodes = static_cast<size_t>(comm.shape.nNodes);
  info.abiVersion = abiVersion;
  const tuner::fitted::Coverage covered =
      tuner::fitted::coverage({model, path, map ? &*map : nullptr, railMapPath}, info);
  if (covered.plan) {
    const tm::Scale scale = tm::scaleOfNodes(comm.shape.nNodes);
    const tm::Verdict& verdict = covered.plan->fit->usable[static_cast<size_t>(scale)];
    out.verdict = std::string("usable at ") + tm::scaleName(scale) +
                  (verdict.usable ? ": " : ", at its measured shapes only, this one among them: ") + verdict.why;
  }
  return out;
}

std::vector<std::string> constantsWritten(const ncclTunerConstants_v5_t& before, const ncclTunerConstants_v5_t& after) {
  formats::CostModelConstants was, now;
  std::memcpy(&was, &before, sizeof(was));
  std::memcpy(&now, &after, sizeof(now));
  std::vector<std::string> out;
  for (int i = 0; i < ncclmodel::kNumConstIds; ++i) {
    const auto id = static_cast<ncclmodel::ConstId>(i);
    const double a = ncclmodel::constValue(was, id), b = ncclmodel::constValue(now, id);
    if (a != b) out.push_back(std::string(ncclmodel::constName(id)) + " " + number(a) + " -> " + number(b));
  }
  return out;
}

}  // namespace railtune::cli
