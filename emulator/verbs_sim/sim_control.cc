// The control API (railtune_verbs_sim_control: faults, settings, the protocol clock, reset) and the statistics
// query.
#include <chrono>
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

// `clock stop|step <ms>|run`: the protocol clock (Sim::clockStopped). Protocol time never goes back: it
// stands still while stopped, moves by the steps, and runs on from where it stood.
std::string setClock(Sim& s, const std::string& how, const std::string& millis) {
  if (how == "stop") {
    if (!s.clockStopped) s.clockStoppedAt = protocolNow(s);
    s.clockStopped = true;
    return "";
  }
  if (how == "run") {
    if (s.clockStopped) s.clockBehind = std::chrono::steady_clock::now() - s.clockStoppedAt;
    s.clockStopped = false;
    return "";
  }
  if (how != "step") return "clock stop|step <ms>|run";
  if (!s.clockStopped) return "clock step: the clock runs (clock stop first)";
  char* end = nullptr;
  const double ms = std::strtod(millis.c_str(), &end);
  if (millis.empty() || *end != '\0' || !(ms >= 0) || ms > 1e9) return "clock step needs milliseconds >= 0";
  s.clockStoppedAt += std::chrono::nanoseconds(static_cast<int64_t>(ms * 1e6));
  ++s.clockSteps;
  return "";
}

// "2 contexts, 1 QP": what the process still holds, "" for nothing.
std::string liveObjects(const Sim& s) {
  std::string out;
  auto count = [&out](size_t n, const char* one, const char* many) {
    if (n == 0) return;
    out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + (n == 1 ? one : many);
  };
  count(s.contexts.size(), "context", "contexts");
  count(s.pds.size(), "PD", "PDs");
  count(s.mrs.size(), "MR", "MRs");
  count(s.cqs.size(), "CQ", "CQs");
  count(s.qps.size(), "QP", "QPs");
  return out;
}

// `reset`: back to the state before the first call, so that the next call reads the environment again
// (another rendezvous folder, host, fabric). Only with nothing live: an object of the old fabric would
// otherwise outlive the devices and the agent it belongs to.
std::string resetSim(Sim& s, std::unique_lock<std::mutex>& lock) {
  std::string live = liveObjects(s);
  if (!live.empty()) return "reset: the process still holds " + live;
  stopAgent(s, lock);  // the lock is released while the agent thread ends
  live = liveObjects(s);
  if (!live.empty()) return "reset: " + live + " created while the agent stopped; settings kept";
  for (auto& device : s.devices) s.retiredDevices.push_back(std::move(device));
  s.devices.clear();
  s.initialised = false;
  s.initError.clear();
  s.fabric = SimFabric{};
  s.host = 0;
  s.portDown.clear();
  s.timeScale = 1.0;
  s.adversarial = false;
  s.dropAcks = false;
  s.dir.clear();
  s.rng.seed(kDefaultSeed);
  s.faults.clear();
  s.start = std::chrono::steady_clock::now();
  s.clockStopped = false;
  s.clockBehind = {};
  return "";
}

// Waits until the agent has run its timers at the time a `clock step` set, so that the caller sees what
// the step fired. Nothing to wait for without an agent (no QP yet).
std::string awaitClockStep(Sim& s, std::unique_lock<std::mutex>& lock) {
  if (s.agent == nullptr) return "";
  const uint64_t step = s.clockSteps;
  if (!s.clockSeen.wait_for(lock, std::chrono::seconds(30), [&] { return s.clockStepsSeen >= step; }))
    return "clock step: the agent did not run its timers within 30 s";
  return "";
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
  if (verb == "clock") return setClock(s, arg1, arg2);
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
  std::unique_lock lock(s.mu);
  const std::string text = command != nullptr ? command : "";
  std::istringstream words(text);
  std::string verb, arg;
  words >> verb >> arg;
  std::string error = verb == "reset" ? resetSim(s, lock) : applyControl(s, text);
  if (error.empty()) {
    wakeAgent(s);
    if (verb == "clock" && arg == "step") error = awaitClockStep(s, lock);
  }
  if (!error.empty()) {
    std::fprintf(stderr, "railtune verbs sim: control '%s': %s\n", text.c_str(), error.c_str());
    return -1;
  }
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
