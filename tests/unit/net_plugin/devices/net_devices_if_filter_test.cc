// NCCL_IB_HCA / NCCL_SOCKET_IFNAME syntax, case by case against NCCL's parseStringList/matchIfList.
#include <gtest/gtest.h>

#include <string>

#include "net_plugin/devices/if_filter.h"

namespace railtune::net {
namespace {

bool accepts(const std::string& list, const std::string& name, int port = 1) {
  return matchIfFilter(parseIfFilter(list, kMaxIbHcaEntries), name, port).accepted;
}

TEST(NetDevicesIfFilter, ParsesNamePortRailPlane) {
  const IfFilter filter = parseIfFilter("mlx5_0:1:3:0,mlx5_1:2,mlx5_2", kMaxIbHcaEntries);
  EXPECT_EQ(describeIfFilter(filter), "mlx5_0:1:3:0,mlx5_1:2:-1:-1,mlx5_2:-1:-1:-1");
  EXPECT_FALSE(filter.exclude);
  EXPECT_FALSE(filter.exact);
}

TEST(NetDevicesIfFilter, ExcludeThenExact) {
  const IfFilter filter = parseIfFilter("^=mlx5_4", kMaxIbHcaEntries);
  EXPECT_TRUE(filter.exclude);
  EXPECT_TRUE(filter.exact);
  // '=' before '^' is not NCCL's order: '^' is then part of the first name.
  EXPECT_EQ(describeIfFilter(parseIfFilter("=^mlx5_4", kMaxIbHcaEntries)), "=^mlx5_4:-1:-1:-1");
}

TEST(NetDevicesIfFilter, EmptyFieldsAndEntries) {
  // strtok drops empty entries; an empty name drops the entry; empty numbers are -1; atoi reads "x" as 0.
  EXPECT_EQ(describeIfFilter(parseIfFilter(",,mlx5_0::5,:1,mlx5_1:x:2x:-7", kMaxIbHcaEntries)),
            "mlx5_0:-1:5:-1,mlx5_1:0:2:-7");
  EXPECT_TRUE(parseIfFilter("", kMaxIbHcaEntries).entries.empty());
  EXPECT_TRUE(parseIfFilter("^", kMaxIbHcaEntries).entries.empty());
}

TEST(NetDevicesIfFilter, KeepsAtMostMaxEntriesAndCutsLongNames) {
  std::string list;
  for (int i = 0; i < 40; ++i) list += "d" + std::to_string(i) + ",";
  EXPECT_EQ(parseIfFilter(list, kMaxIbHcaEntries).entries.size(), kMaxIbHcaEntries);
  EXPECT_EQ(parseIfFilter(list, kMaxSocketIfEntries).entries.size(), kMaxSocketIfEntries);
  const IfFilter longName = parseIfFilter(std::string(100, 'n'), kMaxIbHcaEntries);
  EXPECT_EQ(longName.entries.at(0).name.size(), kMaxIfNameChars);
}

TEST(NetDevicesIfFilter, NumbersAsAtoiReadsThemAndRailPlaneAsInt16) {
  const IfFilter filter = parseIfFilter("a: +12:70000:99999999999", kMaxIbHcaEntries);
  EXPECT_EQ(filter.entries.at(0).port, 12);
  EXPECT_EQ(filter.entries.at(0).rail, static_cast<int16_t>(70000));
  EXPECT_EQ(filter.entries.at(0).plane, -1);  // INT_MAX cut to int16_t
}

TEST(NetDevicesIfFilter, PrefixByDefault) {
  EXPECT_TRUE(accepts("mlx5", "mlx5_10"));
  EXPECT_TRUE(accepts("mlx5_1", "mlx5_10"));  // NCCL's well-known surprise: mlx5_1 also selects mlx5_10
  EXPECT_FALSE(accepts("mlx5_10", "mlx5_1"));
}

TEST(NetDevicesIfFilter, ExactWithEquals) {
  EXPECT_TRUE(accepts("=mlx5_1", "mlx5_1"));
  EXPECT_FALSE(accepts("=mlx5_1", "mlx5_10"));
}

TEST(NetDevicesIfFilter, Exclude) {
  EXPECT_FALSE(accepts("^mlx5_4", "mlx5_4"));
  EXPECT_TRUE(accepts("^mlx5_4", "mlx5_0"));
  EXPECT_FALSE(accepts("^mlx5_1", "mlx5_10"));
  EXPECT_TRUE(accepts("^=mlx5_1", "mlx5_10"));
  EXPECT_FALSE(accepts("^", "mlx5_0"));  // an empty excluded list excludes everything, as in NCCL
}

TEST(NetDevicesIfFilter, Ports) {
  EXPECT_TRUE(accepts("mlx5_0:1", "mlx5_0", 1));
  EXPECT_FALSE(accepts("mlx5_0:1", "mlx5_0", 2));
  EXPECT_TRUE(accepts("mlx5_0", "mlx5_0", 2));
  EXPECT_TRUE(accepts("mlx5_0:2", "mlx5_0", -1));  // a device without ports matches any entry port
  EXPECT_TRUE(accepts("^mlx5_0:1", "mlx5_0", 2));
}

TEST(NetDevicesIfFilter, EmptyListAcceptsAll) {
  const IfMatch match = matchIfFilter(parseIfFilter("", kMaxIbHcaEntries), "anything", 3);
  EXPECT_TRUE(match.accepted);
  EXPECT_EQ(match.entry, -1);
}

TEST(NetDevicesIfFilter, ReportsTheFirstMatchingEntry) {
  const IfFilter filter = parseIfFilter("mlx5_0:2:7:1,mlx5:-1:5:0", kMaxIbHcaEntries);
  EXPECT_EQ(matchIfFilter(filter, "mlx5_0", 2).entry, 0);
  EXPECT_EQ(matchIfFilter(filter, "mlx5_0", 1).entry, 1);
  EXPECT_EQ(matchIfFilter(parseIfFilter("^mlx5_0", kMaxIbHcaEntries), "mlx5_1", 1).entry, -1);
}

}  // namespace
}  // namespace railtune::net
