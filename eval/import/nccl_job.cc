// A job's NCCL INFO logs from NCCL's own format strings (nccl_job.h). Each format names the NCCL tag and
// file:line that prints it; the import's reader (analysis/nccl_log/log_line.cc, device_list.cc) cites the same lines.
#include "eval/import/nccl_job.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "common/printed.h"

namespace railtune::eval::import_suite {
namespace {

int uniform(std::mt19937_64& rng, int low, int high) {
  return std::uniform_int_distribution<int>(low, high)(rng);
}

bool chance(std::mt19937_64& rng, double p) {
  return std::bernoulli_distribution(p)(rng);
}

// One GPU's process.
struct Gpu {
  int host = 0, local = 0;
  std::string hostName;
  int pid = 0, tid = 0;
  int cudaDev = 0, nvmlDev = 0;
  long busId = 0;
};

struct Comm {
  uint64_t commId = 0;
  bool split = false;       // an ncclCommSplit child of the first communicator (2.31+)
  std::vector<int> rankOf;  // per GPU (index into gpus)
  std::vector<std::string> pointer;
};

class JobWriter {
 public:
  JobWriter(const JobOptions& options, std::mt19937_64& rng) : o_(options), v_(options.version), rng_(rng) {}

  NcclJob make() {
    drawShape();
    for (size_t g = 0; g < gpus_.size(); ++g) startProcess(g);
    for (size_t c = 0; c < comms_.size(); ++c) writeComm(c);
    for (size_t g = 0; g < gpus_.size(); ++g) endProcess(g);
    fillPeers();
    job_.version = v_;
    job_.network = o_.network;
    job_.net = net_;
    job_.shape = printed("%s %s, %d hosts x %d GPUs, %zu comms, %d channels", v_.text().c_str(), net_.c_str(), hosts_,
                         perHost_, comms_.size(), channels_);
    return std::move(job_);
  }

 private:
  // "%s:%d:%d [%d] NCCL INFO " (debug.cc: v2.7.8 debug.cc:149, v2.30.7 debug.cc:354; 2.31.2 taken as 2.30.7's,
  // docs/paths.md says why).
  // Before 2.12 a communicator is set up on an init thread of its own, whose tid its Channel lines and its
  // Init COMPLETE line carry (as the real 2.9.9 log shows); later on the caller's thread. 2.26+ may put
  // NCCL_DEBUG_TIMESTAMP_FORMAT's "[%F %T] " first (v2.26.6 debug.cc:295-326).
  std::string header(const Gpu& g) const {
    const int tid = onInitThread_ ? g.pid + 40 + 3 * commNow_ : g.tid;
    const std::string stamp = timestamps_ ? printed("[2026-12-06 05:%02d:%02d] ", g.host % 60, g.local * 7 % 60) : "";
    return stamp + printed("%s:%d:%d [%d] NCCL INFO ", g.hostName.c_str(), g.pid, tid, g.cudaDev);
  }

  void say(size_t g, const std::string& message, int end = -1) {
    job_.processes[g].lines.push_back(Line{header(gpus_[g]) + message, end, end >= 0});
  }

