#include "emulator/net_job/profile_collective.h"

#include <exception>
#include <stdexcept>
#include <thread>

#include "emulator/net_job/collectives_internal.h"
#include "emulator/net_job/profile_steps.h"
#include "emulator/net_job/schedule.h"

namespace railtune::emu::netjob {
namespace {

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += "\n    " + line;
  return out;
}

void addFlow(EmulatedOperation& op, Link* link, const std::string& hca) {
  if (link == nullptr || !link->overPlugin()) return;  // NVLink: no proxy, no net plugin
  ProxyFlow flow;
  flow.peer = link->peer();
  flow.send = link->isSend();
  flow.nic.hca = hca;
  flow.nic.peerHost = "rank" + std::to_string(link->peer());
  op.flows.push_back(flow);
}

// The call as the application makes it. The job's buffers are bytes (ncclInt8); counts are NCCL's:
// per rank for AllGather (send count) and ReduceScatter (receive count), per peer for AlltoAll.
void describeCall(EmulatedOperation& op, Collective c, size_t bytes, int nRanks) {
  const size_t n = static_cast<size_t>(nRanks);
  op.datatype = "ncclInt8";
  op.func = c == Collective::AllGather       ? "AllGather"
            : c == Collective::ReduceScatter ? "ReduceScatter"
            : c == Collective::AllToAll      ? "AlltoAll"
                                             : "AllReduce";
  op.algo = c == Collective::TreeAllReduce ? "TREE" : "RING";
  op.count = c == Collective::ReduceScatter || c == Collective::AllToAll ? bytes / n : bytes;
}

}  // namespace

EmulatedOperation profiledOperation(Collective c, const CollectiveContext& ctx, size_t bytes, const std::string& hca) {
  EmulatedOperation op;
  describeCall(op, c, bytes, ctx.nRanks);
  op.nChannels = 1;
  const size_t part = (bytes + static_cast<size_t>(ctx.nRanks) - 1) / static_cast<size_t>(ctx.nRanks);
  if (c == Collective::AllToAll) {
    for (const auto& [peer, link] : ctx.sendTo) addFlow(op, link, hca);
    for (const auto& [peer, link] : ctx.recvFrom) addFlow(op, link, hca);
    op.nSteps = 1;
    op.chunkSize = static_cast<int>(part);
  } else if (c == Collective::TreeAllReduce) {
    const TreeLinks& me = ctx.tree.at(static_cast<size_t>(ctx.rank));
    if (me.parent >= 0) addFlow(op, linkTo(ctx.sendTo, me.parent, "to"), hca);
    if (me.parent >= 0) addFlow(op, linkTo(ctx.recvFrom, me.parent, "from"), hca);
    for (int child : me.children) addFlow(op, linkTo(ctx.recvFrom, child, "from"), hca);
    for (int child : me.children) addFlow(op, linkTo(ctx.sendTo, child, "to"), hca);
    op.nSteps = 1;  // each tree link carries one transfer: up or down
    op.chunkSize = static_cast<int>(bytes);
  } else {
    const RingStep ring(ctx, 0, 0);
    addFlow(op, ring.next, hca);
    addFlow(op, ring.prev, hca);
    op.nSteps = c == Collective::AllReduce ? 2 * (ctx.nRanks - 1) : ctx.nRanks - 1;
    op.chunkSize = static_cast<int>(c == Collective::AllGather ? bytes : part);
  }
  return op;
}

RankProfiler::RankProfiler(NcclBehaviour behaviour, const RankIdentity& identity) : identity_(identity) {
  Loader loader(behaviour, EnvSource::process());
  const Binding binding = loader.openProfiler();
  if (!binding) throw std::runtime_error("the profiler plugin could not be loaded:" + joined(binding.log));
  driver_ = std::make_unique<ProfilerDriver>(binding, behaviour);
  const ncclResult_t rc = driver_->init(identity.commId, "net-job", identity.nNodes, identity.nRanks, identity.rank);
  if (rc != ncclSuccess || driver_->activationMask() == 0)
    throw std::runtime_error("the profiler plugin's init failed (ncclResult " + std::to_string(static_cast<int>(rc)) +
                             ", activation mask " + std::to_string(driver_->activationMask()) +
                             "):" + joined(driver_->log()));
  sequence_ = std::make_unique<ProfilerSequence>(*driver_, identity.rank);
  setNetProfilerDriver(driver_.get());  // NCCL's ncclProfilerCallback reaches this profiler from now on
}

RankProfiler::~RankProfiler() {
  setNetProfilerDriver(nullptr);
  if (!finalized_) driver_->finalize();
}

void RankProfiler::finalize() {
  setNetProfilerDriver(nullptr);
  finalized_ = true;
  if (driver_->finalize() != ncclSuccess) throw std::runtime_error("the profiler plugin's finalize failed");
}

// The proxy (the sequence, on its own thread, as NCCL's proxy thread) and the collective meet on the
// step board; whichever fails, the other is released before the failure is reported.
size_t RankProfiler::run(Collective c, const CollectiveContext& ctx, size_t bytes, int iteration) {
  const EmulatedOperation op = profiledOperation(c, ctx, bytes, identity_.hca);
  StepBoard board(op.flows.size(), op.nSteps, ctx.transfer.deadline);
  BoardTransfers transfers(board, op.flows);
  CollectiveContext stepped = ctx;
  std::vector<std::unique_ptr<Link>> wrappers;
  for (size_t i = 0; i < op.flows.size(); ++i) {
    std::map<int, Link*>& links = op.flows[i].send ? stepped.sendTo : stepped.recvFrom;
    wrappers.push_back(makeSteppedLink(*links.at(op.flows[i].peer), board, i));
    links[op.flows[i].peer] = wrappers.back().get();
  }
  sequence_->setNetTransfers(&transfers);
  std::exception_ptr proxyFailure;
  std::thread proxy([&] {
    try {
      sequence_->run(op);
    } catch (...) {
      proxyFailure = std::current_exception();
    }
  });
  size_t verified = 0;
  std::exception_ptr collectiveFailure;
  try {
    verified = runCollective(c, stepped, bytes, iteration);
  } catch (...) {
    collectiveFailure = std::current_exception();
  }
  board.collectiveFinished(collectiveFailure != nullptr);
  proxy.join();
  sequence_->setNetTransfers(nullptr);
  if (collectiveFailure) std::rethrow_exception(collectiveFailure);
  if (proxyFailure) std::rethrow_exception(proxyFailure);
  return verified;
}

}  // namespace railtune::emu::netjob
