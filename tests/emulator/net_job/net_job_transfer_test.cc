// Chunked transfers and byte verification of the emulated job (emulator/net_job/transfer.h,
// pattern.h), over the NVLink stand-in (a socket pair) in one thread.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <vector>

#include "emulator/net_job/links.h"
#include "emulator/net_job/pattern.h"
#include "emulator/net_job/transfer.h"

namespace railtune::emu::netjob {
namespace {

struct LinkPair {
  std::unique_ptr<Link> send, recv;
};
LinkPair socketPair() {
  int fds[2];
  EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds), 0);
  return {makeNvlinkLink(fds[0], 1, true), makeNvlinkLink(fds[1], 0, false)};
}

TEST(NetJobTransfer, ChunksArriveInOrderWithOddSizes) {
  for (size_t size : {1ul, 4095ul, 300001ul}) {
    LinkPair pair = socketPair();
    std::vector<uint8_t> out(size), in(size, 0);
    fillPattern(out, 3, 7, 0);
    TransferOptions options;
    options.chunkBytes = 4096;
    options.window = 3;
    options.deadline = Clock::now() + std::chrono::seconds(10);
    const Transfer both[] = {{pair.send.get(), out.data(), size}, {pair.recv.get(), in.data(), size}};
    runTransfers(both, options, "test");
    EXPECT_EQ(in, out) << size;
  }
}

TEST(NetJobTransfer, TimesOutNamingTheWaitingLink) {
  LinkPair pair = socketPair();
  std::vector<uint8_t> in(100);
  TransferOptions options;
  options.deadline = Clock::now() + std::chrono::milliseconds(50);
  const Transfer recvOnly[] = {{pair.recv.get(), in.data(), in.size()}};
  try {
    runTransfers(recvOnly, options, "rank 1, all-reduce iteration 0, step 2");
    FAIL() << "no timeout";
  } catch (const TimeoutError& e) {
    EXPECT_NE(std::string(e.what()).find("step 2: timed out waiting on receive from rank 0 (0 of 100 bytes)"),
              std::string::npos)
        << e.what();
  }
}

TEST(NetJobTransfer, PeerThatClosesIsAnError) {
  LinkPair pair = socketPair();
  pair.send.reset();
  std::vector<uint8_t> in(10);
  const Transfer recvOnly[] = {{pair.recv.get(), in.data(), in.size()}};
  EXPECT_THROW(runTransfers(recvOnly, TransferOptions{}, "x"), LinkError);
}

TEST(NetJobPattern, SumsAreExactModulo256) {
  std::vector<uint8_t> sum(1000);
  const int ranks[] = {0, 5, 9};
  fillSum(sum, ranks, 11, 17);
  for (size_t i = 0; i < sum.size(); ++i)
    ASSERT_EQ(sum[i], static_cast<uint8_t>(patternByte(0, 11, 17 + i) + patternByte(5, 11, 17 + i) +
                                           patternByte(9, 11, 17 + i)));
  // Data of another iteration, rank or offset must not pass for this one's: nearly every byte differs.
  int sameAcrossSalts = 0, sameAcrossRanks = 0;
  for (size_t i = 0; i < 1000; ++i) {
    sameAcrossSalts += patternByte(4, 1, i) == patternByte(4, 2, i);
    sameAcrossRanks += patternByte(4, 1, i) == patternByte(5, 1, i);
  }
  EXPECT_LT(sameAcrossSalts, 20);
  EXPECT_LT(sameAcrossRanks, 20);
}

TEST(NetJobPattern, MismatchNamesRankCollectiveAndOffset) {
  std::vector<uint8_t> expected(64), got;
  fillPattern(expected, 2, 9, 0);
  got = expected;
  EXPECT_NO_THROW(verifyBytes(got, expected, "x", 0));
  got[40] = static_cast<uint8_t>(got[40] + 1);
  try {
    verifyBytes(got, expected, "rank 3, all-gather iteration 1, step 0, from rank 2", 1000);
    FAIL() << "mismatch not found";
  } catch (const VerifyError& e) {
    char tail[64];
    std::snprintf(tail, sizeof tail, "byte at offset 1040 is 0x%02x, expected 0x%02x", got[40], expected[40]);
    EXPECT_EQ(std::string(e.what()), "rank 3, all-gather iteration 1, step 0, from rank 2: " + std::string(tail));
  }
  EXPECT_THROW(verifyBytes(std::span<const uint8_t>(got).first(10), expected, "x", 0), VerifyError);
}

}  // namespace
}  // namespace railtune::emu::netjob