  void drawShape() {
    hosts_ = uniform(rng_, 2, 6);
    timestamps_ = v_.atLeast(26) && chance(rng_, 0.3);
    allSubsystems_ = v_.atLeast(31) && chance(rng_, 0.3);  // drawn only where it changes a line
    perHost_ = uniform(rng_, 1, 8);
    channels_ = uniform(rng_, 2, 8);
    net_ = o_.network == Network::Ib ? "IB" : o_.network == Network::Socket ? "Socket" : o_.pluginName;
    static const char* kPrefixes[] = {"node", "gpu-node-", "dgx-a100-", "rack03-tray", "ip-10-0-1-", "worker-"};
    const std::string prefix = kPrefixes[uniform(rng_, 0, 5)];
    const bool containers = chance(rng_, 0.3);  // every pod's processes have the same small pids
    std::set<std::string> names;
    for (int h = 0; h < hosts_; ++h) {
      std::string name;
      do name = prefix + std::to_string(uniform(rng_, 0, 40));
      while (!names.insert(name).second);
      std::vector<int> nvml(static_cast<size_t>(perHost_));
      for (int l = 0; l < perHost_; ++l) nvml[static_cast<size_t>(l)] = l;
      if (chance(rng_, 0.2)) std::shuffle(nvml.begin(), nvml.end(), rng_);  // CUDA_VISIBLE_DEVICES reordered
      for (int l = 0; l < perHost_; ++l) {
        Gpu g;
        g.host = h;
        g.local = l;
        g.hostName = name;
        g.pid = containers ? 81 + l : uniform(rng_, 1000, 4000000);
        g.tid = g.pid;
        g.cudaDev = l;
        g.nvmlDev = nvml[static_cast<size_t>(l)];
        g.busId = 0x1b000 + 0x20000L * g.nvmlDev;
        gpus_.push_back(g);
      }
    }
    drawNics();
    const int comms = v_.atLeast(16, 2) && chance(rng_, 0.4) ? 2 : 1;
    for (int c = 0; c < comms; ++c) {
      Comm comm;
      comm.commId = rng_();
      comm.split = c == 1 && v_.atLeast(31) && chance(rng_, 0.5);
      for (size_t g = 0; g < gpus_.size(); ++g) {
        comm.rankOf.push_back(c == 0 ? static_cast<int>(g) : static_cast<int>(gpus_.size() - 1 - g));
        comm.pointer.push_back(
            printed("0x%llx", static_cast<unsigned long long>(0x550000000000ULL + (rng_() & 0xffffffff0ULL))));
      }
      comms_.push_back(std::move(comm));
    }
    job_.processes.resize(gpus_.size());
    for (size_t g = 0; g < gpus_.size(); ++g) {
      job_.processes[g].host = gpus_[g].hostName;
      job_.processes[g].pid = gpus_[g].pid;
    }
  }

  // Names not in index order (NCCL_IB_HCA picks some): the device number is not the name's number.
  void drawNics() {
    if (o_.network == Network::Socket) {
      static const char* kIfs[] = {"eth0", "eth1", "ens1f0", "enp65s0"};
      const int n = uniform(rng_, 1, 2);
      for (int i = 0; i < n; ++i) nics_.push_back(kIfs[uniform(rng_, 0, 1) * 2 + i]);
      return;
    }
    std::vector<int> numbers(12);
    for (int i = 0; i < 12; ++i) numbers[static_cast<size_t>(i)] = i;
    std::shuffle(numbers.begin(), numbers.end(), rng_);
    numbers.resize(static_cast<size_t>(std::max(perHost_, 1)));
    std::sort(numbers.begin(), numbers.end());
    roce_ = chance(rng_, 0.5);
    const std::string link = roce_ ? "/RoCE" : "/IB";
    // 2.20.3-2.23.4 merge the ports of dual-port NICs into one device (NCCL_IB_MERGE_NICS): "[d]={[p] mlx5_2:1/IB,
    // [p+1] mlx5_2:2/IB}", an unmerged device printing its physical index (v2.20.5 net_ib.cc:313-324); the import
    // names a merged device after its HCA.
    mergedList_ = o_.network == Network::Ib && v_.atLeast(20, 3) && !v_.atLeast(24) && chance(rng_, 0.4);
    int physical = 0;
    for (const int n : numbers) {
      const std::string hca = "mlx5_" + std::to_string(n);
      nics_.push_back(hca);
      if (mergedList_ && chance(rng_, 0.5)) {
        entries_.push_back(printed("={[%d] %s:1%s, [%d] %s:2%s}", physical, hca.c_str(), link.c_str(), physical + 1,
                                   hca.c_str(), link.c_str()));
        physical += 2;
      } else {
        entries_.push_back(printed("[%d]%s:1%s", physical, hca.c_str(), link.c_str()));
        ++physical;
      }
    }
  }

