// NCCL_IB_HCA / NCCL_SOCKET_IFNAME syntax, case by case against NCCL's parseStringList/matchIfList.
#include <gtest/gtest.h>

#include <string>

#include "formats/nccl_if_list.h"

namespace railtune::formats {
namespace {

bool accepts(const std::string& list, const std::string& name, int port = 1) {
  return matchNcclIfList(parseNcclIfList(list, kMaxIbHcaEntries), name, port).accepted;
}

TEST(FormatsNcclIfList, ParsesNamePortRailPlane) {
  const NcclIfList filter = parseNcclIfList("mlx5_0:1:3:0,mlx5_1:2,mlx5_2", kMaxIbHcaEntries);
  EXPECT_EQ(describeNcclIfList(filter), "mlx5_0:1:3:0,mlx5_1:2:-1:-1,mlx5_2:-1:-1:-1");
  EXPECT_FALSE(filter.exclude);
  EXPECT_FALSE(filter.exact);
}

TEST(FormatsNcclIfList, ExcludeThenExact) {
  const NcclIfList filter = parseNcclIfList("^=mlx5_4", kMaxIbHcaEntries);
  EXPECT_TRUE(filter.exclude);
  EXPECT_TRUE(filter.exact);
  // '=' before '^' is not NCCL's order: '^' is then part of the first name.
  EXPECT_EQ(describeNcclIfList(parseNcclIfList("=^mlx5_4", kMaxIbHcaEntries)), "=^mlx5_4:-1:-1:-1");
}

TEST(FormatsNcclIfList, EmptyFieldsAndEntries) {
  // strtok drops empty entries; an empty name drops the entry; empty numbers are -1; atoi reads "x" as 0.
  EXPECT_EQ(describeNcclIfList(parseNcclIfList(",,mlx5_0::5,:1,mlx5_1:x:2x:-7", kMaxIbHcaEntries)),
            "mlx5_0:-1:5:-1,mlx5_1:0:2:-7");
  EXPECT_TRUE(parseNcclIfList("", kMaxIbHcaEntries).entries.empty());
  EXPECT_TRUE(parseNcclIfList("^", kMaxIbHcaEntries).entries.empty());
}

TEST(FormatsNcclIfList, KeepsAtMostMaxEntriesAndCutsLongNames) {
  std::string list;
  for (int i = 0; i < 40; ++i) list += "d" + std::to_string(i) + ",";
  EXPECT_EQ(parseNcclIfList(list, kMaxIbHcaEntries).entries.size(), kMaxIbHcaEntries);
  EXPECT_EQ(parseNcclIfList(list, kMaxSocketIfEntries).entries.size(), kMaxSocketIfEntries);
  const NcclIfList longName = parseNcclIfList(std::string(100, 'n'), kMaxIbHcaEntries);
  EXPECT_EQ(longName.entries.at(0).name.size(), kMaxIfNameChars);
}

TEST(FormatsNcclIfList, NumbersAsAtoiReadsThemAndRailPlaneAsInt16) {
  const NcclIfList filter = parseNcclIfList("a: +12:70000:99999999999", kMaxIbHcaEntries);
  EXPECT_EQ(filter.entries.at(0).port, 12);
  EXPECT_EQ(filter.entries.at(0).rail, static_cast<int16_t>(70000));
  EXPECT_EQ(filter.entries.at(0).plane, -1);  // INT_MAX cut to int16_t
}

TEST(FormatsNcclIfList, PrefixByDefault) {
  EXPECT_TRUE(accepts("mlx5", "mlx5_10"));
  EXPECT_TRUE(accepts("mlx5_1", "mlx5_10"));  // NCCL's well-known surprise: mlx5_1 also selects mlx5_10
  EXPECT_FALSE(accepts("mlx5_10", "mlx5_1"));
}

TEST(FormatsNcclIfList, ExactWithEquals) {
  EXPECT_TRUE(accepts("=mlx5_1", "mlx5_1"));
  EXPECT_FALSE(accepts("=mlx5_1", "mlx5_10"));
}

TEST(FormatsNcclIfList, Exclude) {
  EXPECT_FALSE(accepts("^mlx5_4", "mlx5_4"));
  EXPECT_TRUE(accepts("^mlx5_4", "mlx5_0"));
  EXPECT_FALSE(accepts("^mlx5_1", "mlx5_10"));
  EXPECT_TRUE(accepts("^=mlx5_1", "mlx5_10"));
  EXPECT_FALSE(accepts("^", "mlx5_0"));  // an empty excluded list excludes everything, as in NCCL
}

TEST(FormatsNcclIfList, Ports) {
  EXPECT_TRUE(accepts("mlx5_0:1", "mlx5_0", 1));
  EXPECT_FALSE(accepts("mlx5_0:1", "mlx5_0", 2));
  EXPECT_TRUE(accepts("mlx5_0", "mlx5_0", 2));
  EXPECT_TRUE(accepts("mlx5_0:2", "mlx5_0", -1));  // a device without ports matches any entry port
  EXPECT_TRUE(accepts("^mlx5_0:1", "mlx5_0", 2));
}

TEST(FormatsNcclIfList, EmptyListAcceptsAll) {
  const NcclIfMatch match = matchNcclIfList(parseNcclIfList("", kMaxIbHcaEntries), "anything", 3);
  EXPECT_TRUE(match.accepted);
  EXPECT_EQ(match.entry, -1);
}

TEST(FormatsNcclIfList, ReportsTheFirstMatchingEntry) {
  const NcclIfList filter = parseNcclIfList("mlx5_0:2:7:1,mlx5:-1:5:0", kMaxIbHcaEntries);
  EXPECT_EQ(matchNcclIfList(filter, "mlx5_0", 2).entry, 0);
  EXPECT_EQ(matchNcclIfList(filter, "mlx5_0", 1).entry, 1);
  EXPECT_EQ(matchNcclIfList(parseNcclIfList("^mlx5_0", kMaxIbHcaEntries), "mlx5_1", 1).entry, -1);
}

TEST(FormatsNcclIfList, NameMatchesIgnoresPortAndExclusion) {
  // The name rule alone, as `railtune doctor` asks it of each entry: with '=' the whole name, else a prefix;
  // neither the entry's port nor a leading '^' changes the answer.
  const NcclIfList prefix = parseNcclIfList("^mlx5_1:2", kMaxIbHcaEntries);
  EXPECT_TRUE(ncclIfNameMatches(prefix, prefix.entries.at(0), "mlx5_1"));
  EXPECT_TRUE(ncclIfNameMatches(prefix, prefix.entries.at(0), "mlx5_10"));
  EXPECT_FALSE(ncclIfNameMatches(prefix, prefix.entries.at(0), "mlx5_"));
  const NcclIfList exact = parseNcclIfList("=mlx5_1:2", kMaxIbHcaEntries);
  EXPECT_TRUE(ncclIfNameMatches(exact, exact.entries.at(0), "mlx5_1"));
  EXPECT_FALSE(ncclIfNameMatches(exact, exact.entries.at(0), "mlx5_10"));
}

}  // namespace
}  // namespace railtune::formats
