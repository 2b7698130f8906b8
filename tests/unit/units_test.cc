// Tests for human unit parsing and formatting.
#include "common/units.h"

#include <gtest/gtest.h>

namespace ltl {

TEST(Units, ParsesBinaryMultiples) {
  EXPECT_EQ(*ParseSize("16K"), 16384u);
  EXPECT_EQ(*ParseSize("1m"), 1048576u);
  EXPECT_EQ(*ParseSize("300"), 300u);
  EXPECT_EQ(*ParseSize("1.5K"), 1536u);
  EXPECT_FALSE(ParseSize("abc").ok());
  EXPECT_FALSE(ParseSize("-1").ok());
  auto list = ParseSizeList("30,1937,7729");
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->size(), 3u);
  EXPECT_EQ((*list)[1], 1937u);
}

TEST(Units, FormatsCountsAndSizes) {
  EXPECT_EQ(WithCommas(12031), "12,031");
  EXPECT_EQ(WithCommas(999), "999");
  EXPECT_EQ(WithCommas(-1234567), "-1,234,567");
  EXPECT_EQ(TokenSize(16384), "16K");
  EXPECT_EQ(TokenSize(16u << 20), "16M");
  EXPECT_EQ(TokenSize(1000), "1,000");
  EXPECT_EQ(Percent(0.398112), "39.8%");
}

}  // namespace ltl