  // NET/IB (v2.7.8 net_ib.cc:198/203 " [%d]%s:%d/%s" and "Using%s ; OOB %s:%s"; v2.12.12 net_ib.cc:243/248 adds
  // "%s" for "[RO]"; v2.30.7 net_ib/init.cc:494-513 ":rail:plane", unchanged in v2.31.2 net_ib/init.cc:499-518;
  // nccl-rdma-sharp-plugins p2p_plugin.c:704 the same as 2.12's, "/SHARP" with SHARP) and NET/Socket (v2.7.8
  // net_socket.cc:62 " [%d]%s:%s").
  std::string deviceList(const Gpu& g) {
    std::string line;
    if (o_.network == Network::Socket) {
      for (size_t i = 0; i < nics_.size(); ++i)
        line += printed(" [%zu]%s:10.%d.%zu.%d<0>", i, nics_[i].c_str(), g.host, i, 10 + g.host);
      return "NET/Socket : Using" + line;
    }
    const bool rails = v_.atLeast(30) && o_.network == Network::Ib && chance(rng_, 0.5);
    for (size_t i = 0; i < nics_.size(); ++i) {
      if (mergedList_) {  // "[d]={...}" for a merged device, "[physical]name:port/LINK" for another
        line += entries_[i].front() == '=' ? printed(" [%zu]", i) + entries_[i] : " " + entries_[i];
        continue;
      }
      line += printed(" [%zu]%s:1", i, nics_[i].c_str());
      if (rails) line += printed(":%zu:0", i);
      line += roce_ ? "/RoCE" : "/IB";
      if (o_.network == Network::IbPlugin && sharp_) line += "/SHARP";
    }
    const std::string oob = printed("ib0:10.0.%d.1<0>", g.host);
    if (!v_.atLeast(12) && o_.network == Network::Ib) return "NET/IB : Using" + line + " ; OOB " + oob;
    return "NET/IB : Using" + line + (relaxed_ ? " [RO]" : " ") + "; OOB " + oob;
  }

  // NCCL's version: 2.7-2.21 printf's "NCCL version ..." (no header) and an INFO line where the log is a
  // file of its own (v2.7.8 init.cc:273-280); 2.22+ an INFO line of each process (v2.31.2 init.cc:734-742).
  void versionLine(size_t g) {
    const std::string text = "NCCL version " + v_.text() + "+cuda12.2";
    if (o_.perProcessFiles || v_.atLeast(22)) {
      say(g, text);
    } else if (gpus_[g].local == 0 && gpus_[g].host == 0) {
      job_.processes[g].lines.push_back(Line{text, -1, false});
    }
  }

  void startProcess(size_t g) {
    relaxed_ = v_.atLeast(12) && chance(rng_, 0.5);
    sharp_ = chance(rng_, 0.3);
    versionLine(g);
    say(g, printed("Bootstrap : Using eth0:10.0.%d.1<0>", gpus_[g].host));
    if (o_.network != Network::Socket && chance(rng_, 0.3))
      say(g, "NET/Plugin : No plugin found (libnccl-net.so), using internal implementation");
    say(g, deviceList(gpus_[g]));
    if (o_.network == Network::IbPlugin) say(g, "NET/Plugin: Loaded net plugin " + net_ + " (v8)");
  }

