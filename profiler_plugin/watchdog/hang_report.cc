// describeHang: one line per hang, built on the watchdog's thread (never on NCCL's).
#include "profiler_plugin/watchdog/hang_report.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>

namespace railtune::profiler {
namespace {

// Identity and named flows stop here, so that the counts after them and the logger's prefix still fit
// in the 1024 bytes of a log line.
constexpr size_t kFlowTextBudget = 900;

__attribute__((format(printf, 2, 3))) void appendf(std::string& out, const char* fmt, ...) {
  char buffer[256];
  va_list args;
  va_start(args, fmt);
  const int n = std::vsnprintf(buffer, sizeof buffer, fmt, args);
  va_end(args);
  if (n > 0) out.append(buffer, static_cast<size_t>(n) < sizeof buffer ? static_cast<size_t>(n) : sizeof buffer - 1);
}

void appendIdentity(std::string& out, const OperationRecord& hang) {
  if (hang.comm) {
    appendf(out, "comm 0x%" PRIx64, *hang.comm);
  } else {
    out += "comm (unknown id)";
  }
  if (hang.nRanks > 0) {
    appendf(out, " rank %d/%d seq %" PRIu64 " ", hang.rank, hang.nRanks, hang.seq);
  } else {  // profiler ABI v1..v3: NCCL does not say how many ranks
    appendf(out, " rank %d seq %" PRIu64 " ", hang.rank, hang.seq);
  }
  out += hang.operation.view().empty() ? std::string_view("operation") : hang.operation.view();
  if (hang.kind == RecordKind::P2p || hang.peer >= 0) appendf(out, " peer %d", hang.peer);
  out += " (";
  if (!hang.algorithm.view().empty()) {
    out += hang.algorithm.view();
    out += '/';
  }
  if (!hang.protocol.view().empty()) {
    out += hang.protocol.view();
    out += ", ";
  }
  appendf(out, "%" PRIu64 " bytes, %d channels)", hang.bytes, hang.channels);
  appendf(out, " incomplete for %.1f s", static_cast<double>(hang.stuckForNs) / 1e9);
}

void appendFlow(std::string& out, const NetFlow& flow) {
  appendf(out, "ch %d peer %d %s %u steps", flow.channel, flow.peer, flow.send ? "send" : "recv", flow.outstanding);
  if (!flow.hca.view().empty()) {
    out += " via ";
    out += flow.hca.view();
    appendf(out, " (dev %d rail %d plane %d)", flow.device, flow.rail, flow.plane);
  } else if (flow.device >= 0) {
    appendf(out, " via dev %d", flow.device);
  } else {
    out += " (NIC not reported)";
  }
}

}  // namespace

std::string describeHang(const OperationRecord& hang) {
  std::string out;
  appendIdentity(out, hang);
  const uint32_t nFlows = hang.nFlows < kMaxFlowsPerRecord ? hang.nFlows : kMaxFlowsPerRecord;
  unsigned named = 0, unnamed = 0;
  std::string flowText;
  for (uint32_t i = 0; i < nFlows; ++i) {
    const NetFlow& flow = hang.flows[i];
    if (flow.outstanding == 0) continue;
    flowText.assign(named == 0 ? "; outstanding: " : "; ");
    appendFlow(flowText, flow);
    if (named == kMaxFlowsNamed || out.size() + flowText.size() > kFlowTextBudget) {
      ++unnamed;
      continue;
    }
    out += flowText;
    ++named;
  }
  if (named == 0 && unnamed == 0) out += "; no network step outstanding";
  if (unnamed > 0) appendf(out, "; and %u more flows", unnamed);
  if (hang.flowsDropped > 0) appendf(out, " (%u flows not tracked)", hang.flowsDropped);
  return out;
}

}  // namespace railtune::profiler
