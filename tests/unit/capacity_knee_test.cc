// Tests for the capacity knee: the size past which a doubling of the cache adds < 1 point.
#include "analyze/capacity_knee.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace ltl {

TEST(CapacityKnee, FindsWhereDoublingStopsPaying) {
  // 10 points per doubling up to 32 blocks (50%), flat after. The 1/16-octave grid near there is
  // 28, 29, 31, 32 (2^(78/16) = 29.3, 2^(79/16) = 30.7). Hand-computed: at 29 blocks a doubling
  // still gains 50 - 48.58 = 1.42 points, at 31 only 50 - 49.54 = 0.46; so the knee is 31.
  auto rate = [](uint64_t c) {
    return std::min(0.5, 0.1 * std::log2(static_cast<double>(std::max<uint64_t>(c, 1))));
  };
  CapacityKnee k = FindCapacityKnee(rate, 32);
  ASSERT_TRUE(k.found);
  EXPECT_EQ(k.capacity_blocks, 31u);
  EXPECT_NEAR(k.hit_rate, 0.1 * std::log2(31.0), 1e-12);
}

TEST(CapacityKnee, FlatCurveKneesAtOneBlock) {
  CapacityKnee k = FindCapacityKnee([](uint64_t) { return 0.4; }, 1);
  ASSERT_TRUE(k.found);
  EXPECT_EQ(k.capacity_blocks, 1u);
}

TEST(CapacityKnee, NoReuseHasNoKnee) {
  EXPECT_FALSE(FindCapacityKnee([](uint64_t) { return 0.0; }, 1).found);
  EXPECT_FALSE(FindCapacityKnee([](uint64_t) { return 0.3; }, 0).found);
}

}  // namespace ltl