  // Init START (2.18.3+) and COMPLETE, or the one COMPLETE line of older versions (after the Channel lines).
  std::string commLine(size_t c, size_t g, bool start) const {
    const Comm& comm = comms_[c];
    const Gpu& gpu = gpus_[g];
    const int rank = comm.rankOf[g];
    const int n = static_cast<int>(gpus_.size());
    const char* ptr = comm.pointer[g].c_str();
    const auto id = static_cast<unsigned long long>(comm.commId);
    const char* what = start ? "Init START" : "Init COMPLETE";
    if (!v_.atLeast(16, 2))  // v2.7.8 init.cc:843
      return printed("comm %s rank %d nranks %d cudaDev %d busId %lx - Init COMPLETE", ptr, rank, n, gpu.cudaDev,
                     gpu.busId);
    if (!v_.atLeast(18, 3))  // v2.16.5 init.cc:1109
      return printed("comm %s rank %d nranks %d cudaDev %d busId %lx commId 0x%llx - Init COMPLETE", ptr, rank, n,
                     gpu.cudaDev, gpu.busId, id);
    std::string fields = printed("comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %lx commId 0x%llx - %s", ptr,
                                 rank, n, gpu.cudaDev, gpu.nvmlDev, gpu.busId, id, what);
    if (!v_.atLeast(21)) return fields;  // v2.18.6 init.cc:1356/1375
    if (comm.split) {
      // 2.31.2 prints a split child's commId again, and a space before "- Init START" (v2.31.2 init.cc,
      // ncclCommInitRankFunc's split branch; v2.30.7 init.cc:1886/1938 printed no commId, and 1886 no space).
      const Comm& parent = comms_[0];
      return printed(
          "ncclCommSplit comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %lx commId 0x%llx parent %s "
          "childCount %d color %d key %d - %s",
          ptr, rank, n, gpu.cudaDev, gpu.nvmlDev, gpu.busId, id, parent.pointer[g].c_str(), 1, 0, rank, what);
    }
    fields = "ncclCommInitRank " + fields;  // v2.21.5 init.cc:1544/1573, v2.27.7 init.cc:1441/1469
    if (start && v_.atLeast(29)) fields = printed("[Rank %d] ", rank) + fields;  // v2.29.7 init.cc:1699
    return fields;
  }

  std::string tag(size_t g) const {
    // 2.7-2.18.1 print the bus id ("%lx"), 2.18.3+ the NVML index (v2.18.3 net.cc:186).
    return v_.atLeast(18, 3) ? std::to_string(gpus_[g].nvmlDev) : printed("%lx", gpus_[g].busId);
  }

  size_t gpuOf(int host, int local) const { return static_cast<size_t>(host * perHost_ + local); }

  // One network connection: the sender's and the receiver's lines, each the truth of its end.
  void connect(size_t c, size_t from, size_t to, int channel, int connIndex, int proxy, bool shared) {
    const bool gdr = o_.network != Network::Socket && gdr_;
    for (const bool send : {true, false}) {
      const size_t g = send ? from : to;
      const int device = send && proxy >= 0 ? nicOf(static_cast<size_t>(proxy)) : nicOf(g);
      TruthEnd end;
      end.host = gpus_[g].hostName;
      end.pid = gpus_[g].pid;
      end.rank = comms_[c].rankOf[g];
      end.peerRank = comms_[c].rankOf[send ? to : from];
      end.send = send;
      end.channel = channel;
      end.connIndex = v_.atLeast(12) ? connIndex : -1;
      end.net = net_;
      end.device = device;
      end.hca = nics_[static_cast<size_t>(device)];
      end.gdr = gdr;
      end.shared = shared;
      end.proxyRank = send && proxy >= 0 ? comms_[c].rankOf[static_cast<size_t>(proxy)] : -1;
      if (v_.atLeast(16, 2)) end.commId = comms_[c].commId;
      if (v_.atLeast(18, 3)) end.gpu = gpus_[g].nvmlDev;
      job_.ends.push_back(end);
      static const char* kFlushes[] = {"None", "Always", "C2c"};  // ncclTopoFlushTypeStr's (v2.31.2 net.cc)
      const char* flush = gdr && !send && v_.atLeast(31) ? kFlushes[uniform(rng_, 0, 2)] : "";
      say(g, channelLine(c, from, to, end, flush), static_cast<int>(job_.ends.size() - 1));
    }
  }

