// The control API for tests (railtune_verbs_sim_control) and the statistics query.
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "emulator/verbs_sim/sim_state.h"
#include "emulator/verbs_sim/sim_verbs.h"

namespace railtune::verbs_sim {
namespace {

std::string setPort(Sim& s, const std::string& dev, int port, bool down) {
  for (auto& d : s.devices) {
    if (d->desc->name != dev) continue;
    if (portOf(*d, port) == nullptr) return "no port " + std::to_string(port) + " on " + dev;
    s.portDown[{d->desc->nodeGuid, port}] = down;
    for (const void* p : s.contexts) {
      auto* ctx = static_cast<Context*>(const_cast<void*>(p));
      if (ctx->device != d.get()) continue;
      ib::IbvAsyncEvent event{};
      event.element.portNum = port;
      event.eventType = down ? ib::kIbvEventPortErr : ib::kIbvEventPortActive;
      queueEvent(ctx, event);
    }
    return "";
  }
  return "no device " + dev + " on this host";
}

bool onOff(const std::string& word, bool* value) {
  if (word == "on" || word == "1") {
    *value = true;
  } else if (word == "off" || word == "0") {
    *value = false;
  } else {
    return false;
  }
  return true;
}

}  // namespace

std::string applyControl(Sim& s, const std::string& command) {
  if (!ensureInitialised(s)) return s.initError;
  std::istringstream in(command);
  std::string verb, arg1, arg2;
  in >> verb >> arg1 >> arg2;
  if (verb == "port_down" || verb == "port_up") {
    return setPort(s, arg1, std::atoi(arg2.c_str()), verb == "port_down");
  }
  if (verb == "qp_fatal") {
    uint32_t qpn = static_cast<uint32_t>(std::strtoul(arg1.c_str(), nullptr, 0));
    for (Qp* qp : s.qpList) {
      if (qp->abi.qpNum != qpn) continue;
      moveToError(s, qp, ib::kIbvWcWrFlushErr);
      ib::IbvAsyncEvent event{};
      event.element.qp = &qp->abi;
      event.eventType = ib::kIbvEventQpFatal;
      queueEvent(qp->context, event);
      return "";
    }
    return "no QP " + arg1 + " in this process";
  }
  if (verb == "adversarial") return onOff(arg1, &s.adversarial) ? "" : "adversarial on|off";
  if (verb == "drop_acks") return onOff(arg1, &s.dropAcks) ? "" : "drop_acks on|off";
  if (verb == "time_scale") {
    double scale = std::atof(arg1.c_str());
    if (scale <= 0) return "time_scale needs a positive factor";
    s.timeScale = scale;
    return "";
  }
  if (verb == "seed") {
    s.rng.seed(std::strtoull(arg1.c_str(), nullptr, 0));
    return "";
  }
  if (verb == "dir") {
    if (s.agent != nullptr) return "dir: the agent already runs in " + s.dir;
    s.dir = arg1;
    return "";
  }
  return "unknown command '" + verb + "'";
}

int control(const char* command) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  std::string error = applyControl(s, command != nullptr ? command : "");
  if (!error.empty()) {
    std::fprintf(stderr, "railtune verbs sim: control '%s': %s\n", command != nullptr ? command : "", error.c_str());
    return -1;
  }
  wakeAgent(s);
  return 0;
}

size_t stats(char* buf, size_t len) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  std::string out = "{\"qps\":[";
  bool first = true;
  for (const Qp* qp : s.qpList) {
    char line[512];
    std::snprintf(
        line, sizeof line,
        "%s{\"device\":\"%s\",\"qpn\":%u,\"state\":%d,\"bytes_sent\":%llu,\"bytes_received\":%llu,"
        "\"wrs_posted\":%llu,\"wrs_completed\":%llu,\"packets_sent\":%llu,\"packets_received\":%llu,"
        "\"retries\":%llu,\"rnr_naks\":%llu}",
        first ? "" : ",", qp->context->device->abi.name, qp->abi.qpNum, qp->state,
        static_cast<unsigned long long>(qp->stats.bytesSent), static_cast<unsigned long long>(qp->stats.bytesReceived),
        static_cast<unsigned long long>(qp->stats.wrsPosted), static_cast<unsigned long long>(qp->stats.wrsCompleted),
        static_cast<unsigned long long>(qp->stats.packetsSent),
        static_cast<unsigned long long>(qp->stats.packetsReceived), static_cast<unsigned long long>(qp->stats.retries),
        static_cast<unsigned long long>(qp->stats.rnrNaks));
    out += line;
    first = false;
  }
  out += "]}";
  if (buf != nullptr && len > 0) std::snprintf(buf, len, "%s", out.c_str());
  return out.size();
}

}  // namespace railtune::verbs_sim
