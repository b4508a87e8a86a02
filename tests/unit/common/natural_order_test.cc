// naturalLess (common/natural_order.h): the one order names are listed in.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/natural_order.h"

namespace railtune {
namespace {

TEST(NaturalOrder, NumbersCompareAsNumbers) {
  std::vector<std::string> nics{"mlx5_11", "mlx5_2", "mlx5_0", "mlx5_1", "mlx5_10"};
  std::sort(nics.begin(), nics.end(), NaturalLess{});
  EXPECT_EQ(nics, (std::vector<std::string>{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_10", "mlx5_11"}));
  std::vector<std::string> hosts{"r10-t2", "r2-t10", "r2-t9", "r1"};
  std::sort(hosts.begin(), hosts.end(), NaturalLess{});
  EXPECT_EQ(hosts, (std::vector<std::string>{"r1", "r2-t9", "r2-t10", "r10-t2"}));
}

TEST(NaturalOrder, IsATotalOrder) {
  EXPECT_FALSE(naturalLess("a", "a"));
  EXPECT_TRUE(naturalLess("a", "a0"));                                // a prefix first
  EXPECT_TRUE(naturalLess("r01", "r1") != naturalLess("r1", "r01"));  // equal as numbers, still ordered
  EXPECT_TRUE(naturalLess("r1", "r01x") || naturalLess("r01x", "r1"));
  EXPECT_TRUE(naturalLess("node9", "nodeA"));                                   // a digit against a letter: byte order
  EXPECT_TRUE(naturalLess("x99999999999999999999", "x100000000000000000000"));  // beyond 64 bits
  EXPECT_EQ(naturalCompare("", ""), 0);
  EXPECT_LT(naturalCompare("", "a"), 0);
}

}  // namespace
}  // namespace railtune