  // net.cc: v2.7.8 net.cc:100/147 "Channel %02d : %d[%lx] -> %d[%lx] [send] via NET/%s/%d%s"; v2.8.4 net.cc:109
  // adds "%s" for "/Shared"; v2.12.12 net.cc:184/187/220 "Channel %02d/%d" and PXN "NET/%s/%d(%d)"; v2.18.3
  // net.cc:186 "%d[%d]"; v2.26.6 net.cc:217/221/263 "(PCI)" after "/GDRDMA"; v2.31.2 net.cc:395 ends the
  // receive side with GDR with "/flush=%s" (None, Always, C2c), its send side (net.cc:323/327) unchanged.
  std::string channelLine(size_t c, size_t from, size_t to, const TruthEnd& e, const char* flush) const {
    const std::string head =
        v_.atLeast(12) ? printed("Channel %02d/%d : ", e.channel, e.connIndex) : printed("Channel %02d : ", e.channel);
    std::string via = printed("NET/%s/%d", net_.c_str(), e.device);
    if (e.proxyRank >= 0) via += printed("(%d)", e.proxyRank);
    if (e.gdr) via += "/GDRDMA";
    if (e.gdr && pciMode_ && v_.atLeast(26)) via += "(PCI)";
    if (e.shared) via += "/Shared";
    if (e.gdr && !e.send && v_.atLeast(31)) via += std::string("/flush=") + flush;
    return head +
           printed("%d[%s] -> %d[%s] %s via ", comms_[c].rankOf[from], tag(from).c_str(), comms_[c].rankOf[to],
                   tag(to).c_str(), e.send ? "[send]" : "[receive]") +
           via;
  }

  int nicOf(size_t g) const { return gpus_[g].local % static_cast<int>(nics_.size()); }

  // Lines NCCL prints around the connections: rings and trees (no "->" between ranks), intra-node P2P.
  void surroundings(size_t c, size_t g) {
    const Comm& comm = comms_[c];
    std::string ring;
    for (size_t r = 0; r < gpus_.size(); ++r) ring += printed(" %3d", comm.rankOf[r]);
    say(g, printed("Channel %02d/%02d :", 0, channels_) + ring);
    say(g, printed("Trees [0] %d/-1/-1->%d->-1 [1] -1/-1/-1->%d->%d", comm.rankOf[g], comm.rankOf[g], comm.rankOf[g],
                   comm.rankOf[g]));
    if (gpus_[g].local + 1 < perHost_) {
      const size_t next = g + 1;
      say(g, v_.atLeast(12) ? printed("Channel %02d/0 : %d[%s] -> %d[%s] via P2P/IPC", 0, comm.rankOf[g],
                                      tag(g).c_str(), comm.rankOf[next], tag(next).c_str())
                            : printed("Channel %02d : %d[%s] -> %d[%s] via P2P/IPC", 0, comm.rankOf[g], tag(g).c_str(),
                                      comm.rankOf[next], tag(next).c_str()));
    }
  }

  void writeComm(size_t c) {
    gdr_ = o_.network != Network::Socket && chance(rng_, 0.8);
    pciMode_ = chance(rng_, 0.2);
    commNow_ = static_cast<int>(c);
    for (size_t g = 0; g < gpus_.size(); ++g) {
      say(g, "Using network " + net_);  // v2.7.8 init.cc:124, v2.30.7 init.cc:486, v2.31.2 init.cc:508
      if (v_.atLeast(18, 3)) say(g, commLine(c, g, true));
      onInitThread_ = !v_.atLeast(12);
      surroundings(c, g);
      onInitThread_ = false;
    }
    onInitThread_ = !v_.atLeast(12);
    // Rings: on channel ch, GPU (ch mod G) of each host sends to the same GPU of the next host.
    for (int ch = 0; ch < channels_; ++ch) {
      const int local = ch % perHost_;
      for (int h = 0; h < hosts_; ++h) connect(c, gpuOf(h, local), gpuOf((h + 1) % hosts_, local), ch, 0, -1, false);
    }
    if (v_.atLeast(12)) p2p(c);
    for (size_t g = 0; g < gpus_.size(); ++g) {
      say(g, "Connected all rings");
      say(g, commLine(c, g, false));
    }
    onInitThread_ = false;
  }

