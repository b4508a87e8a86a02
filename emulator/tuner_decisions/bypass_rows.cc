#include "emulator/tuner_decisions/bypass_rows.h"

#include <optional>

namespace railtune::emu {

void markBypassRows(DecisionsReport& report, const ncclmodel::TopologyFacts& topo) {
  const std::optional<ncclmodel::BypassRelease> release = ncclmodel::parseBypassRelease(report.ncclVersion);
  if (!release) {
    report.warnings.push_back("no model of the paths NCCL " + report.ncclVersion +
                              " takes without a tuner: every row is shown as tuned");
    return;
  }
  const ncclmodel::BypassComm comm{report.comm.shape.nRanks, report.comm.shape.nNodes, topo.minCompCap,
                                   topo.nvlsSupport};
  for (DecisionRow& row : report.rows) {
    ncclmodel::BypassQuery q;
    q.release = *release;
    q.collective = row.collective;
    q.nBytes = row.nBytes;
    q.dataType = report.bypass.dataType;
    q.op = report.bypass.op;
    q.registration = report.bypass.registration;
    q.cta = report.bypass.cta;
    q.env = report.bypass.env;
    if (row.railtune) q.tunedProtocol = row.railtune->protocol;
    row.bypass = ncclmodel::ncclBypass(comm, q);
  }
}

}  // namespace railtune::emu
