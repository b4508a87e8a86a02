// Across processes: a peer program (verbs_sim_peer) on host1 of the same fabric and rendezvous directory,
// reached through the registry and the agents' sockets; a peer that is killed; and the presets as another
// process sees them. Also the description and the sysfs tool, which need no library.
#include <arpa/inet.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "emulator/verbs_sim/sim_fabric.h"
#include "emulator/verbs_sim/sim_sysfs.h"
#include "tests/emulator/verbs_sim/verbs_sim_test_util.h"

extern char** environ;

namespace railtune::verbs_sim::test {
namespace {

// A child process with its stdin and stdout on pipes, started with posix_spawn (no fork of this
// multi-threaded process) and with some variables of the environment replaced.
class Child {
 public:
  Child(const std::vector<std::string>& args, const std::vector<std::string>& env) {
    int in[2], out[2];
    EXPECT_EQ(pipe(in), 0);
    EXPECT_EQ(pipe(out), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addclose(&actions, in[1]);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    std::vector<std::string> envStrings = env;
    for (char** e = environ; *e != nullptr; ++e) {
      std::string var = *e;
      bool replaced = false;
      for (const std::string& mine : env) replaced |= var.substr(0, var.find('=')) == mine.substr(0, mine.find('='));
      if (!replaced) envStrings.push_back(var);
    }
    std::vector<char*> argv, envp;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (const std::string& e : envStrings) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    EXPECT_EQ(posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), envp.data()), 0);
    posix_spawn_file_actions_destroy(&actions);
    close(in[0]);
    close(out[1]);
    toChild_ = fdopen(in[1], "w");
    fromChild_ = fdopen(out[0], "r");
  }
  ~Child() {
    if (toChild_ != nullptr) fclose(toChild_);
    if (fromChild_ != nullptr) fclose(fromChild_);
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  void send(const std::string& line) {
    std::fprintf(toChild_, "%s\n", line.c_str());
    std::fflush(toChild_);
  }
  std::string line() {
    char buf[4096];
    if (std::fgets(buf, sizeof buf, fromChild_) == nullptr) return "";
    std::string s = buf;
    if (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
  }
  std::string all() {
    std::string text, l;
    while (!(l = line()).empty()) text += l + "\n";
    return text;
  }
  int wait() {
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  void killNow() {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
  FILE* toChild_ = nullptr;
  FILE* fromChild_ = nullptr;
};

uint64_t fnv(const uint8_t* p, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

struct PeerInfo {
  uint32_t qpn = 0, lid = 0, rkey = 0;
  uint64_t addr = 0;
};

PeerInfo startResponder(Child& child, const Endpoint& e, const RtsParams& p) {
  PeerInfo info;
  std::istringstream in(child.line());
  std::string word;
  in >> word >> info.qpn >> info.lid >> info.addr >> info.rkey;
  EXPECT_EQ(word, "info");
  EXPECT_EQ(info.lid, 17u);  // host1's first device
  child.send("peer " + std::to_string(e.qp->qpNum) + " " + std::to_string(e.lid));
  EXPECT_EQ(toInit(e.qp), 0);
  EXPECT_EQ(toRtr(e.qp, info.qpn, static_cast<uint16_t>(info.lid)), 0);
  EXPECT_EQ(toRts(e.qp, p.timeout, p.retry, p.rnrRetry), 0);
  EXPECT_EQ(child.line(), "ready");
  return info;
}

std::vector<std::string> peerEnv(const char* host, const char* fabric = "gb300") {
  return {std::string("RAILTUNE_VERBS_SIM_HOST=") + host, std::string("RAILTUNE_VERBS_SIM_FABRIC=") + fabric,
          "RAILTUNE_VERBS_SIM_DIR=" + SimLib::get().dir};
}

TEST(VerbsSimProcess, WriteWriteWithImmAndReadWithAPeerProcess) {
  Endpoint e = makeEndpoint("mlx5_0");
  Child child({VERBS_SIM_PEER, VERBS_SIM_LIBRARY, "responder", "mlx5_0"}, peerEnv("host1"));
  PeerInfo peer = startResponder(child, e, {});
  ASSERT_NE(peer.qpn, 0u);
  std::vector<uint8_t> src(256 << 10), back(64 << 10, 0);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 31 + 1);
  IbvMr* srcMr = V().regMr(e.pd, src.data(), src.size(), kAllAccess);
  IbvMr* backMr = V().regMr(e.pd, back.data(), back.size(), kAllAccess);
  IbvSge sge{addrOf(src.data()), static_cast<uint32_t>(src.size()), srcMr->lkey};
  IbvSendWr w1 = writeWr(1, &sge, 1, peer.addr, peer.rkey, kIbvWrRdmaWrite, 0);
  IbvSendWr w2 = writeWr(2, nullptr, 0, 0, 0, kIbvWrRdmaWriteWithImm);
  w2.immData = htonl(7);
  w1.next = &w2;
  IbvSendWr* bad = nullptr;
  ASSERT_EQ(postSend(e.qp, &w1, &bad), 0);
  auto wcs = pollFor(e.cq, 1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, kIbvWcSuccess);
  child.send("poll");
  EXPECT_EQ(child.line(), "wc 0 129 0 7");
  child.send("sum 0 " + std::to_string(src.size()));
  EXPECT_EQ(child.line(), "sum " + std::to_string(fnv(src.data(), src.size())));
  // READ back a part the peer filled itself (byte i = i * 13 + 5).
  IbvSge rsge{addrOf(back.data()), static_cast<uint32_t>(back.size()), backMr->lkey};
  ASSERT_EQ(postSend(e.qp, &(w1 = writeWr(3, &rsge, 1, peer.addr + (512 << 10), peer.rkey, kIbvWrRdmaRead)), &bad), 0);
  wcs = pollFor(e.cq, 1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, kIbvWcSuccess);
  EXPECT_EQ(wcs[0].opcode, kIbvWcRdmaRead);
  for (size_t i = 0; i < back.size(); ++i) {
    ASSERT_EQ(back[i], static_cast<uint8_t>(((512u << 10) + i) * 13 + 5)) << i;
  }
  child.send("exit");
  EXPECT_EQ(child.wait(), 0);
  EXPECT_EQ(V().deregMr(srcMr), 0);
  EXPECT_EQ(V().deregMr(backMr), 0);
  closeEndpoint(e);
}

TEST(VerbsSimProcess, AKilledPeerEndsInRetryExceeded) {
  Endpoint e = makeEndpoint("mlx5_0");
  Child child({VERBS_SIM_PEER, VERBS_SIM_LIBRARY, "responder", "mlx5_0"}, peerEnv("host1"));
  RtsParams p;
  p.timeout = 10;  // 4.19 ms per try
  p.retry = 3;
  startResponder(child, e, p);
  child.killNow();
  {
    // On the test's clock: the dead peer's socket refuses every try; the fourth ACK timeout ends the WR.
    StoppedClock clock;
    IbvSendWr wr = writeWr(1, nullptr, 0, 0, 0, kIbvWrRdmaWrite, 0);  // unsignaled: the error completes anyway
    IbvSendWr* bad = nullptr;
    ASSERT_EQ(postSend(e.qp, &wr, &bad), 0);
    ASSERT_EQ(awaitCounters(e, [](const QpCounters& c) { return c.packetsSent >= 1; }).packetsSent, 1u);
    IbvWc wc[2];
    for (int timeout = 1; timeout <= 3; ++timeout) {
      StoppedClock::step(4.3);
      EXPECT_EQ(pollCq(e.cq, 2, wc), 0) << "after " << timeout << " ACK timeouts";
    }
    StoppedClock::step(4.3);
    ASSERT_EQ(pollCq(e.cq, 2, wc), 1);  // (retry_cnt + 1) timeouts
    EXPECT_EQ(wc[0].status, kIbvWcRetryExcErr);
    EXPECT_EQ(countersOf(e).retries, 4u);
  }
  closeEndpoint(e);
}

TEST(VerbsSimProcess, FaultsFromTheEnvironmentApplyInThePeerProcess) {
  Endpoint e = makeEndpoint("mlx5_0");
  std::vector<std::string> env = peerEnv("host1");
  env.push_back("RAILTUNE_VERBS_SIM_FAULTS=adversarial on; port_down mlx5_0 1 @30ms");
  Child child({VERBS_SIM_PEER, VERBS_SIM_LIBRARY, "responder", "mlx5_0"}, env);
  RtsParams p;
  p.timeout = 10;
  p.retry = 2;
  startResponder(child, e, p);
  child.send("event");  // the peer's PORT_ERR: the fault has been applied there
  EXPECT_EQ(child.line(), "event " + std::to_string(kIbvEventPortErr));
  IbvSendWr wr = writeWr(1, nullptr, 0, 0, 0, kIbvWrRdmaWrite);
  IbvSendWr* bad = nullptr;
  ASSERT_EQ(postSend(e.qp, &wr, &bad), 0);
  auto wcs = pollFor(e.cq, 1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, kIbvWcRetryExcErr);  // the peer's port drops every packet
  child.send("exit");
  EXPECT_EQ(child.wait(), 0);
  closeEndpoint(e);
}

// A forked child (no exec) inherits no agent thread: it starts its own with its first QP, and the QPs it
// inherited keep the parent's registry files. TSan does not support threads started after a
// multi-threaded fork, so the case is left to the other builds. Under clang 14's ASan the child's agent thread
// now and then never delivers (the child's completion times out after 5 s, about 1 run in 15 on a loaded
// 2-core machine, never in release): a lock of the sanitizer runtime another parent thread held at fork() is
// the likely cause, which the sim's own fork handlers cannot take. The release and arm64 builds run it.
#if !defined(__SANITIZE_THREAD__)
TEST(VerbsSimProcess, AForkedChildGetsItsOwnAgent) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "TSan cannot follow a forked child of a multi-threaded process";
#elif defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "ASan: a sanitizer lock held by another thread at fork() can stall the child (release runs it)";
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
  GTEST_SKIP() << "TSan cannot follow a forked child of a multi-threaded process";
#elif __has_feature(address_sanitizer)
  GTEST_SKIP() << "ASan: a sanitizer lock held by another thread at fork() can stall the child (release runs it)";
#endif
#endif
  Endpoint parent = makeEndpoint("mlx5_0");
  ASSERT_NO_FATAL_FAILURE(connectSelf(parent));
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    Endpoint a = makeEndpoint("mlx5_2");
    Endpoint b = makeEndpoint("mlx5_3");
    int failed = a.qp == nullptr || b.qp == nullptr;
    failed |= toInit(a.qp) | toInit(b.qp) | toRtr(a.qp, b.qp->qpNum, b.lid) | toRtr(b.qp, a.qp->qpNum, a.lid) |
              toRts(a.qp) | toRts(b.qp);
    std::vector<uint8_t> src(4096, 9), dst(4096, 0);
    IbvMr* s = V().regMr(a.pd, src.data(), src.size(), kAllAccess);
    IbvMr* d = V().regMr(b.pd, dst.data(), dst.size(), kAllAccess);
    IbvSge sge{addrOf(src.data()), 4096, s->lkey};
    IbvSendWr wr = writeWr(1, &sge, 1, addrOf(dst.data()), d->rkey);
    IbvSendWr* bad = nullptr;
    failed |= postSend(a.qp, &wr, &bad);
    auto wcs = pollFor(a.cq, 1, 5);
    failed |= wcs.size() != 1 || wcs[0].status != kIbvWcSuccess || dst != src;
    std::fflush(nullptr);
    _exit(failed != 0 ? 1 : 0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  // The parent's QP still works and still owns its registry file.
  std::vector<uint8_t> buf(256, 1);
  IbvMr* mr = V().regMr(parent.pd, buf.data(), buf.size(), kAllAccess);
  IbvSge sge{addrOf(buf.data()), 64, mr->lkey};
  IbvSendWr wr = writeWr(2, &sge, 1, addrOf(buf.data() + 128), mr->rkey);
  IbvSendWr* bad = nullptr;
  ASSERT_EQ(postSend(parent.qp, &wr, &bad), 0);
  auto wcs = pollFor(parent.cq, 1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, kIbvWcSuccess);
  EXPECT_EQ(V().deregMr(mr), 0);
  closeEndpoint(parent);
}
#endif

TEST(VerbsSimProcess, AnotherProcessSeesTheRoceAndTwoPlanePresets) {
  Child roce({VERBS_SIM_PEER, VERBS_SIM_LIBRARY, "devices"}, peerEnv("host3", "dgx-h100-roce"));
  std::string text = roce.all();
  EXPECT_EQ(roce.wait(), 0);
  EXPECT_NE(text.find("dev mlx5_7 ports 1 part 4129"), std::string::npos) << text;
  EXPECT_NE(text.find("port 1 state 4 link 2 lid 0 width 2 speed 128 speed100 4000 gids 4"), std::string::npos);
  EXPECT_NE(text.find("gid 3 00000000000000000000ffff0a070301 RoCE v2"), std::string::npos);  // 10.7.3.1
  EXPECT_NE(text.find("gid 2 00000000000000000000ffff0a000301 IB/RoCE v1"), std::string::npos);
  EXPECT_NE(text.find("gid 1 fe80"), std::string::npos);

  Child planes({VERBS_SIM_PEER, VERBS_SIM_LIBRARY, "devices"}, peerEnv("host1", "gb300-2plane"));
  text = planes.all();
  EXPECT_EQ(planes.wait(), 0);
  EXPECT_NE(text.find("dev mlx5_7 ports 1 part 4131"), std::string::npos) << text;
  EXPECT_NE(text.find("link 1 lid 24 width 16 speed 0 speed100 4000 gids 1"), std::string::npos);
}

TEST(VerbsSimFabric, PresetsGiveEveryDeviceItsOwnGuidLidAndGid) {
  for (const std::string& name : presetNames()) {
    auto fabric = presetFabric(name, 4);
    ASSERT_TRUE(fabric.has_value()) << name;
    std::set<uint64_t> guids;
    std::set<std::string> gids;
    std::set<int> lids;
    size_t devices = 0;
    for (const auto& host : fabric->hosts) {
      for (const auto& dev : host.devices) {
        ++devices;
        guids.insert(dev.nodeGuid);
        for (const auto& port : dev.ports) {
          if (!port.ethernet) lids.insert(port.lid);
          for (const auto& gid : port.gids) gids.insert(gidText(gid) + (gid.roceV2 ? "v2" : "v1"));
        }
      }
    }
    EXPECT_EQ(guids.size(), devices) << name;
    if (name == "dgx-h100-roce") {
      EXPECT_EQ(gids.size(), devices * 4);
    } else {
      EXPECT_EQ(lids.size(), devices) << name;
      EXPECT_EQ(gids.size(), devices) << name;
    }
  }
  EXPECT_EQ(presetFabric("gb300")->hosts[0].devices.size(), 4u);
  EXPECT_EQ(presetFabric("gb300-2plane")->hosts[0].devices.size(), 8u);
  EXPECT_EQ(presetFabric("gb300-2plane")->hosts[0].devices[3].plane, 1);
  EXPECT_EQ(presetFabric("dgx-h100-roce")->hosts[0].devices.size(), 8u);
  EXPECT_FALSE(presetFabric("nope").has_value());
}

TEST(VerbsSimFabric, HostSelectionAndJsonDescription) {
  auto fabric = presetFabric("gb300", 4);
  EXPECT_EQ(selectHost(*fabric, "host2"), 2);
  EXPECT_EQ(selectHost(*fabric, "3"), 3);
  int hashed = selectHost(*fabric, "some-node-name");
  EXPECT_GE(hashed, 0);
  EXPECT_LT(hashed, 4);
  EXPECT_EQ(selectHost(*fabric, "some-node-name"), hashed);  // stable
  std::string path = SimLib::get().dir + "/fabric.json";
  std::ofstream(path) << R"({"preset": "dgx-h100-roce", "hosts": ["a", "b"], "down": ["b/mlx5_3/1"]})";
  std::string error;
  auto custom = loadFabric(path, &error);
  ASSERT_TRUE(custom.has_value()) << error;
  ASSERT_EQ(custom->hosts.size(), 2u);
  EXPECT_EQ(custom->hosts[1].name, "b");
  EXPECT_FALSE(custom->hosts[1].devices[3].ports[0].up);
  EXPECT_TRUE(custom->hosts[0].devices[3].ports[0].up);
  std::ofstream(path) << R"({"preset": "gb300", "down": ["host0/mlx5_9/1"]})";
  EXPECT_FALSE(loadFabric(path, &error).has_value());
  EXPECT_NE(error.find("mlx5_9"), std::string::npos);
  EXPECT_FALSE(loadFabric("/nonexistent/fabric.json", &error).has_value());
}

TEST(VerbsSimFabric, TheToolWritesSysfsInTheKernelsFormats) {
  std::string out = SimLib::get().dir + "/sysfs-roce";
  Child tool({VERBS_SIM_TOOL, "sysfs", "--fabric", "dgx-h100-roce", "--host", "host2", "--out", out}, {});
  EXPECT_EQ(tool.wait(), 0);
  auto read = [&](const std::string& rel) {
    std::ifstream in(out + "/sys/class/infiniband/" + rel);
    std::string l;
    std::getline(in, l);
    return l;
  };
  EXPECT_EQ(read("mlx5_1/ports/1/state"), "4: ACTIVE");
  EXPECT_EQ(read("mlx5_1/ports/1/rate"), "400 Gb/sec (4X NDR)");
  EXPECT_EQ(read("mlx5_1/ports/1/link_layer"), "Ethernet");
  EXPECT_EQ(read("mlx5_1/ports/1/gid_attrs/types/1"), "RoCE v2");
  EXPECT_EQ(read("mlx5_1/ports/1/gid_attrs/types/0"), "IB/RoCE v1");
  EXPECT_EQ(read("mlx5_1/ports/1/gids/2"), "0000:0000:0000:0000:0000:ffff:0a01:0201");
  EXPECT_EQ(read("mlx5_0/node_guid"), "b83f:d203:0003:0000");
  EXPECT_TRUE(std::filesystem::exists(out + "/sys/class/infiniband/mlx5_0/device/net/eth0/operstate"));
  EXPECT_TRUE(std::filesystem::exists(out + "/sys/class/net/eth0/device"));

  auto fabric = presetFabric("gb300", 2);
  (*fabric).hosts[1].devices[2].ports[0].up = false;
  std::string ib = SimLib::get().dir + "/sysfs-ib";
  ASSERT_EQ(writeSysfsTree(*fabric, 1, ib), "");
  auto readIb = [&](const std::string& rel) {
    std::ifstream in(ib + "/sys/class/infiniband/" + rel);
    std::string l;
    std::getline(in, l);
    return l;
  };
  EXPECT_EQ(readIb("mlx5_0/ports/1/rate"), "800 Gb/sec (4X XDR)");
  EXPECT_EQ(readIb("mlx5_0/ports/1/link_layer"), "InfiniBand");
  EXPECT_EQ(readIb("mlx5_2/ports/1/state"), "1: DOWN");
  EXPECT_EQ(readIb("mlx5_0/ports/1/lid"), "0x11");
  EXPECT_EQ(readIb("mlx5_0/ports/1/gids/0"), "fe80:0000:0000:0000:b83f:d203:0002:0000");
  EXPECT_EQ(readIb("mlx5_1/sys_image_guid"), "b83f:d203:0002:0100");
  EXPECT_NE(std::filesystem::canonical(ib + "/sys/class/infiniband/mlx5_1/device").string().find("0000:43:00.0"),
            std::string::npos);
}

}  // namespace
}  // namespace railtune::verbs_sim::test