  // Send/recv between hosts: connIndex 1, often through shared buffers, some through PXN (the proxy is the
  // GPU of the sender's host on the receiver's rail).
  void p2p(size_t c) {
    std::set<std::tuple<size_t, size_t, int>> done;
    const int pairs = uniform(rng_, 1, 2 * perHost_);
    for (int i = 0; i < pairs; ++i) {
      const int hf = uniform(rng_, 0, hosts_ - 1);
      const int ht = (hf + uniform(rng_, 1, hosts_ - 1)) % hosts_;
      const size_t from = gpuOf(hf, uniform(rng_, 0, perHost_ - 1));
      const size_t to = gpuOf(ht, uniform(rng_, 0, perHost_ - 1));
      const int channel = uniform(rng_, 0, 1);
      if (!done.emplace(from, to, channel).second) continue;
      const size_t proxyGpu = gpuOf(hf, gpus_[to].local);
      const int proxy =
          o_.network == Network::Ib && proxyGpu != from && chance(rng_, 0.5) ? static_cast<int>(proxyGpu) : -1;
      connect(c, from, to, channel, 1, proxy, chance(rng_, 0.6));
    }
  }

  // ncclCommDestroy's line, 2.12-2.21 (v2.12.12 init.cc:1047): the same pointer and rank as the Init line.
  // 2.22+ print it only under NCCL_DEBUG_SUBSYS=DESTROY (or ALL); 2.31.2 adds the commId (v2.31.2 init.cc:398).
  void endProcess(size_t g) {
    const bool destroys = (v_.atLeast(12) && !v_.atLeast(22)) || (v_.atLeast(31) && allSubsystems_);
    if (!destroys) return;
    for (const Comm& comm : comms_) {
      std::string line = printed("comm %s rank %d nranks %zu cudaDev %d busId %lx", comm.pointer[g].c_str(),
                                 comm.rankOf[g], gpus_.size(), gpus_[g].cudaDev, gpus_[g].busId);
      if (v_.atLeast(31)) line += printed(" commId 0x%llx", static_cast<unsigned long long>(comm.commId));
      say(g, line + " - Destroy COMPLETE");
    }
  }

  // The peer of each end is the process of the other end's line.
  void fillPeers() {
    for (TruthEnd& e : job_.ends) {
      for (const TruthEnd& other : job_.ends) {
        if (other.send == e.send || other.channel != e.channel || other.connIndex != e.connIndex ||
            other.commId != e.commId || other.rank != e.peerRank || other.peerRank != e.rank)
          continue;
        e.peerHost = other.host;
        e.peerPid = other.pid;
      }
    }
  }

  const JobOptions& o_;
  const NcclVersion v_;
  std::mt19937_64& rng_;
  NcclJob job_;
  std::vector<Gpu> gpus_;
  std::vector<Comm> comms_;
  std::vector<std::string> nics_;
  std::string net_;
  int hosts_ = 0, perHost_ = 0, channels_ = 0;
  bool roce_ = false, relaxed_ = false, sharp_ = false, gdr_ = true, pciMode_ = false;
  bool onInitThread_ = false, timestamps_ = false, mergedList_ = false, allSubsystems_ = false;
  int commNow_ = 0;
  std::vector<std::string> entries_;  // merged lists' entries: "mlx5_3:1/IB" or "={[2] mlx5_3:1/IB, [3] mlx5_3:2/IB}"
};

}  // namespace

std::string NcclVersion::text() const {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

const std::vector<NcclVersion>& ncclVersions() {
  static const std::vector<NcclVersion> versions = {
      {2, 7, 8},  {2, 8, 4},  {2, 9, 9},  {2, 10, 3}, {2, 11, 4}, {2, 12, 12}, {2, 13, 4}, {2, 14, 3}, {2, 15, 5},
      {2, 16, 5}, {2, 17, 1}, {2, 18, 1}, {2, 18, 6}, {2, 19, 4}, {2, 20, 5},  {2, 21, 5}, {2, 22, 3}, {2, 23, 4},
      {2, 24, 3}, {2, 25, 1}, {2, 26, 6}, {2, 27, 7}, {2, 28, 9}, {2, 29, 7},  {2, 30, 7}, {2, 31, 2}};
  return versions;
}

NcclJob makeJob(const JobOptions& options, std::mt19937_64& rng) {
  return JobWriter(options, rng).make();
}

}  // namespace railtune::eval::import_suite
