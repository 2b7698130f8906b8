// --tiers parsing and tier capacities in blocks, against hand arithmetic.
#include "models/kv_tiers.h"

#include <gtest/gtest.h>

namespace ltl {
namespace {

TEST(KvTiers, ParsesBytesAndTokens) {
  auto t = ParseTierList("hbm=80GiB, dram=1TiB,ssd=8TB,spill=4M");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->size(), 4u);
  EXPECT_EQ((*t)[0].name, "hbm");
  EXPECT_EQ((*t)[0].bytes, 80.0 * (1ull << 30));
  EXPECT_EQ((*t)[1].bytes, static_cast<double>(1ull << 40));
  EXPECT_EQ((*t)[2].bytes, 8e12);  // decimal TB
  EXPECT_EQ((*t)[3].bytes, 0);
  EXPECT_EQ((*t)[3].tokens, 4u << 20);  // binary M, as --capacity
  EXPECT_EQ((*t)[3].text, "4M");
}

TEST(KvTiers, RejectsBadLists) {
  EXPECT_FALSE(ParseTierList("hbm").ok());
  EXPECT_FALSE(ParseTierList("hbm=").ok());
  EXPECT_FALSE(ParseTierList("hbm=0GiB").ok());
  EXPECT_FALSE(ParseTierList("hbm=-1GiB").ok());
  EXPECT_FALSE(ParseTierList("hbm=1GiB,HBM=2GiB").ok());  // names are case-insensitive
  EXPECT_FALSE(ParseTierList("h m=1GiB").ok());
  EXPECT_FALSE(ParseTierList("a=1,b=1,c=1,d=1,e=1,f=1,g=1,h=1,i=1").ok());
  EXPECT_NE(ParseTierList("hbm=lots").status().message().find("bad size 'lots'"),
            std::string::npos);
}

TEST(KvTiers, CapacityInBlocks) {
  // GLM-5.2 at bf16: 95,232 B/token; 512-token blocks of 48,758,784 B.
  const uint64_t bits = 95232 * 8;
  TierSize hbm{"hbm", 80.0 * (1ull << 30), 0, "80GiB"};
  EXPECT_EQ(TierCapacityBlocks(hbm, bits, 512), (80ull << 30) / 48758784);  // 1,761
  EXPECT_EQ(TierCapacityBlocks(hbm, bits, 512), 1761u);
  TierSize ssd{"ssd", static_cast<double>(8ull << 40), 0, "8TiB"};
  EXPECT_EQ(TierCapacityBlocks(ssd, bits, 512), (8ull << 40) / 48758784);
  TierSize tok{"t", 0, 4u << 20, "4M"};
  EXPECT_EQ(TierCapacityBlocks(tok, 0, 512), 8192u);
  EXPECT_EQ(TierCapacityBlocks(tok, 0, 0), 0u);
  EXPECT_EQ(TierCapacityBlocks(hbm, 0, 512), 0u);  // bytes without a size per token
}

}  // namespace
}  // namespace ltl
