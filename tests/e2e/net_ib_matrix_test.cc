// The verbs transport's QP matrix: every QP count a user may set (NCCL_IB_QPS_PER_CONNECTION 1..128, among them
// 17, one past the 16 an earlier transport capped at while still cutting messages for the uncapped count) x data
// split on and off x the sizes where chunking goes wrong (0, 1, 127/128/129 around the 128-byte chunk alignment,
// 4 KiB - 1, 1 MiB + 3, and 4 MiB: NCCL's default NCCL_BUFFSIZE, which no single step exceeds), alone and in
// grouped receives sent out of order. Through the real .so between two simulated hosts; every byte of every
// buffer is checked against a position-dependent pattern, and so are the bytes past each message. The path log
// of both ends must show the QP count asked for, and the bytes each QP carried must agree at both ends.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <ostream>
#include <string>
#include <tuple>

#include "tests/e2e/net_ib_workload.h"

namespace railtune::testing::netfault {
namespace {

constexpr size_t kMiB = size_t{1} << 20;
const std::vector<size_t> kSizes = {0, 1, 127, 128, 129, 4095, kMiB + 3, 4 * kMiB};

struct MatrixCase {
  int qps = 1;
  bool split = false;
  const char* variable = "NCCL_IB_QPS_PER_CONNECTION";
};

std::string caseName(const MatrixCase& c) {
  return std::string(c.variable[0] == 'N' ? "nccl" : "railtune") + "_qps" + std::to_string(c.qps) +
         (c.split ? "_split" : "_rotate");
}

void PrintTo(const MatrixCase& c, std::ostream* out) {
  *out << caseName(c);
}

class NetIbMatrixTest : public NetFaultTest, public ::testing::WithParamInterface<MatrixCase> {};

// The connect and close records of both ends: the QP count, and per QP the same bytes at both ends.
void checkPathLog(const std::string& dir, const MatrixCase& c) {
  std::vector<const formats::path_log::PathRecord*> closes;
  const std::vector<formats::path_log::ParsedRecord> records = pathRecords(dir);
  int connects = 0;
  for (const auto& parsed : records) {
    const formats::path_log::PathRecord& r = parsed.record;
    if (r.kind == formats::path_log::RecordKind::Connect) {
      ++connects;
      EXPECT_EQ(r.streams, c.qps);
      EXPECT_TRUE(r.verbs.present);
      EXPECT_EQ(r.verbs.qpCount, c.qps);
    }
    if (r.kind == formats::path_log::RecordKind::Close) closes.push_back(&r);
  }
  EXPECT_EQ(connects, 2);
  ASSERT_EQ(closes.size(), 2u);
  int carrying = 0;
  for (int q = 0; q < c.qps; ++q) {
    EXPECT_EQ(closes[0]->traffic.bytesPerQp[q], closes[1]->traffic.bytesPerQp[q]) << "QP " << q;
    carrying += closes[0]->traffic.bytesPerQp[q] > 0 ? 1 : 0;
  }
  // Split: the 4 MiB messages reach every QP. Not split: messages rotate, so more than one QP carries bytes.
  if (c.split) {
    EXPECT_EQ(carrying, c.qps) << "QPs that carried bytes";
  } else if (c.qps > 1) {
    EXPECT_GT(carrying, 1) << "QPs that carried bytes";
  }
}

TEST_P(NetIbMatrixTest, EveryByteOfEverySizeArrivesOnEveryQpCount) {
  const MatrixCase c = GetParam();
  const std::string logs =
      std::filesystem::temp_directory_path() / ("railtune-ib-matrix-" + std::to_string(getpid()) + "-" + caseName(c));
  std::filesystem::create_directories(logs);
  SimFabricSetup setup;
  setup.split = c.split;
  // The case's count through its variable; the other QP variable is cleared: NCCL's wins over railtune's, and
  // two that disagree add a WARN.
  const char* other = std::string(c.variable) == "RAILTUNE_NET_QPS" ? "NCCL_IB_QPS_PER_CONNECTION" : "RAILTUNE_NET_QPS";
  setup.env = {{c.variable, std::to_string(c.qps)}, {other, std::nullopt}};
  runIbWorkload(env, setup, kVersion, sizesPlan(kSizes, 0x5eed0000u + static_cast<uint32_t>(c.qps)), logs);
  if (!HasFailure()) checkPathLog(logs, c);
  std::filesystem::remove_all(logs);
}

std::vector<MatrixCase> cases() {
  std::vector<MatrixCase> out;
  for (int qps : {1, 2, 4, 8, 16, 17, 32, 128})
    for (bool split : {false, true}) out.push_back(MatrixCase{qps, split});
  // railtune's own variable, where NCCL's is not set, reaches the same QP count.
  out.push_back(MatrixCase{17, true, "RAILTUNE_NET_QPS"});
  out.push_back(MatrixCase{32, false, "RAILTUNE_NET_QPS"});
  return out;
}

INSTANTIATE_TEST_SUITE_P(QpsSplitSizes, NetIbMatrixTest, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<MatrixCase>& param) { return caseName(param.param); });

}  // namespace
}  // namespace railtune::testing::netfault
