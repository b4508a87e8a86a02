// The verbs transport's acceptor facing a peer whose setup fails a check: a raw client speaks the setup stream
// (hello, preamble) and then sends metadata with the wrong magic, another version, no QPs, or a right metadata
// block followed by a wrong ready word. accept returns NULL without failing (the peer's connect is what fails),
// and says, in one WARN, which peer it refused and which check failed; a real connection afterwards gets through.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>

#include "net_plugin/transports/ib/ib_wire.h"
#include "net_plugin/transports/tcp_setup/setup_wire.h"
#include "tests/e2e/net_ib_harness.h"
#include "tests/e2e/net_ib_workload.h"

namespace railtune::testing::netfault {
namespace {

namespace wire = net::tcp_setup;
namespace ib = net::ib;

enum class RefusedStep { Magic, Version, NoQps, ReadyWord };

struct RefusalCase {
  RefusedStep step;
  const char* name;
  const char* check;  // what the WARN must name
};

void PrintTo(const RefusalCase& c, std::ostream* out) {
  *out << c.name;
}

// Blocking helpers on the raw client's socket.
bool sendAllRaw(int fd, const void* data, size_t size) {
  return ::send(fd, data, size, MSG_NOSIGNAL) == static_cast<ssize_t>(size);
}
bool receiveAllRaw(int fd, void* data, size_t size) {
  size_t got = 0;
  while (got < size) {
    const ssize_t n = ::recv(fd, static_cast<char*>(data) + got, size - got, 0);
    if (n <= 0) return false;
    got += static_cast<size_t>(n);
  }
  return true;
}

// A metadata block that passes every check, with one field spoiled as the case says.
ib::MetaBytes refusedMetadata(RefusedStep step) {
  ib::ConnectionMeta meta;
  meta.qpCount = 1;
  meta.qpn[0] = 0x1234;
  meta.lid = 0x99;
  meta.controlAddr = 0x7f0000001000;
  meta.controlRkey = 0x55;
  ib::MetaBytes bytes = ib::encodeMeta(meta);
  if (step == RefusedStep::Magic) bytes[0] = std::byte{0x41};
  if (step == RefusedStep::Version) bytes[4] = std::byte{1};  // the 16-QP layout of earlier railtune releases
  if (step == RefusedStep::NoQps) bytes[6] = std::byte{0};
  return bytes;
}

class NetIbAcceptTest : public NetFaultTest, public ::testing::WithParamInterface<RefusalCase> {};

TEST_P(NetIbAcceptTest, RefusesTheConnectionWithOneWarningNamingThePeerAndTheCheck) {
  SimFabric fabric(env, SimFabricSetup{});
  Watchdog watchdog(30, "NetIbAcceptTest");
  NetEndpoint endpoint(kVersion);
  ASSERT_EQ(endpoint.init(), ncclSuccess);
  emu::NetDriver& net = endpoint.net();
  Handle handle{};
  LocalLink link;
  ASSERT_EQ(net.listen(0, handle.data(), &link.listen), ncclSuccess);
  const wire::ListenHandle listening =
      wire::decodeHandle(std::span<const std::byte, net::kHandleBytes>(handle), ib::kHandleMagic, "not a verbs handle");

  const int client = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(client, 0);
  ASSERT_EQ(::connect(client, reinterpret_cast<const sockaddr*>(&listening.address), sizeof(sockaddr_in)), 0);
  std::array<std::byte, wire::kHelloBytes> hello{};
  wire::encodeHello(wire::Hello{listening.nonce, 0x0badc0ffee, 0, 1, 1u << 19}, hello);
  ASSERT_TRUE(sendAllRaw(client, hello.data(), hello.size()));
  std::array<std::byte, net::kPreambleBytes> preamble{};
  ASSERT_TRUE(sendAllRaw(client, preamble.data(), preamble.size()));
  takeWarnings();
  const ib::MetaBytes meta = refusedMetadata(GetParam().step);
  ASSERT_TRUE(sendAllRaw(client, meta.data(), meta.size()));

  std::string lines;
  std::vector<std::string> warnings;
  bool answered = false;  // the acceptor's preamble, and for a good block its metadata, came back
  pollUntil(
      [&] {
        ncclNetDeviceHandle_v12_t* device = nullptr;
        EXPECT_EQ(net.accept(link.listen, &link.recv, &device), ncclSuccess);
        EXPECT_EQ(link.recv, nullptr) << "accept handed out a connection that failed a check";
        if (GetParam().step == RefusedStep::ReadyWord && !answered) {
          std::array<std::byte, net::kPreambleBytes> theirs{};
          ib::MetaBytes back{};
          answered =
              receiveAllRaw(client, theirs.data(), theirs.size()) && receiveAllRaw(client, back.data(), back.size());
          const uint32_t wrong = htole32(0x21444142);  // "BAD!"
          if (answered) {
            EXPECT_TRUE(sendAllRaw(client, &wrong, sizeof wrong));
          }
        }
        for (std::string& w : takeWarnings(&lines)) warnings.push_back(std::move(w));
        return !warnings.empty();
      },
      kStepLimit);
  ::close(client);
  ASSERT_EQ(warnings.size(), 1u) << lines;
  EXPECT_NE(warnings[0].find("accept on mlx5_0 port 1: refused the connection from 127.0.0.1:"), std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[0].find(GetParam().check), std::string::npos) << warnings[0];

  EXPECT_EQ(net.closeListen(link.listen), ncclSuccess);
  LocalLink real;  // a real peer still gets through
  ASSERT_EQ(connectLocal(net, 0, real, kStepLimit), ncclSuccess);
  ASSERT_NE(real.send, nullptr);
  ASSERT_NE(real.recv, nullptr);
  EXPECT_EQ(net.closeSend(real.send), ncclSuccess);
  EXPECT_EQ(net.closeRecv(real.recv), ncclSuccess);
  EXPECT_EQ(net.closeListen(real.listen), ncclSuccess);
  EXPECT_EQ(endpoint.finalize(), ncclSuccess);
}

INSTANTIATE_TEST_SUITE_P(
    Checks, NetIbAcceptTest,
    ::testing::Values(RefusalCase{RefusedStep::Magic, "WrongMagic", "wrong magic"},
                      RefusalCase{RefusedStep::Version, "OtherVersion", "version 1, this plugin reads version 2"},
                      RefusalCase{RefusedStep::NoQps, "NoQps", "offers 0 QPs"},
                      RefusalCase{RefusedStep::ReadyWord, "WrongReadyWord",
                                  "ready word is 0x21444142, expected 0x59445452"}),
    [](const ::testing::TestParamInfo<RefusalCase>& param) { return std::string(param.param.name); });

}  // namespace
}  // namespace railtune::testing::netfault
