// readByteSize / parseByteSize (common/byte_size.h): the one reader of a size a user types.
#include <gtest/gtest.h>

#include <optional>

#include "common/byte_size.h"

namespace railtune {
namespace {

TEST(ByteSize, UnitsAreBinaryInAnyCase) {
  EXPECT_EQ(parseByteSize("4096"), 4096u);
  EXPECT_EQ(parseByteSize("8B"), 8u);
  EXPECT_EQ(parseByteSize("8b"), 8u);
  EXPECT_EQ(parseByteSize("128K"), 131072u);
  EXPECT_EQ(parseByteSize("512k"), 524288u);
  EXPECT_EQ(parseByteSize("64KB"), 65536u);
  EXPECT_EQ(parseByteSize("1M"), 1048576u);
  EXPECT_EQ(parseByteSize("1mib"), 1048576u);
  EXPECT_EQ(parseByteSize("2GiB"), 2147483648u);
  EXPECT_EQ(parseByteSize("16G"), 17179869184u);
  EXPECT_EQ(parseByteSize("2T"), 2199023255552u);
  EXPECT_EQ(parseByteSize("0"), 0u);
}

TEST(ByteSize, ProblemsAreNamed) {
  EXPECT_EQ(readByteSize("").problem, ByteSize::Problem::kNotANumber);
  EXPECT_EQ(readByteSize("K").problem, ByteSize::Problem::kNotANumber);
  EXPECT_EQ(readByteSize(" 8").problem, ByteSize::Problem::kNotANumber);
  EXPECT_EQ(readByteSize("-8").problem, ByteSize::Problem::kNotANumber);
  EXPECT_EQ(readByteSize("99999999999999999999").problem, ByteSize::Problem::kNotANumber);
  EXPECT_EQ(readByteSize("1.5M").problem, ByteSize::Problem::kUnknownUnit);
  EXPECT_EQ(readByteSize("8iB").problem, ByteSize::Problem::kUnknownUnit);
  EXPECT_EQ(readByteSize("8X").problem, ByteSize::Problem::kUnknownUnit);
  EXPECT_EQ(readByteSize("8KK").problem, ByteSize::Problem::kUnknownUnit);
  EXPECT_EQ(readByteSize("8 K").problem, ByteSize::Problem::kUnknownUnit);
  EXPECT_EQ(readByteSize("16777216T").problem, ByteSize::Problem::kTooLarge);
  EXPECT_EQ(readByteSize("16777215T").bytes, 16777215ull << 40);
  EXPECT_EQ(readByteSize("18446744073709551615").bytes, 18446744073709551615ull);
  EXPECT_EQ(parseByteSize("1.5M"), std::nullopt);
}

TEST(ByteSize, LabelsReadBack) {
  EXPECT_EQ(byteSizeLabel(0), "0");
  EXPECT_EQ(byteSizeLabel(1000), "1000");
  EXPECT_EQ(byteSizeLabel(524288), "512K");
  EXPECT_EQ(byteSizeLabel(1572864), "1536K");
  EXPECT_EQ(byteSizeLabel(1ull << 30), "1G");
  EXPECT_EQ(byteSizeLabel(2ull << 40), "2048G");
  for (const uint64_t bytes : {uint64_t{8}, uint64_t{131072}, uint64_t{3} << 20, uint64_t{16} << 30})
    EXPECT_EQ(parseByteSize(byteSizeLabel(bytes)), bytes);
}

}  // namespace
}  // namespace railtune
